// Elementwise kernels: broadcasting binaries, comparisons, unaries, scalar ops, Where, and the
// activation backwards.
//
//   binary:  out[i] = f(a[off_a(i)], b[off_b(i)])        f in GGBinaryOp (Add ... TanhBackward)
//   compare: out[i] = (a[off_a(i)] OP b[off_b(i)])       out is bool (one byte, 0 or 1)
//   unary:   out[i] = f(x[off_x(i)], scalar)             f in GGUnaryOp
//   where:   out[i] = cond[off_c(i)] ? a[off_a(i)] : b[off_b(i)]
//
// Layouts: out is dense row-major; every input is strided (stride 0 on broadcast axes), the
// strides given per operand in a GGIter (operand 0 = out, 1.. = inputs). Backward ops follow
// d/dx relu = [x > 0], d/dx sigmoid = y (1 - y), d/dx tanh = 1 - y^2 (y the forward output).
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

template <typename T, typename O, typename F>
__device__ __forceinline__ void run2(int64_t n, const GGIter& it, O* out, const T* a, const T* b, F f) {
  if (it.rank == 1 && it.stride[1][0] == 1 && it.stride[2][0] == 1) {
    GG_FOR(i, n) out[i] = f(a[i], b[i]);
  } else {
    GG_FOR(i, n) {
      int64_t off[3];
      gg::iter_offsets<3>(it, i, off);
      out[i] = f(a[off[1]], b[off[2]]);
    }
  }
}

template <typename T>
__device__ void binary_kernel(int64_t n, GGIter it, int op, T* out, const T* a, const T* b) {
  run2(n, it, out, a, b, [op](T x, T y) { return binary(op, x, y); });
}

template <typename T>
__device__ void compare_kernel(int64_t n, GGIter it, int op, unsigned char* out, const T* a, const T* b) {
  run2(n, it, out, a, b, [op](T x, T y) { return compare(op, x, y); });
}

template <typename T>
__device__ void unary_kernel(int64_t n, GGIter it, int op, T* out, const T* x, double s) {
  if (it.rank == 1 && it.stride[1][0] == 1) {
    GG_FOR(i, n) out[i] = unary(op, x[i], s);
  } else {
    GG_FOR(i, n) {
      int64_t off[2];
      gg::iter_offsets<2>(it, i, off);
      out[i] = unary(op, x[off[1]], s);
    }
  }
}

template <typename W>
__device__ void where_kernel(int64_t n, GGIter it, W* out, const unsigned char* c, const W* a, const W* b) {
  GG_FOR(i, n) {
    int64_t off[4];
    gg::iter_offsets<4>(it, i, off);
    out[i] = c[off[1]] ? a[off[2]] : b[off[3]];
  }
}

}  // namespace gg_ew

#define GG_EW_BINARY(suffix, T)                                                                \
  GG_KERNEL void gg_binary_##suffix(int64_t n, GGIter it, int op, T* out, const T* a, const T* b) { \
    gg_ew::binary_kernel<T>(n, it, op, out, a, b);                                             \
  }                                                                                            \
  GG_KERNEL void gg_compare_##suffix(int64_t n, GGIter it, int op, unsigned char* out, const T* a, \
                                     const T* b) {                                             \
    gg_ew::compare_kernel<T>(n, it, op, out, a, b);                                            \
  }
GG_EW_BINARY(f32, float)
GG_EW_BINARY(f64, double)
GG_EW_BINARY(i64, int64_t)
GG_EW_BINARY(u8, unsigned char)

GG_KERNEL void gg_unary_f32(int64_t n, GGIter it, int op, float* out, const float* x, double s) {
  gg_ew::unary_kernel<float>(n, it, op, out, x, s);
}
GG_KERNEL void gg_unary_f64(int64_t n, GGIter it, int op, double* out, const double* x, double s) {
  gg_ew::unary_kernel<double>(n, it, op, out, x, s);
}
GG_KERNEL void gg_unary_i64(int64_t n, GGIter it, int op, int64_t* out, const int64_t* x, double s) {
  gg_ew::unary_kernel<int64_t>(n, it, op, out, x, s);
}
GG_KERNEL void gg_unary_u8(int64_t n, GGIter it, int op, unsigned char* out, const unsigned char* x, double s) {
  gg_ew::unary_kernel<unsigned char>(n, it, op, out, x, s);
}

GG_KERNEL void gg_where_w1(int64_t n, GGIter it, unsigned char* out, const unsigned char* c,
                           const unsigned char* a, const unsigned char* b) {
  gg_ew::where_kernel(n, it, out, c, a, b);
}
GG_KERNEL void gg_where_w4(int64_t n, GGIter it, uint32_t* out, const unsigned char* c, const uint32_t* a,
                           const uint32_t* b) {
  gg_ew::where_kernel(n, it, out, c, a, b);
}
GG_KERNEL void gg_where_w8(int64_t n, GGIter it, unsigned long long* out, const unsigned char* c,
                           const unsigned long long* a, const unsigned long long* b) {
  gg_ew::where_kernel(n, it, out, c, a, b);
}
