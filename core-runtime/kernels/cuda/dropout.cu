// Dropout (the op: autodiff-engine/src/ops/dropout.cpp; the mask: kernels/dropout_rules.h):
//
//   y[i] = x[i] * (keep(i) ? scale : 0),   keep(4g + q) = word q of Philox4x32-10 at counter g
//   under the seed >= threshold,   scale = 1 / (1 - p) (0 when p = 1)
//
// A thread takes groups of four elements (one Philox evaluation each) in a grid-stride loop;
// with vec4 (x and y 16-byte aligned) a whole group is one 16-byte load and store in float32. The
// seed is read on the device, so a captured CUDA graph draws a new mask whenever the seed
// changes.
#include "../dropout_rules.h"
#include "common.cuh"

namespace gg_dropout {

template <typename T>
__device__ __forceinline__ T scaled(T v, bool keep, T scale) {
  return v * (keep ? scale : T(0));
}

// A whole group of four: one 16-byte load and store for float32 (the launcher's vec4 says they
// are aligned), four scalar ones for float64.
__device__ __forceinline__ void whole_group(float* y, const float* x, const bool (&keep)[4], float scale) {
  const float4 v = *reinterpret_cast<const float4*>(x);
  *reinterpret_cast<float4*>(y) =
      make_float4(scaled(v.x, keep[0], scale), scaled(v.y, keep[1], scale), scaled(v.z, keep[2], scale),
                  scaled(v.w, keep[3], scale));
}
__device__ __forceinline__ void whole_group(double* y, const double* x, const bool (&keep)[4], double scale) {
#pragma unroll
  for (int q = 0; q < 4; ++q) y[q] = scaled(x[q], keep[q], scale);
}

template <typename T>
__device__ void dropout(int64_t n, uint64_t threshold, T scale, int vec4, T* y, const T* x, const int64_t* seed_ptr) {
  const uint64_t seed = (uint64_t)*seed_ptr;
  const int64_t groups = (n + 3) / 4;
  GG_FOR(g, groups) {
    bool keep[4];
    glassgrad::dropout_rule::keep4(seed, threshold, (uint64_t)g, keep);
    const int64_t i0 = 4 * g;
    if (vec4 && i0 + 3 < n) {
      whole_group(y + i0, x + i0, keep, scale);
    } else {
      for (int q = 0; q < 4 && i0 + q < n; ++q) y[i0 + q] = scaled(x[i0 + q], keep[q], scale);
    }
  }
}

}  // namespace gg_dropout

GG_KERNEL void gg_dropout_f32(int64_t n, uint64_t threshold, float scale, int vec4, float* y, const float* x,
                              const int64_t* seed) {
  gg_dropout::dropout<float>(n, threshold, scale, vec4, y, x, seed);
}
GG_KERNEL void gg_dropout_f64(int64_t n, uint64_t threshold, double scale, int vec4, double* y, const double* x,
                              const int64_t* seed) {
  gg_dropout::dropout<double>(n, threshold, scale, vec4, y, x, seed);
}
