// The division by invariant divisors of the implicit-GEMM convolutions (kernels/cuda/fast_div.h):
// exact against n / d over every divisor a convolution can pass for small sizes, powers of two
// and their neighbours, and dividends up to the 2^31 limit the launcher enforces.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda/fast_div.h"

namespace {

void check_divisor(uint32_t d) {
  const GGFastDiv f = make_fast_div(d);
  std::vector<uint32_t> ns;
  for (uint32_t n = 0; n < 4096; ++n) ns.push_back(n);
  for (uint32_t k = 1; k < 64; ++k) {  // around multiples of d, small and near 2^31
    const uint64_t m = uint64_t(d) * k;
    for (int64_t delta = -1; delta <= 1; ++delta) ns.push_back(static_cast<uint32_t>(m + delta));
    const uint64_t top = (uint64_t(1) << 31) - 1 - uint64_t(d) * k;
    ns.push_back(static_cast<uint32_t>(top));
  }
  ns.push_back((1u << 31) - 1);
  for (uint32_t n : ns) {
    if (n >= (1u << 31)) continue;
    ASSERT_EQ(fast_div_host(f, n), n / d) << "n=" << n << " d=" << d << " mul=" << f.mul << " shift=" << f.shift;
  }
}

TEST(FastDiv, SmallDivisors) {
  for (uint32_t d = 1; d <= 5000; ++d) check_divisor(d);
}

TEST(FastDiv, PowersOfTwoAndNeighbours) {
  for (int s = 1; s < 31; ++s)
    for (int64_t delta = -1; delta <= 1; ++delta) check_divisor(static_cast<uint32_t>((int64_t(1) << s) + delta));
}

TEST(FastDiv, LargeDivisors) {
  for (uint32_t d : {50176u, 802816u, 1000003u, 123456789u, 2147483647u}) check_divisor(d);
}

}  // namespace
