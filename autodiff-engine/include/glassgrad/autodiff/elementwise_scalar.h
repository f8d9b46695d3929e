// The arithmetic of the elementwise ops (elementwise_ops.def), for the host and the device.
// The CPU kernels (compiled by the C++ compiler) and the CUDA kernels (nvcc, or NVRTC) include
// this file and call Elementwise<op>::f, so unfused kernels, both fused interpreters and both
// backends compute each op with one expression. Nothing here allocates or throws; on the device
// it includes no header at all (NVRTC has no host headers).
//
//   ElementwiseOp        one code per row, in row order (the op codes of FusedElementwise)
//   Elementwise<op>      kind, dtypes, has_scalar and f(a, b, s) of one row
//   gg_exp ... gg_pow    the math the rows call: std:: on the host, CUDA's on the device
#pragma once

#if defined(__CUDACC__)
#define GG_SCALAR_FN __device__ __forceinline__
#else
#include <cmath>
#include <cstdint>
#include <cstring>
#define GG_SCALAR_FN inline
#endif
// Host functions that CPU files compiled for another instruction set (*_avx2.cpp,
// *_avx512.cpp) inline too: always inlined, never a shared out-of-line copy that baseline code
// could end up calling.
#if !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#define GG_HOST_INLINE __attribute__((always_inline)) inline
#else
#define GG_HOST_INLINE inline
#endif

namespace glassgrad {

enum class ElementwiseOp : int {
#define GG_ELEMENTWISE(Name, ...) Name,
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
};
constexpr int kElementwiseOpCount = 0
#define GG_ELEMENTWISE(...) +1
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
    ;

enum class ElementwiseKind : int { Unary, Binary, Compare, BackwardX, BackwardY };
enum class ElementwiseDTypes : int { Float, Numeric, Any };

// ---- math: the same functions on both sides (float and double overloads) ----
#if defined(__CUDACC__)
GG_SCALAR_FN float gg_exp(float x) { return expf(x); }
GG_SCALAR_FN double gg_exp(double x) { return exp(x); }
GG_SCALAR_FN float gg_log(float x) { return logf(x); }
GG_SCALAR_FN double gg_log(double x) { return log(x); }
GG_SCALAR_FN float gg_sqrt(float x) { return sqrtf(x); }
GG_SCALAR_FN double gg_sqrt(double x) { return sqrt(x); }
GG_SCALAR_FN float gg_tanh(float x) { return tanhf(x); }
GG_SCALAR_FN double gg_tanh(double x) { return tanh(x); }
GG_SCALAR_FN float gg_pow(float x, float e) { return powf(x, e); }
GG_SCALAR_FN double gg_pow(double x, double e) { return pow(x, e); }
GG_SCALAR_FN float gg_erf(float x) { return erff(x); }
GG_SCALAR_FN double gg_erf(double x) { return erf(x); }
GG_SCALAR_FN float gg_log1p(float x) { return log1pf(x); }
GG_SCALAR_FN double gg_log1p(double x) { return log1p(x); }
GG_SCALAR_FN float gg_expm1(float x) { return expm1f(x); }
GG_SCALAR_FN double gg_expm1(double x) { return expm1(x); }
// PyTorch's math functions (torch.sin, torch.floor, torch.atan2, ...)
#define GG_DEVICE_MATH1(name, f32, f64)                       \
  GG_SCALAR_FN float gg_##name(float x) { return f32(x); }    \
  GG_SCALAR_FN double gg_##name(double x) { return f64(x); }
GG_DEVICE_MATH1(sin, sinf, sin)
GG_DEVICE_MATH1(cos, cosf, cos)
GG_DEVICE_MATH1(tan, tanf, tan)
GG_DEVICE_MATH1(asin, asinf, asin)
GG_DEVICE_MATH1(acos, acosf, acos)
GG_DEVICE_MATH1(atan, atanf, atan)
GG_DEVICE_MATH1(sinh, sinhf, sinh)
GG_DEVICE_MATH1(cosh, coshf, cosh)
GG_DEVICE_MATH1(asinh, asinhf, asinh)
GG_DEVICE_MATH1(acosh, acoshf, acosh)
GG_DEVICE_MATH1(atanh, atanhf, atanh)
GG_DEVICE_MATH1(exp2, exp2f, exp2)
GG_DEVICE_MATH1(log2, log2f, log2)
GG_DEVICE_MATH1(log10, log10f, log10)
GG_DEVICE_MATH1(rsqrt, rsqrtf, rsqrt)
GG_DEVICE_MATH1(floor, floorf, floor)
GG_DEVICE_MATH1(ceil, ceilf, ceil)
GG_DEVICE_MATH1(round_even, rintf, rint)
GG_DEVICE_MATH1(trunc, truncf, trunc)
#undef GG_DEVICE_MATH1
GG_SCALAR_FN float gg_atan2(float y, float x) { return atan2f(y, x); }
GG_SCALAR_FN double gg_atan2(double y, double x) { return atan2(y, x); }
GG_SCALAR_FN float gg_fmod(float a, float b) { return fmodf(a, b); }
GG_SCALAR_FN double gg_fmod(double a, double b) { return fmod(a, b); }
GG_SCALAR_FN float gg_copysign(float a, float b) { return copysignf(a, b); }
GG_SCALAR_FN double gg_copysign(double a, double b) { return copysign(a, b); }
#else
template <typename T> inline T gg_exp(T x) { return std::exp(x); }
template <typename T> inline T gg_log(T x) { return std::log(x); }
template <typename T> inline T gg_sqrt(T x) { return std::sqrt(x); }
template <typename T> inline T gg_tanh(T x) { return std::tanh(x); }
template <typename T> inline T gg_pow(T x, T e) { return std::pow(x, e); }
template <typename T> inline T gg_erf(T x) { return std::erf(x); }
template <typename T> inline T gg_log1p(T x) { return std::log1p(x); }
template <typename T> inline T gg_expm1(T x) { return std::expm1(x); }
template <typename T> inline T gg_sin(T x) { return std::sin(x); }
template <typename T> inline T gg_cos(T x) { return std::cos(x); }
template <typename T> inline T gg_tan(T x) { return std::tan(x); }
template <typename T> inline T gg_asin(T x) { return std::asin(x); }
template <typename T> inline T gg_acos(T x) { return std::acos(x); }
template <typename T> inline T gg_atan(T x) { return std::atan(x); }
template <typename T> inline T gg_sinh(T x) { return std::sinh(x); }
template <typename T> inline T gg_cosh(T x) { return std::cosh(x); }
template <typename T> inline T gg_asinh(T x) { return std::asinh(x); }
template <typename T> inline T gg_acosh(T x) { return std::acosh(x); }
template <typename T> inline T gg_atanh(T x) { return std::atanh(x); }
template <typename T> inline T gg_exp2(T x) { return std::exp2(x); }
template <typename T> inline T gg_log2(T x) { return std::log2(x); }
template <typename T> inline T gg_log10(T x) { return std::log10(x); }
template <typename T> inline T gg_rsqrt(T x) { return T(1) / std::sqrt(x); }
template <typename T> inline T gg_floor(T x) { return std::floor(x); }
template <typename T> inline T gg_ceil(T x) { return std::ceil(x); }
template <typename T> inline T gg_round_even(T x) { return std::nearbyint(x); }  // ties to even (default mode)
template <typename T> inline T gg_trunc(T x) { return std::trunc(x); }
template <typename T> inline T gg_atan2(T y, T x) { return std::atan2(y, x); }
template <typename T> inline T gg_fmod(T a, T b) { return std::fmod(a, b); }
template <typename T> inline T gg_copysign(T a, T b) { return std::copysign(a, b); }
#endif

// 1 / (1 + exp(-x)), taking exp of a non-positive number only: no overflow for large |x|.
template <typename T>
GG_SCALAR_FN T gg_sigmoid(T x) {
  if (x >= T(0)) return T(1) / (T(1) + gg_exp(-x));
  const T e = gg_exp(x);
  return e / (T(1) + e);
}

// GELU (Hendrycks & Gimpel 2016) as PyTorch computes it, and its derivative:
//   exact:  gelu(x) = x Phi(x),  Phi(x) = (1 + erf(x / sqrt 2)) / 2,  gelu'(x) = Phi(x) + x phi(x),
//           phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
//   tanh:   gelu(x) = x/2 (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3),
//           gelu'(x) = (1 + tanh u) / 2 + x/2 (1 - tanh^2 u) sqrt(2/pi) (1 + 3 * 0.044715 x^2)
template <typename T>
GG_SCALAR_FN T gg_gelu(T x) {
  return x * T(0.5) * (T(1) + gg_erf(x * T(0.70710678118654752440)));
}
template <typename T>
GG_SCALAR_FN T gg_gelu_grad(T x) {
  const T cdf = T(0.5) * (T(1) + gg_erf(x * T(0.70710678118654752440)));
  const T pdf = T(0.39894228040143267794) * gg_exp(x * x * T(-0.5));
  return cdf + x * pdf;
}
#if !defined(__CUDACC__)
// Exact GELU in float32 on the host, with its own Phi and e^x instead of erff and expf: the
// compiler vectorizes a loop of these (no calls, no branches), where a call per element of erff
// made GELU and its backward 6x PyTorch's time in a GPT step on the CPU (docs/gpt-step.md). Both
// stay within a few float32 ulps of the libm forms (relative error of Phi below 1e-6 where
// |x| < 5, 2e-5 in the far tails, where z^2 rounds); the CUDA kernels keep erff (cheap on the
// device), so the backends agree to that tolerance. kernels/cpu/gelu_impl.h runs them in AVX2
// and AVX-512 loops.
namespace host_float {
// e^x: x = n ln2 + r with |r| <= ln2 / 2 (n rounded by the 1.5 * 2^23 trick; ln2 in two parts,
// Cody and Waite), e^r by its degree-7 Taylor polynomial (error below 1e-8), 2^n written into
// the exponent bits. x is clamped to [-87, 88], where 2^n stays a normal float.
GG_HOST_INLINE float exp(float x) {
  x = x > 88.0f ? 88.0f : x;
  x = x < -87.0f ? -87.0f : x;
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) * (1 << 23);
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
// Phi(x) = erfc(-x / sqrt 2) / 2, erfc(z) = t exp(-z^2 + P(t)) with t = 1 / (1 + z / 2) for z >= 0
// (the Chebyshev fit of Numerical Recipes' erfcc, relative error below 1.2e-7 for every z >= 0),
// reflected (1 - erfc(z) / 2) for x > 0: accurate in relative terms in both tails.
GG_HOST_INLINE float phi(float x) {
  const float z = std::fabs(x) * 0.70710678118654752f;
  const float t = 1.0f / (1.0f + 0.5f * z);
  const float p =
      -1.26551223f +
      t * (1.00002368f +
           t * (0.37409196f +
                t * (0.09678418f +
                     t * (-0.18628806f +
                          t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  const float half_erfc = 0.5f * t * exp(-z * z + p);
  return x > 0.0f ? 1.0f - half_erfc : half_erfc;
}
}  // namespace host_float
template <>
GG_HOST_INLINE float gg_gelu<float>(float x) {
  return x * host_float::phi(x);
}
template <>
GG_HOST_INLINE float gg_gelu_grad<float>(float x) {
  return host_float::phi(x) + x * 0.39894228040143267794f * host_float::exp(x * x * -0.5f);
}
#endif
template <typename T>
GG_SCALAR_FN T gg_gelu_tanh(T x) {
  const T u = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
  return T(0.5) * x * (T(1) + gg_tanh(u));
}
template <typename T>
GG_SCALAR_FN T gg_gelu_tanh_grad(T x) {
  const T t = gg_tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x));
  return T(0.5) * (T(1) + t) +
         T(0.5) * x * (T(1) - t * t) * T(0.79788456080286535588) * (T(1) + T(3) * T(0.044715) * x * x);
}

// d/dx of silu(x) = x sigmoid(x): s (1 + x (1 - s)), s = sigmoid(x).
template <typename T>
GG_SCALAR_FN T gg_silu_grad(T x) {
  const T s = gg_sigmoid(x);
  return s * (T(1) + x * (T(1) - s));
}

// The hard activations and Mish as PyTorch computes them (torch.nn.functional's hardswish,
// hardsigmoid and mish):
//   relu6(x)     = min(max(x, 0), 6)                 (NaN stays NaN)
//   hardswish(x) = x * relu6(x + 3) / 6,   d/dx = 0 (x <= -3), x / 3 + 1/2 (-3 < x < 3), 1 (x >= 3)
//   mish(x)      = x * tanh(softplus(x)),  d/dx = t + x * sigmoid(x) * (1 - t^2), t = tanh(softplus(x))
template <typename T>
GG_SCALAR_FN T gg_relu6(T x) {
  return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
}
template <typename T>
GG_SCALAR_FN T gg_hardswish_grad(T x) {
  return x <= T(-3) ? T(0) : (x < T(3) ? x / T(3) + T(0.5) : T(1));
}
template <typename T>
GG_SCALAR_FN T gg_mish(T x) {
  return x * gg_tanh(gg_log1p(gg_exp(x)));
}
template <typename T>
GG_SCALAR_FN T gg_mish_grad(T x) {
  const T t = gg_tanh(gg_log1p(gg_exp(x)));
  return t + x * gg_sigmoid(x) * (T(1) - t * t);
}

// x^p, with the exponents a model uses most computed exactly (x * x rather than pow(x, 2)).
template <typename T>
GG_SCALAR_FN T gg_pow_scalar(T x, T p) {
  if (p == T(2)) return x * x;
  if (p == T(1)) return x;
  if (p == T(0.5)) return gg_sqrt(x);
  if (p == T(-1)) return T(1) / x;
  return gg_pow(x, p);
}

// ---- which element types a row accepts (no <type_traits> on the device) ----
template <typename T> struct ElementwiseIsFloat { static constexpr bool value = false; };
template <> struct ElementwiseIsFloat<float> { static constexpr bool value = true; };
template <> struct ElementwiseIsFloat<double> { static constexpr bool value = true; };
template <typename T> struct ElementwiseIsBool { static constexpr bool value = false; };
template <> struct ElementwiseIsBool<bool> { static constexpr bool value = true; };

template <ElementwiseDTypes D, typename T>
struct ElementwiseAccepts {
  static constexpr bool value = D == ElementwiseDTypes::Any ||
                                (D == ElementwiseDTypes::Numeric ? !ElementwiseIsBool<T>::value
                                                                 : ElementwiseIsFloat<T>::value);
};

// ---- rows that take integers too: the float math above for floats, exact integer rules else ----
// x < 0, false for an unsigned type without comparing it (no "pointless comparison" warning).
template <typename T>
GG_SCALAR_FN bool gg_negative(T x) {
  if constexpr (T(-1) < T(0)) return x < T(0); else return false;
}
// |x|, with |-0.0| = +0.0 and NaN kept (torch.abs); an unsigned x is its own magnitude.
template <typename T>
GG_SCALAR_FN T gg_abs(T x) {
  return gg_negative(x) ? T(-x) : (x == T(0) ? T(0) : x);
}
// sign(x) in {-1, 0, 1}, 0 for NaN (torch.sign: (0 < x) - (x < 0)).
template <typename T>
GG_SCALAR_FN T gg_sign(T x) {
  return T(int(T(0) < x) - int(gg_negative(x)));
}
// floor, ceil, round (ties to even), trunc: an integer is already whole.
#define GG_ROUNDING(name, fn)                                                      \
  template <typename T>                                                            \
  GG_SCALAR_FN T name(T x) {                                                       \
    if constexpr (ElementwiseIsFloat<T>::value) return fn(x); else return x;       \
  }
GG_ROUNDING(gg_floor_any, gg_floor)
GG_ROUNDING(gg_ceil_any, gg_ceil)
GG_ROUNDING(gg_round_any, gg_round_even)
GG_ROUNDING(gg_trunc_any, gg_trunc)
#undef GG_ROUNDING
// Integer division and remainder never trap: b == 0 gives 0 (PyTorch raises on the CPU for a
// scalar divisor, checked in Python; a zero inside a tensor divisor gives 0 here), and b == -1
// is written as a negation modulo 2^64, so INT64_MIN / -1 wraps as PyTorch's does instead of
// raising SIGFPE.
template <typename T>
GG_SCALAR_FN bool gg_int_minus_one(T b) {
  if constexpr (T(-1) < T(0)) return b == T(-1); else return false;  // only a signed type has -1
}
template <typename T>
GG_SCALAR_FN T gg_int_neg(T a) {
  return T(0ULL - (unsigned long long)a);
}
// C's remainder: the sign of a (torch.fmod).
template <typename T>
GG_SCALAR_FN T gg_fmod_any(T a, T b) {
  if constexpr (ElementwiseIsFloat<T>::value) {
    return gg_fmod(a, b);
  } else {
    if (b == T(0) || gg_int_minus_one(b)) return T(0);
    return T(a % b);
  }
}
// Python's remainder: the sign of b (torch.remainder), from fmod as PyTorch computes it.
template <typename T>
GG_SCALAR_FN T gg_remainder(T a, T b) {
  const T m = gg_fmod_any(a, b);
  return (m != T(0) && (gg_negative(b) != gg_negative(m))) ? T(m + b) : m;
}
// floor(a / b) (torch.floor_divide and //), for floats as PyTorch's div_floor_floating: from the
// exact fmod, so that 1 // 0.1 is 9 as in Python, not floor(10.000000000000002).
template <typename T>
GG_SCALAR_FN T gg_floor_divide(T a, T b) {
  if constexpr (ElementwiseIsFloat<T>::value) {
    if (b == T(0)) return a / b;
    const T mod = gg_fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return gg_copysign(T(0), a / b);
    T f = gg_floor(div);
    if (div - f > T(0.5)) f += T(1);
    return f;
  } else {
    if (b == T(0)) return T(0);
    if (gg_int_minus_one(b)) return gg_int_neg(a);
    const T q = T(a / b);
    return (a % b != T(0) && (gg_negative(a) != gg_negative(b))) ? T(q - T(1)) : q;
  }
}
// x^p for an integer p >= 0 by squaring (torch.pow of integers; a negative exponent is refused
// in Python as PyTorch refuses it, and gives 0 here except for x = 1 and -1).
template <typename T>
GG_SCALAR_FN T gg_int_pow(T x, T p) {
  if (gg_negative(p)) return x == T(1) ? T(1) : (gg_int_minus_one(x) ? ((p % T(2)) == T(0) ? T(1) : x) : T(0));
  T r = T(1);
  unsigned long long e = (unsigned long long)p;
  while (e) {
    if (e & 1ULL) r = T(r * x);
    x = T(x * x);
    e >>= 1;
  }
  return r;
}
// x^p for any element type: floats through gg_pow_scalar (PowScalar) or pow (Pow), integers exactly.
template <typename T>
GG_SCALAR_FN T gg_pow_scalar_any(T x, T p) {
  if constexpr (ElementwiseIsFloat<T>::value) return gg_pow_scalar(x, p); else return gg_int_pow(x, p);
}
template <typename T>
GG_SCALAR_FN T gg_pow_any(T x, T p) {
  if constexpr (ElementwiseIsFloat<T>::value) return gg_pow(x, p); else return gg_int_pow(x, p);
}

// ---- one struct per row ----
// f(a, b, s): a = x (Unary) or the first operand or grad; b = the second operand or the saved
// value (0 for Unary); s = the scalar attribute (0 without one). Compare rows return bool; the
// others the arithmetic type of the expression, converted to T where it is stored.
template <ElementwiseOp OP> struct Elementwise;
#define GG_ELEMENTWISE(Name, Kind, DTypes, Scalar, Gradient, Formula, Value)                       \
  template <> struct Elementwise<ElementwiseOp::Name> {                                            \
    static constexpr ElementwiseKind kind = ElementwiseKind::Kind;                                 \
    static constexpr ElementwiseDTypes dtypes = ElementwiseDTypes::DTypes;                         \
    static constexpr bool has_scalar = sizeof(Scalar) > 1;                                         \
    static constexpr int arity = kind == ElementwiseKind::Unary ? 1 : 2;                           \
    template <typename T>                                                                          \
    static GG_SCALAR_FN auto f([[maybe_unused]] T a, [[maybe_unused]] T b, [[maybe_unused]] T s) { \
      return Value;                                                                                \
    }                                                                                              \
  };
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE

}  // namespace glassgrad
