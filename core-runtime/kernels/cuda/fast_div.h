// Host side of GGFastDiv (params.h): the multiplier and shift for a divisor, and the same
// quotient formula the kernels evaluate with __umulhi (gemm_engine.cuh, gg::fast_div), so a
// CPU test can check it exhaustively against n / d (core-runtime/tests/test_fast_div.cpp).
#pragma once
#include <stdint.h>

#include "params.h"

// 1 <= d < 2^31. shift = ceil(log2 d); mul = floor(2^32 (2^shift - d) / d) + 1 < 2^32.
inline GGFastDiv make_fast_div(int64_t d) {
  GGFastDiv f{};
  f.d = static_cast<uint32_t>(d);
  uint32_t shift = 0;
  while ((uint64_t(1) << shift) < uint64_t(d)) ++shift;
  f.shift = shift;
  f.mul = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - uint64_t(d))) / uint64_t(d) + 1);
  return f;
}

// n / d for 0 <= n < 2^31, as the kernels compute it.
inline uint32_t fast_div_host(const GGFastDiv& f, uint32_t n) {
  const uint32_t hi = static_cast<uint32_t>((uint64_t(n) * f.mul) >> 32);
  return (hi + n) >> f.shift;
}
