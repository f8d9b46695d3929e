// float16 (IEEE 754 binary16) and bfloat16 (the top 16 bits of a float32) as bit patterns, and
// their conversions to and from float32, written once for the CPU and the CUDA Cast kernels so
// both give the same bits. Into the 16-bit types a float rounds to nearest, ties to even (as
// PyTorch's c10::Half and c10::BFloat16): a float32 above float16's largest finite value by half
// an ulp or more becomes infinity, and a NaN stays a (quiet) NaN. Other types convert through
// float32 (PyTorch's Half and BFloat16 are built from a float), see docs/dtypes.md.
#pragma once

#if defined(__CUDACC__)
#include "cuda/fixed_width.h"  // the fixed-width integers, also under NVRTC
#define GG_HALF_RULE __host__ __device__ __forceinline__
#else
#include <cstdint>
#include <cstring>
#define GG_HALF_RULE inline
#endif

namespace glassgrad {
namespace half_rules {

GG_HALF_RULE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

GG_HALF_RULE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// Rounds q + rem / 2^shift to nearest, ties to even (0 < shift < 32).
GG_HALF_RULE uint32_t round_even(uint32_t q, uint32_t rem, int shift) {
  const uint32_t half = 1u << (shift - 1);
  return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
}

GG_HALF_RULE uint16_t float_to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: infinity
  if (ax >= 0x38800000u) {  // a normal float16 (>= 2^-14)
    const uint32_t q = ((((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13));
    return static_cast<uint16_t>(sign | round_even(q, ax & 0x1fffu, 13));  // a carry moves the exponent up
  }
  if (ax < 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25: rounds to zero
  // A subnormal float16: the value in units of 2^-24 is m * 2^(e - 126), e in [102, 112].
  const uint32_t e = ax >> 23;
  const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  const int shift = static_cast<int>(126u - e);
  return static_cast<uint16_t>(sign | round_even(m >> shift, m & ((1u << shift) - 1u), shift));
}

GG_HALF_RULE float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));  // infinity, NaN
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float32
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

GG_HALF_RULE uint16_t float_to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN stays quiet
  return static_cast<uint16_t>(round_even(x >> 16, x & 0xffffu, 16));
}

GG_HALF_RULE float bfloat16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

}  // namespace half_rules
}  // namespace glassgrad
