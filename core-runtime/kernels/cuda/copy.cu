// Copy, fill and cast: the device side of Tensor::contiguous / clone / copy_from / fill and of
// the Cast op.
//
//   copy: dst[off_dst(i)] = src[off_src(i)]            (words of 1, 4 or 8 bytes; any strides)
//   fill: dst[off_dst(i)] = bits                        (the value's bit pattern, host-encoded)
//   cast: dst[i] = convert<to>(src[off_src(i)])         (dst dense; every pair of dtypes, the
//         conversions of the CPU Cast kernel: kernels/cpu/creation.cpp, half_rules.h)
//
// Layouts: operand strides come in a GGIter (operand 0 = dst, 1 = src); the host collapses
// axes that are contiguous for every operand, so dense copies run as one flat loop; the others
// keep their coordinates by increments (gg::for_offsets).
#include "../half_rules.h"
#include "common.cuh"

namespace gg_copy {

template <typename W>
__device__ void copy_words(int64_t n, const GGIter& it, W* dst, const W* src) {
  if (it.rank == 1 && it.stride[0][0] == 1 && it.stride[1][0] == 1) {
    GG_FOR(i, n) dst[i] = src[i];
    return;
  }
  gg::for_offsets<2>(n, it, [&](int64_t, const int64_t (&off)[2]) { dst[off[0]] = src[off[1]]; });
}

template <typename W>
__device__ void fill_words(int64_t n, const GGIter& it, W* dst, W bits) {
  if (it.rank == 1 && it.stride[0][0] == 1) {
    GG_FOR(i, n) dst[i] = bits;
    return;
  }
  gg::for_offsets<1>(n, it, [&](int64_t, const int64_t (&off)[1]) { dst[off[0]] = bits; });
}

// A loaded element: integers stay exact (int64 does not round-trip through double); the 16-bit
// floats widen to float (every conversion out of them goes through float32, as on the CPU).
struct Value {
  bool is_int;
  int64_t i;
  double f;
};

__device__ __forceinline__ Value load(const void* p, int64_t k, int dt) {
  using namespace glassgrad::half_rules;
  Value v{false, 0, 0.0};
  switch (dt) {
    case GG_F32: v.f = ((const float*)p)[k]; break;
    case GG_F64: v.f = ((const double*)p)[k]; break;
    case GG_I64: v.is_int = true; v.i = ((const int64_t*)p)[k]; break;
    case GG_I8: v.is_int = true; v.i = ((const int8_t*)p)[k]; break;
    case GG_I16: v.is_int = true; v.i = ((const int16_t*)p)[k]; break;
    case GG_I32: v.is_int = true; v.i = ((const int32_t*)p)[k]; break;
    case GG_F16: v.f = half_to_float(((const uint16_t*)p)[k]); break;
    case GG_BF16: v.f = bfloat16_to_float(((const uint16_t*)p)[k]); break;
    default: v.is_int = true; v.i = ((const unsigned char*)p)[k]; break;  // uint8, bool
  }
  return v;
}

// Into an integer: a float truncates toward zero through int64, an integer keeps its low bits
// (two's complement wrap-around); into the 16-bit floats: through float32, to nearest even.
__device__ __forceinline__ void store(void* p, int64_t k, int dt, const Value& v) {
  using namespace glassgrad::half_rules;
  const int64_t i = v.is_int ? v.i : (int64_t)v.f;
  const float f = v.is_int ? (float)v.i : (float)v.f;
  switch (dt) {
    case GG_F32: ((float*)p)[k] = f; break;
    case GG_F64: ((double*)p)[k] = v.is_int ? (double)v.i : v.f; break;
    case GG_I64: ((int64_t*)p)[k] = i; break;
    case GG_U8: ((unsigned char*)p)[k] = (unsigned char)i; break;
    case GG_I8: ((int8_t*)p)[k] = (int8_t)i; break;
    case GG_I16: ((int16_t*)p)[k] = (int16_t)i; break;
    case GG_I32: ((int32_t*)p)[k] = (int32_t)i; break;
    case GG_F16: ((uint16_t*)p)[k] = float_to_half(f); break;
    case GG_BF16: ((uint16_t*)p)[k] = float_to_bfloat16(f); break;
    default: ((unsigned char*)p)[k] = v.is_int ? (v.i != 0) : (v.f != 0.0); break;  // bool
  }
}

}  // namespace gg_copy

GG_KERNEL void gg_copy_w1(int64_t n, GGIter it, unsigned char* dst, const unsigned char* src) {
  gg_copy::copy_words(n, it, dst, src);
}
GG_KERNEL void gg_copy_w2(int64_t n, GGIter it, uint16_t* dst, const uint16_t* src) {
  gg_copy::copy_words(n, it, dst, src);
}
GG_KERNEL void gg_copy_w4(int64_t n, GGIter it, uint32_t* dst, const uint32_t* src) {
  gg_copy::copy_words(n, it, dst, src);
}
GG_KERNEL void gg_copy_w8(int64_t n, GGIter it, unsigned long long* dst, const unsigned long long* src) {
  gg_copy::copy_words(n, it, dst, src);
}
GG_KERNEL void gg_fill_w1(int64_t n, GGIter it, unsigned char* dst, unsigned char bits) {
  gg_copy::fill_words(n, it, dst, bits);
}
GG_KERNEL void gg_fill_w2(int64_t n, GGIter it, uint16_t* dst, uint16_t bits) {
  gg_copy::fill_words(n, it, dst, bits);
}
GG_KERNEL void gg_fill_w4(int64_t n, GGIter it, uint32_t* dst, uint32_t bits) {
  gg_copy::fill_words(n, it, dst, bits);
}
GG_KERNEL void gg_fill_w8(int64_t n, GGIter it, unsigned long long* dst, unsigned long long bits) {
  gg_copy::fill_words(n, it, dst, bits);
}

// dst is dense (operand 0's strides are ignored); src strided (operand 1).
GG_KERNEL void gg_cast(int64_t n, GGIter it, void* dst, int dst_dtype, const void* src, int src_dtype) {
  gg::for_offsets<2>(n, it, [&](int64_t i, const int64_t (&off)[2]) {
    gg_copy::store(dst, i, dst_dtype, gg_copy::load(src, off[1], src_dtype));
  });
}
