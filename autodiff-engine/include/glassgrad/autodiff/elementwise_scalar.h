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
#define GG_SCALAR_FN inline
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
#else
template <typename T> inline T gg_exp(T x) { return std::exp(x); }
template <typename T> inline T gg_log(T x) { return std::log(x); }
template <typename T> inline T gg_sqrt(T x) { return std::sqrt(x); }
template <typename T> inline T gg_tanh(T x) { return std::tanh(x); }
template <typename T> inline T gg_pow(T x, T e) { return std::pow(x, e); }
template <typename T> inline T gg_erf(T x) { return std::erf(x); }
template <typename T> inline T gg_log1p(T x) { return std::log1p(x); }
template <typename T> inline T gg_expm1(T x) { return std::expm1(x); }
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
