// The scalar functions of the elementwise ops, shared by the elementwise kernels and the fused
// register-program kernel (fused.cu), so both compute exactly the same thing.
#pragma once
#include "common.cuh"

namespace gg_ew {

template <typename T>
__device__ __forceinline__ T binary(int op, T a, T b) {
  switch (op) {
    case GG_ADD: return a + b;
    case GG_SUB: return a - b;
    case GG_MUL: return a * b;
    case GG_DIV: return a / b;
    case GG_MAXIMUM: return (a >= b || a != a) ? a : b;  // NaN propagates, as in NumPy
    case GG_MINIMUM: return (a <= b || a != a) ? a : b;
    case GG_RELU_BWD: return b > T(0) ? a : T(0);        // a = grad, b = x
    case GG_SIGMOID_BWD: return a * b * (T(1) - b);      // b = y
    case GG_TANH_BWD: return a * (T(1) - b * b);         // b = y
  }
  return T(0);
}

template <typename T>
__device__ __forceinline__ unsigned char compare(int op, T a, T b) {
  switch (op) {
    case GG_EQ: return a == b;
    case GG_NE: return a != b;
    case GG_LT: return a < b;
    case GG_LE: return a <= b;
    case GG_GT: return a > b;
    case GG_GE: return a >= b;
  }
  return 0;
}

template <typename T>
__device__ __forceinline__ T unary(int op, T x, double s) {
  switch (op) {
    case GG_NEG: return -x;
    case GG_EXP: return gg::gg_exp(x);
    case GG_LOG: return gg::gg_log(x);
    case GG_SQRT: return gg::gg_sqrt(x);
    case GG_ABS: return x < T(0) ? -x : x;
    case GG_RELU: return x > T(0) ? x : T(0);
    case GG_SIGMOID: {  // exp of a non-positive number only: no overflow for large |x|
      if (x >= T(0)) return T(1) / (T(1) + gg::gg_exp(-x));
      const T e = gg::gg_exp(x);
      return e / (T(1) + e);
    }
    case GG_TANH: return gg::gg_tanh(x);
    case GG_ADD_S: return x + T(s);
    case GG_MUL_S: return x * T(s);
    case GG_POW_S: {  // the exponents a model uses most, exactly (as the CPU kernel does)
      const T p = T(s);
      if (p == T(2)) return x * x;
      if (p == T(1)) return x;
      if (p == T(0.5)) return gg::gg_sqrt(x);
      if (p == T(-1)) return T(1) / x;
      return gg::gg_pow(x, p);
    }
    case GG_RDIV_S: return T(s) / x;
  }
  return x;
}

// Integers (int64, uint8): only the ops that keep integers integral; the scalar is converted
// to the dtype first, as on the CPU.
__device__ __forceinline__ bool negative(int64_t x) { return x < 0; }
__device__ __forceinline__ bool negative(unsigned char) { return false; }

template <typename T>
__device__ __forceinline__ T int_unary(int op, T x, double s) {
  switch (op) {
    case GG_NEG: return (T)(-x);
    case GG_ABS: return negative(x) ? (T)(-x) : x;
    case GG_RELU: return x > T(0) ? x : T(0);
    case GG_ADD_S: return (T)(x + (T)s);
    case GG_MUL_S: return (T)(x * (T)s);
  }
  return x;
}
template <>
__device__ __forceinline__ int64_t unary<int64_t>(int op, int64_t x, double s) { return int_unary(op, x, s); }
template <>
__device__ __forceinline__ unsigned char unary<unsigned char>(int op, unsigned char x, double s) {
  return int_unary(op, x, s);
}

}  // namespace gg_ew
