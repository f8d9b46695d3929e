// Elementwise kernels: one kernel per dtype and kind runs any row of elementwise_ops.def of
// that kind, given its op code (elementwise_ops.cuh), plus Where.
//
//   binary:  out[i] = f(a[off_a(i)], b[off_b(i)], s)     Binary and backward-map rows
//   compare: out[i] = (a[off_a(i)] OP b[off_b(i)])       out is bool (one byte, 0 or 1)
//   unary:   out[i] = f(x[off_x(i)], s)                  Unary rows (s: the scalar attribute or 0)
//   where:   out[i] = cond[off_c(i)] ? a[off_a(i)] : b[off_b(i)]
//
// Layouts: out is dense row-major; every input is strided (stride 0 on broadcast axes), the
// strides given per operand in a GGIter (operand 0 = out, 1.. = inputs).
//
// Index arithmetic: dense operands run on the index itself; other layouts (after the host
// merged what it could: a Linear layer's bias added to [B, T, N] is [B*T, N] + a row
// broadcast) keep their coordinates by increments along the grid-stride loop (gg::for_offsets:
// divisions once a thread, not once an element, which made those launches bound by
// instructions on a few multiprocessors). Add, Sub and Mul run their own loops (the row's
// function inlined); other rows go through the op-code switch.
#include "elementwise_ops.cuh"

namespace gg_ew {

// float4 loads and stores for float32 operands that are all dense and 16-byte aligned: a
// thread moves four elements an iteration (a quarter of the instructions, four times the bytes
// in flight), the last n % 4 elements one at a time. The same function of each element.
template <typename T>
struct Vec4 {
  static constexpr bool value = false;
};
template <>
struct Vec4<float> {
  static constexpr bool value = true;
};
__device__ __forceinline__ bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

template <typename F>
__device__ __forceinline__ void dense4(int64_t n, float* out, const float* a, const float* b, F f) {
  const int64_t n4 = n / 4;
  GG_FOR(q, n4) {
    const float4 x = reinterpret_cast<const float4*>(a)[q], y = reinterpret_cast<const float4*>(b)[q];
    reinterpret_cast<float4*>(out)[q] = make_float4(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));
  }
  GG_FOR(r, n - 4 * n4) out[4 * n4 + r] = f(a[4 * n4 + r], b[4 * n4 + r]);
}

template <typename T, typename O, typename F>
__device__ __forceinline__ void run2(int64_t n, const GGIter& it, O* out, const T* a, const T* b, F f) {
  if (it.rank == 1 && it.stride[1][0] == 1 && it.stride[2][0] == 1) {
    if constexpr (Vec4<T>::value && Vec4<O>::value) {
      if (aligned16(out) && aligned16(a) && aligned16(b)) {
        dense4(n, out, a, b, f);
        return;
      }
    }
    GG_FOR(i, n) out[i] = f(a[i], b[i]);
  } else {
    gg::for_offsets<3>(n, it, [&](int64_t i, const int64_t (&off)[3]) { out[i] = f(a[off[1]], b[off[2]]); });
  }
}

// Row OP's own loop when it is one of the three hot ones for T (true), else false.
template <ElementwiseOp OP, typename T>
__device__ __forceinline__ bool inlined(int op, int64_t n, const GGIter& it, T* out, const T* a, const T* b) {
  if constexpr (Runs<OP, T, 2, false>::value) {
    if (op == (int)OP) {
      run2(n, it, out, a, b, [](T x, T y) { return (T)glassgrad::Elementwise<OP>::f(x, y, T(0)); });
      return true;
    }
  }
  return false;
}

template <typename T>
__device__ void binary_kernel(int64_t n, GGIter it, int op, T* out, const T* a, const T* b, double s) {
  if (inlined<ElementwiseOp::Add>(op, n, it, out, a, b) || inlined<ElementwiseOp::Sub>(op, n, it, out, a, b) ||
      inlined<ElementwiseOp::Mul>(op, n, it, out, a, b)) {
    return;
  }
  run2(n, it, out, a, b, [op, s](T x, T y) { return binary(op, x, y, s); });
}

template <typename T>
__device__ void compare_kernel(int64_t n, GGIter it, int op, unsigned char* out, const T* a, const T* b) {
  run2(n, it, out, a, b, [op](T x, T y) { return compare(op, x, y); });
}

template <typename T>
__device__ void unary_kernel(int64_t n, GGIter it, int op, T* out, const T* x, double s) {
  if (it.rank == 1 && it.stride[1][0] == 1) {
    if constexpr (Vec4<T>::value) {
      if (aligned16(out) && aligned16(x)) {
        dense4(n, out, x, x, [op, s](T v, T) { return unary(op, v, s); });
        return;
      }
    }
    GG_FOR(i, n) out[i] = unary(op, x[i], s);
  } else {
    gg::for_offsets<2>(n, it, [&](int64_t i, const int64_t (&off)[2]) { out[i] = unary(op, x[off[1]], s); });
  }
}

template <typename W>
__device__ void where_kernel(int64_t n, GGIter it, W* out, const unsigned char* c, const W* a, const W* b) {
  gg::for_offsets<4>(n, it, [&](int64_t i, const int64_t (&off)[4]) { out[i] = c[off[1]] ? a[off[2]] : b[off[3]]; });
}

}  // namespace gg_ew

#define GG_EW_BINARY(suffix, T)                                                                \
  GG_KERNEL void gg_binary_##suffix(int64_t n, GGIter it, int op, T* out, const T* a, const T* b, \
                                    double s) {                                                \
    gg_ew::binary_kernel<T>(n, it, op, out, a, b, s);                                          \
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
