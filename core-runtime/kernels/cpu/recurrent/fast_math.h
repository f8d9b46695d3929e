// Branch-free float sigmoid and tanh for the CPU's recurrent cell loops (cells.h), written so
// that the compiler vectorizes a loop over hidden units (no calls; both sides of a select are
// computed). The files that vectorize them (cells_impl.h) are compiled without trapping math
// (a select of a float comparison is otherwise kept a branch). Static: each ISA's translation
// unit has its own copy (no out-of-line copy compiled for AVX-512 can serve baseline code). The
// double loops use recurrent_cell::ExactMath (libm).
//
//   exp(x):  x clamped to [-87, 88] (the result stays a normal float), n = round(x / ln 2),
//            r = x - n ln 2 (ln 2 in two parts, Cody and Waite), e^r by Cephes' degree-6
//            polynomial on |r| <= ln(2) / 2, times 2^n built in the exponent bits.
//   sigmoid: 1 / (1 + exp(-x))   (for x < -87 this gives 1.6e-38 instead of less: an absolute
//            error below 1e-37).
//   tanh:    Cephes' odd polynomial x + x^3 P(x^2) for |x| < 0.625, else
//            sign(x) (1 - 2 / (exp(2|x|) + 1)).
// Relative error within a few float ulps (python-bindings/tests/test_recurrent_kernels.py
// checks them against float64 over the whole range, the layers against PyTorch).
#pragma once
#include <cstdint>
#include <cstring>

namespace glassgrad {
namespace cpu {

static inline float fast_exp(float x) {
  x = x < -87.f ? -87.f : x;
  x = x > 88.f ? 88.f : x;
  // Round to nearest by the 1.5 * 2^23 trick (|x / ln 2| < 2^22): no floor/round call.
  const float n = (x * 1.44269504088896341f + 12582912.f) - 12582912.f;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

static inline float fast_sigmoid(float x) { return 1.f / (1.f + fast_exp(-x)); }

static inline float fast_tanh(float x) {
  const float a = x < 0.f ? -x : x;
  // Both branches are computed for every lane and blended by a 0/1 weight: a select of a
  // division's result would be a conditional division, which the compiler may not vectorize
  // (it may trap). The polynomial's argument is clamped to its range so that its value stays
  // finite where its weight is 0.
  const float xs = x < -0.625f ? -0.625f : (x > 0.625f ? 0.625f : x);
  const float z = xs * xs;
  const float small =
      ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
       3.33332819422e-1f) * z * xs + xs;
  const float t = 1.f - 2.f / (fast_exp(2.f * a) + 1.f);
  const float large = x < 0.f ? -t : t;
  const float w = a < 0.625f ? 1.f : 0.f;
  return w * small + (1.f - w) * large;
}

}  // namespace cpu
}  // namespace glassgrad
