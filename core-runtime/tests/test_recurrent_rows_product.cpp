// The recurrent layers' small-row product for float32 (kernels/cpu/recurrent/rows_product.h),
// every ISA this CPU has: against a float64 reference on random data with row counts across
// the row blocks (1 .. 25: one block, two, three), column counts that leave a partial vector
// and a lone last sliver, odd depths, C rows wider than n (ldc), writing and accumulating; and
// the same bits for a row block whatever the other rows (one accumulator per element over k).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cpu/recurrent/rows_product.h"
#include "glassgrad/runtime/cpu_features.h"

namespace {

using glassgrad::CpuIsa;
namespace cpu = glassgrad::cpu;

std::vector<std::pair<const char*, const cpu::RowsProductF32*>> tables() {
  std::vector<std::pair<const char*, const cpu::RowsProductF32*>> out{
      {"generic", &cpu::rows_product_generic::rows_product()}};
  if (static_cast<int>(glassgrad::cpu_isa()) >= static_cast<int>(CpuIsa::Avx2))
    out.push_back({"avx2", &cpu::rows_product_avx2::rows_product()});
  if (static_cast<int>(glassgrad::cpu_isa()) >= static_cast<int>(CpuIsa::Avx512))
    out.push_back({"avx512", &cpu::rows_product_avx512::rows_product()});
  return out;
}

std::vector<float> normal(size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(RecurrentRowsProduct, MatchesFloat64ForEveryShapeAndIsa) {
  std::mt19937 rng(7);
  for (const auto& [name, t] : tables()) {
    for (int64_t r : {1, 5, 12, 13, 20, 25}) {
      for (int64_t n : {1, 7, 33, 100, 201}) {
        for (int64_t K : {1, 19, 203}) {
          for (bool accumulate : {false, true}) {
            const int64_t lda = K + 3, ldc = n + 5;
            const std::vector<float> a = normal(static_cast<size_t>(r * lda), rng);
            const std::vector<float> b = normal(static_cast<size_t>(K * n), rng);  // B[k, j] at k * n + j
            std::vector<float> c = normal(static_cast<size_t>(r * ldc), rng);
            const std::vector<float> c0 = c;
            std::vector<float> bp(static_cast<size_t>(cpu::rows_product_packed_elems(K, n, t->lanes)));
            cpu::rows_product_pack(K, n, t->lanes, n, [&](int64_t j) { return b.data() + j; }, bp.data());
            t->run(r, n, K, a.data(), lda, bp.data(), c.data(), ldc, accumulate);
            const std::string what = std::string(name) + " r=" + std::to_string(r) + " n=" + std::to_string(n) +
                                     " K=" + std::to_string(K) + (accumulate ? " accumulating" : "");
            for (int64_t i = 0; i < r; ++i) {
              for (int64_t j = 0; j < ldc; ++j) {
                const size_t at = static_cast<size_t>(i * ldc + j);
                if (j >= n) {  // past n: untouched
                  ASSERT_EQ(c[at], c0[at]) << what << " wrote past column n at row " << i;
                  continue;
                }
                double want = accumulate ? c0[at] : 0.0, mag = std::fabs(want);
                for (int64_t k = 0; k < K; ++k) {
                  const double p = double(a[static_cast<size_t>(i * lda + k)]) * b[static_cast<size_t>(k * n + j)];
                  want += p;
                  mag += std::fabs(p);
                }
                ASSERT_LE(std::fabs(c[at] - want), 1e-6 * mag + 1e-30) << what << " at (" << i << ", " << j << ")";
              }
            }
          }
        }
      }
    }
  }
}

TEST(RecurrentRowsProduct, ARowsResultDoesNotDependOnTheOtherRows) {
  std::mt19937 rng(8);
  const int64_t K = 97, n = 75;
  for (const auto& [name, t] : tables()) {
    const std::vector<float> a = normal(static_cast<size_t>(25 * K), rng), b = normal(static_cast<size_t>(K * n), rng);
    std::vector<float> bp(static_cast<size_t>(cpu::rows_product_packed_elems(K, n, t->lanes)));
    cpu::rows_product_pack(K, n, t->lanes, n, [&](int64_t j) { return b.data() + j; }, bp.data());
    std::vector<float> all(static_cast<size_t>(25 * n));
    t->run(25, n, K, a.data(), K, bp.data(), all.data(), n, false);
    for (int64_t i = 0; i < 25; ++i) {
      std::vector<float> one(static_cast<size_t>(n));
      t->run(1, n, K, a.data() + i * K, K, bp.data(), one.data(), n, false);
      for (int64_t j = 0; j < n; ++j) ASSERT_EQ(one[static_cast<size_t>(j)], all[static_cast<size_t>(i * n + j)]) << name;
    }
  }
}

}  // namespace
