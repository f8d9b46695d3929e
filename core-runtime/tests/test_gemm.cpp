// glassgrad's GEMM (kernels/cpu/gemm) against a naive triple loop in double precision: odd
// sizes that leave partial micro-tiles and cache blocks, transposed and strided operands, alpha
// and beta, every ISA path this CPU has, the threaded split, and short workspaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/gemm/gemm.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/parallel.h"

using namespace glassgrad;

namespace {

std::vector<CpuIsa> available_isas() {
  std::vector<CpuIsa> out;
  for (CpuIsa isa : {CpuIsa::Generic, CpuIsa::Avx2, CpuIsa::Avx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(cpu_isa())) out.push_back(isa);
  }
  return out;
}

// How A (m x k) or B (k x n) is laid out in memory.
enum class Layout { RowMajor, Transposed, Strided };

template <typename T>
struct Operand {
  std::vector<T> data;
  int64_t rs = 0, cs = 0;
  T at(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * rs + j * cs)]; }
};

template <typename T>
Operand<T> make_operand(int64_t rows, int64_t cols, Layout layout, std::mt19937& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Operand<T> o;
  switch (layout) {
    case Layout::RowMajor: o.rs = cols; o.cs = 1; o.data.resize(static_cast<size_t>(rows * cols)); break;
    case Layout::Transposed: o.rs = 1; o.cs = rows; o.data.resize(static_cast<size_t>(rows * cols)); break;
    case Layout::Strided:  // every third element of a row, rows padded: no unit stride at all
      o.rs = 3 * cols + 5; o.cs = 3; o.data.resize(static_cast<size_t>(rows * (3 * cols + 5))); break;
  }
  for (auto& v : o.data) v = static_cast<T>(u(gen));
  return o;
}

// The problem C [m, n] = alpha * A x B + beta * C with A and B strided operands.
template <typename T>
cpu::GemmProblem<T> problem(int64_t m, int64_t n, int64_t k, const Operand<T>& a, const Operand<T>& b, T* c, int64_t ldc,
                            T alpha = T(1), T beta = T(0)) {
  cpu::GemmProblem<T> p(m, n, k);
  p.a = cpu::strided(a.data.data(), a.rs, a.cs);
  p.b = cpu::strided(b.data.data(), b.rs, b.cs);
  p.c = c;
  p.ldc = ldc;
  p.alpha = alpha;
  p.beta = beta;
  return p;
}

template <typename T>
void check_gemm(CpuIsa isa, int64_t m, int64_t n, int64_t k, Layout la, Layout lb, T alpha, T beta,
                int64_t ldc_pad = 0, bool give_workspace = true) {
  std::mt19937 gen(static_cast<unsigned>(m * 7919 + n * 131 + k * 17 + static_cast<int>(la) * 3 + static_cast<int>(lb)));
  const Operand<T> a = make_operand<T>(m, k, la, gen);
  const Operand<T> b = make_operand<T>(k, n, lb, gen);
  const int64_t ldc = n + ldc_pad;
  std::vector<T> c(static_cast<size_t>(std::max<int64_t>(m * ldc, 1)));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& v : c) v = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(u(gen));
  const std::vector<T> c0 = c;

  std::vector<unsigned char> ws;
  if (give_workspace) ws.resize(cpu::gemm_workspace_bytes(m, n, k, sizeof(T) == 4 ? DType::Float32 : DType::Float64, false, isa));
  cpu::gemm(problem(m, n, k, a, b, c.data(), ldc, alpha, beta), {ws.empty() ? nullptr : ws.data(), ws.size()}, isa);

  const double eps = sizeof(T) == 4 ? 2e-6 : 1e-14;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        dot += static_cast<double>(a.at(i, p)) * static_cast<double>(b.at(p, j));
        mag += std::fabs(static_cast<double>(a.at(i, p)) * static_cast<double>(b.at(p, j)));
      }
      const double old = beta == T(0) ? 0.0 : static_cast<double>(c0[static_cast<size_t>(i * ldc + j)]);
      const double want = static_cast<double>(alpha) * dot + static_cast<double>(beta) * old;
      const double tol = eps * (static_cast<double>(k) + 4) * (std::fabs(static_cast<double>(alpha)) * mag + std::fabs(old) + 1);
      const double got = static_cast<double>(c[static_cast<size_t>(i * ldc + j)]);
      ASSERT_NEAR(got, want, tol) << cpu_isa_name(isa) << " m=" << m << " n=" << n << " k=" << k
                                  << " layouts=" << static_cast<int>(la) << "," << static_cast<int>(lb)
                                  << " at (" << i << ", " << j << ")";
    }
    // Padding columns of C (ldc > n) are never written.
    for (int64_t j = n; j < ldc; ++j) {
      const T was = c0[static_cast<size_t>(i * ldc + j)], now = c[static_cast<size_t>(i * ldc + j)];
      ASSERT_TRUE(was == now || (std::isnan(was) && std::isnan(now))) << "column " << j << " past n was written";
    }
  }
}

class GemmIsa : public ::testing::TestWithParam<CpuIsa> {};

const int64_t kSmall[] = {1, 3, 17, 33};

TEST_P(GemmIsa, MatchesNaiveLoopOnOddSizesAndAllLayoutsFloat32) {
  for (int64_t m : kSmall)
    for (int64_t n : kSmall)
      for (int64_t k : kSmall)
        for (Layout la : {Layout::RowMajor, Layout::Transposed})
          for (Layout lb : {Layout::RowMajor, Layout::Transposed})
            check_gemm<float>(GetParam(), m, n, k, la, lb, 1.0f, 0.0f);
}

TEST_P(GemmIsa, MatchesNaiveLoopOnOddSizesAndAllLayoutsFloat64) {
  for (int64_t m : kSmall)
    for (int64_t n : kSmall)
      for (int64_t k : kSmall)
        for (Layout la : {Layout::RowMajor, Layout::Transposed})
          for (Layout lb : {Layout::RowMajor, Layout::Transposed})
            check_gemm<double>(GetParam(), m, n, k, la, lb, 1.0, 0.0);
}

// 100 and 257 cross the micro-tile and (with 257 > kc) the K cache block, and are big enough
// for the threaded split along N or M.
TEST_P(GemmIsa, MatchesNaiveLoopOnSizesCrossingCacheBlocks) {
  const int64_t shapes[][3] = {{100, 257, 33}, {257, 100, 257}, {257, 257, 257}, {33, 257, 100},
                               {257, 17, 300}, {3, 1000, 9}, {700, 3, 50}};
  for (const auto& s : shapes) {
    check_gemm<float>(GetParam(), s[0], s[1], s[2], Layout::RowMajor, Layout::RowMajor, 1.0f, 0.0f);
    check_gemm<float>(GetParam(), s[0], s[1], s[2], Layout::Transposed, Layout::Transposed, 0.5f, 2.0f);
    check_gemm<double>(GetParam(), s[0], s[1], s[2], Layout::Transposed, Layout::RowMajor, -1.5, 1.0);
    check_gemm<double>(GetParam(), s[0], s[1], s[2], Layout::RowMajor, Layout::Transposed, 1.0, 0.0);
  }
}

// Every column count up to past two 48-wide AVX-512 slivers: the last sliver of each runs on the
// narrowest micro-kernel covering its columns (one to NR / lanes vectors, whole or partial), and
// C's columns past n must stay untouched.
TEST_P(GemmIsa, MatchesNaiveLoopOnEveryEdgeSliverWidth) {
  for (int64_t n = 1; n <= 100; ++n) {
    check_gemm<float>(GetParam(), 9, n, 7, Layout::RowMajor, Layout::RowMajor, 1.0f, 0.0f, 5);
    check_gemm<float>(GetParam(), 17, n, 13, Layout::Transposed, Layout::RowMajor, -0.5f, 1.0f, 3);
    check_gemm<double>(GetParam(), 9, n, 7, Layout::RowMajor, Layout::Transposed, 1.0, 0.0, 5);
  }
}

TEST_P(GemmIsa, AppliesAlphaAndBetaAndKeepsColumnsPastNUntouched) {
  for (float alpha : {1.0f, -2.0f, 0.25f})
    for (float beta : {0.0f, 1.0f, -0.5f}) {
      check_gemm<float>(GetParam(), 33, 17, 100, Layout::RowMajor, Layout::Transposed, alpha, beta, 7);
      check_gemm<double>(GetParam(), 17, 33, 3, Layout::Transposed, Layout::RowMajor, double(alpha), double(beta), 5);
    }
}

TEST_P(GemmIsa, ReadsOperandsWithoutAnyUnitStride) {
  check_gemm<float>(GetParam(), 33, 100, 17, Layout::Strided, Layout::Strided, 1.0f, 0.5f);
  check_gemm<double>(GetParam(), 100, 33, 257, Layout::Strided, Layout::RowMajor, 1.0, 0.0);
  check_gemm<double>(GetParam(), 17, 257, 33, Layout::Transposed, Layout::Strided, 2.0, 0.0);
}

TEST_P(GemmIsa, WorksWithoutOrWithAShortWorkspace) {
  check_gemm<float>(GetParam(), 257, 257, 100, Layout::RowMajor, Layout::RowMajor, 1.0f, 0.0f, 0, false);
  // A workspace for one thread only: the call must fall back to fewer threads, not overrun it.
  const int64_t m = 200, n = 300, k = 150;
  std::mt19937 gen(3);
  const Operand<float> a = make_operand<float>(m, k, Layout::RowMajor, gen);
  const Operand<float> b = make_operand<float>(k, n, Layout::RowMajor, gen);
  std::vector<float> c(static_cast<size_t>(m * n)), want(static_cast<size_t>(m * n));
  std::vector<unsigned char> ws(cpu::gemm_workspace_bytes(m, n, k, DType::Float32, true, GetParam()));
  cpu::gemm(problem(m, n, k, a, b, c.data(), n), {ws.data(), ws.size()}, GetParam());
  cpu::gemm(problem(m, n, k, a, b, want.data(), n), {}, GetParam());
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], want[i]) << "element " << i;
}

TEST_P(GemmIsa, RunsSeriallyInsideAParallelRegion) {
  // Several independent products at once, one per parallel_for chunk: each call must run on
  // its own thread's data (nested parallel_for is serial), with results equal to one-by-one calls.
  const int64_t m = 65, n = 130, k = 70, count = 4;
  std::mt19937 gen(5);
  std::vector<Operand<double>> as, bs;
  for (int i = 0; i < count; ++i) {
    as.push_back(make_operand<double>(m, k, Layout::RowMajor, gen));
    bs.push_back(make_operand<double>(k, n, Layout::Transposed, gen));
  }
  std::vector<std::vector<double>> got(count, std::vector<double>(static_cast<size_t>(m * n))), want = got;
  parallel_for(count, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) {
      cpu::gemm(problem(m, n, k, as[i], bs[i], got[i].data(), n), {}, GetParam());
    }
  });
  for (int64_t i = 0; i < count; ++i) {
    cpu::gemm(problem(m, n, k, as[i], bs[i], want[i].data(), n), {}, GetParam());
    ASSERT_EQ(got[i], want[i]) << "product " << i;
  }
}

TEST_P(GemmIsa, EmptyKScalesCByBeta) {
  std::vector<float> c = {1, 2, 3, 4, 5, 6};
  cpu::GemmProblem<float> pf(2, 3, 0);
  pf.c = c.data();
  pf.ldc = 3;
  pf.beta = 0.5f;
  cpu::gemm(pf, {}, GetParam());
  EXPECT_EQ(c, (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
  std::vector<double> d(4, std::numeric_limits<double>::quiet_NaN());
  cpu::GemmProblem<double> pd(2, 2, 0);
  pd.c = d.data();
  pd.ldc = 2;
  cpu::gemm(pd, {}, GetParam());
  EXPECT_EQ(d, (std::vector<double>(4, 0.0)));
}

// B given as row pointers (each row a separate contiguous run) or column pointers (each column
// a run: packing transposes lanes x lanes blocks in registers), against the same naive loop.
enum class BForm { Rows, Cols };

template <typename T>
void check_pointer_b(CpuIsa isa, BForm form, int64_t m, int64_t n, int64_t k, T alpha, T beta) {
  std::mt19937 gen(static_cast<unsigned>(m * 31 + n * 7 + k + static_cast<int>(form) * 1000));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Operand<T> a = make_operand<T>(m, k, Layout::RowMajor, gen);
  // Runs scattered through one buffer with gaps, in shuffled order.
  const int64_t runs = form == BForm::Rows ? k : n, len = form == BForm::Rows ? n : k;
  std::vector<T> store(static_cast<size_t>(std::max<int64_t>(runs * (len + 3), 1)));
  for (auto& v : store) v = static_cast<T>(u(gen));
  std::vector<int64_t> order(static_cast<size_t>(runs));
  for (int64_t i = 0; i < runs; ++i) order[static_cast<size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), gen);
  std::vector<const T*> ptrs(static_cast<size_t>(runs));
  for (int64_t i = 0; i < runs; ++i) ptrs[static_cast<size_t>(i)] = store.data() + order[static_cast<size_t>(i)] * (len + 3) + 1;
  auto b_at = [&](int64_t p, int64_t j) {
    return form == BForm::Rows ? ptrs[static_cast<size_t>(p)][j] : ptrs[static_cast<size_t>(j)][p];
  };
  std::vector<T> c(static_cast<size_t>(m * n));
  for (auto& v : c) v = static_cast<T>(u(gen));
  const std::vector<T> c0 = c;
  cpu::GemmProblem<T> prob(m, n, k);
  prob.alpha = alpha;
  prob.beta = beta;
  prob.a = cpu::strided(a.data.data(), a.rs, a.cs);
  if (form == BForm::Rows) prob.b_rows = ptrs.data();
  else prob.b_cols = ptrs.data();
  prob.c = c.data();
  prob.ldc = n;
  cpu::gemm(prob, {}, isa);
  const double eps = sizeof(T) == 4 ? 2e-6 : 1e-14;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        dot += static_cast<double>(a.at(i, p)) * static_cast<double>(b_at(p, j));
        mag += std::fabs(static_cast<double>(a.at(i, p)) * static_cast<double>(b_at(p, j)));
      }
      const double old = static_cast<double>(c0[static_cast<size_t>(i * n + j)]);
      const double want = static_cast<double>(alpha) * dot + static_cast<double>(beta) * old;
      ASSERT_NEAR(static_cast<double>(c[static_cast<size_t>(i * n + j)]), want, eps * (k + 4) * (mag + std::fabs(old) + 1))
          << cpu_isa_name(isa) << (form == BForm::Rows ? " rows" : " cols") << " m=" << m << " n=" << n << " k=" << k
          << " at (" << i << ", " << j << ")";
    }
}

TEST_P(GemmIsa, ReadsBThroughRowOrColumnPointers) {
  for (BForm form : {BForm::Rows, BForm::Cols}) {
    for (int64_t m : kSmall)
      for (int64_t n : kSmall)
        for (int64_t k : kSmall) {
          check_pointer_b<float>(GetParam(), form, m, n, k, 1.0f, 0.0f);
          check_pointer_b<double>(GetParam(), form, m, n, k, -0.5, 1.0);
        }
    // Past the cache blocks and big enough for the threaded split (column ranges per thread).
    check_pointer_b<float>(GetParam(), form, 100, 257, 300, 1.0f, 0.5f);
    check_pointer_b<double>(GetParam(), form, 257, 100, 257, 2.0, 0.0);
  }
}

// B packed once (gemm_pack_b) and read in place by several calls: the same result as packing
// on the fly, across column blocks (n > 2048), K blocks and the threaded split.
TEST_P(GemmIsa, ReadsAPrepackedBInPlace) {
  const int64_t shapes[][3] = {{1, 1, 1}, {17, 33, 3}, {8, 100, 257}, {33, 2100, 40}, {100, 257, 300}};
  for (const auto& sh : shapes) {
    const int64_t m = sh[0], n = sh[1], k = sh[2];
    std::mt19937 gen(static_cast<unsigned>(m + n + k));
    const Operand<float> a = make_operand<float>(m, k, Layout::RowMajor, gen);
    const Operand<float> b = make_operand<float>(k, n, Layout::Transposed, gen);
    std::vector<float> want(static_cast<size_t>(m * n)), got(want.size());
    cpu::gemm(problem(m, n, k, a, b, want.data(), n), {}, GetParam());
    std::vector<float> packed(static_cast<size_t>(cpu::gemm_packed_b_elems(k, n, DType::Float32, GetParam())) + 16);
    float* aligned = packed.data() + (16 - reinterpret_cast<uintptr_t>(packed.data()) / 4 % 16) % 16;
    cpu::gemm_pack_b(problem<float>(m, n, k, a, b, nullptr, n), aligned, GetParam());
    cpu::GemmProblem<float> p = problem(m, n, k, a, b, got.data(), n);
    p.b = cpu::MatrixView<float>();  // only the packed form is given
    p.b_packed = aligned;
    cpu::gemm(p, {}, GetParam());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "m=" << m << " n=" << n << " k=" << k << " at " << i;
  }
}

// B written panel by panel by the caller (GemmProblem::b_fill, as a conv gathers its im2col):
// the same bits as packing B from its strides, across column blocks (n > 2048), K blocks and the
// threaded split along N (each thread's panels start at its own column, j0).
struct FillFromDense {
  const Operand<float>* b;
  static void fill(const void* ctx, int64_t pc, int64_t kc, int64_t j0, int64_t nc, int64_t nr, float* dst) {
    const Operand<float>& b = *static_cast<const FillFromDense*>(ctx)->b;
    for (int64_t s = 0; s * nr < nc; ++s)
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = 0; j < nr; ++j)
          dst[(s * kc + p) * nr + j] = s * nr + j < nc ? b.at(pc + p, j0 + s * nr + j) : 0.0f;
  }
};

TEST_P(GemmIsa, ReadsBFromTheCallersPanelFill) {
  const int64_t shapes[][3] = {{1, 1, 1}, {17, 33, 3}, {8, 100, 257}, {33, 2100, 40}, {100, 257, 300}};
  for (const auto& sh : shapes) {
    const int64_t m = sh[0], n = sh[1], k = sh[2];
    std::mt19937 gen(static_cast<unsigned>(m * 5 + n + k));
    const Operand<float> a = make_operand<float>(m, k, Layout::RowMajor, gen);
    const Operand<float> b = make_operand<float>(k, n, Layout::RowMajor, gen);
    std::vector<float> want(static_cast<size_t>(m * n)), got(want.size());
    cpu::gemm(problem(m, n, k, a, b, want.data(), n), {}, GetParam());
    const FillFromDense ctx{&b};
    cpu::GemmProblem<float> p = problem(m, n, k, a, b, got.data(), n);
    p.b = cpu::MatrixView<float>();  // only the fill is given
    p.b_fill = &FillFromDense::fill;
    p.b_fill_ctx = &ctx;
    cpu::gemm(p, {}, GetParam());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "m=" << m << " n=" << n << " k=" << k << " at " << i;
  }
}

// The first 64-byte aligned element of v (room left for it by the caller).
template <typename T>
T* aligned64(std::vector<T>& v) {
  constexpr size_t per = 64 / sizeof(T);
  return v.data() + (per - reinterpret_cast<uintptr_t>(v.data()) / sizeof(T) % per) % per;
}

// A x B from A's packed form alone (a_packed, m rows) has exactly the values of want.
template <typename T>
void check_packed_product(CpuIsa isa, int64_t m, int64_t n, int64_t k, const Operand<T>& a, const Operand<T>& b,
                          const T* packed, const std::vector<T>& want, const char* what) {
  std::vector<T> got(want.size(), std::numeric_limits<T>::quiet_NaN());
  cpu::GemmProblem<T> p = problem(m, n, k, a, b, got.data(), n, T(1), T(0));
  p.a = cpu::MatrixView<T>();  // only the packed form is given
  p.a_packed = packed;
  p.a_packed_m = m;
  cpu::gemm(p, {}, isa);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << cpu_isa_name(isa) << " " << what << " m=" << m << " n=" << n << " k=" << k << " at " << i;
}

// A packed once (gemm_pack_a) and read in place by several calls, as a conv reads its weights
// for every image batch: the same bits as packing on the fly, row-major and transposed A, across
// K blocks (k > KC), M blocks (m > MC) and the threaded split along M (row ranges of the packed A).
template <typename T>
void check_prepacked_a(CpuIsa isa, int64_t m, int64_t n, int64_t k, Layout la) {
  std::mt19937 gen(static_cast<unsigned>(m * 3 + n + k));
  const DType dt = sizeof(T) == 4 ? DType::Float32 : DType::Float64;
  const Operand<T> a = make_operand<T>(m, k, la, gen);
  const Operand<T> b = make_operand<T>(k, n, Layout::RowMajor, gen);
  std::vector<T> want(static_cast<size_t>(m * n));
  cpu::gemm(problem(m, n, k, a, b, want.data(), n, T(1), T(0)), {}, isa);
  std::vector<T> packed(static_cast<size_t>(cpu::gemm_packed_a_elems(m, k, dt, isa)) + 64 / sizeof(T));
  T* aligned = aligned64(packed);
  cpu::gemm_pack_a(problem<T>(m, n, k, a, b, nullptr, n), aligned, isa);
  for (int call = 0; call < 2; ++call) check_packed_product(isa, m, n, k, a, b, aligned, want, "prepacked");
}

TEST_P(GemmIsa, ReadsAPrepackedAInPlace) {
  const int64_t shapes[][3] = {{1, 1, 1}, {17, 33, 3}, {100, 8, 257}, {257, 40, 400}, {33, 2100, 40}};
  for (const auto& sh : shapes) {
    for (Layout la : {Layout::RowMajor, Layout::Transposed}) {
      check_prepacked_a<float>(GetParam(), sh[0], sh[1], sh[2], la);
      check_prepacked_a<double>(GetParam(), sh[0], sh[1], sh[2], la);
    }
  }
}

// A given as column offsets (a_col_at: a conv's weights read with their taps regrouped), packed
// on the fly and packed a few rows at a time (gemm_pack_a_rows, the row ranges in a scrambled
// order, as a conv packs several such A's from one tensor): the same bits as the A copied out in
// that column order. Columns in a random order of a wider matrix, so a lost offset shows.
template <typename T>
void check_column_offsets(CpuIsa isa, int64_t m, int64_t n, int64_t k) {
  std::mt19937 gen(static_cast<unsigned>(m * 11 + n * 3 + k));
  const DType dt = sizeof(T) == 4 ? DType::Float32 : DType::Float64;
  const int64_t wide = k + 7;  // columns of the source, k of them used
  const Operand<T> src = make_operand<T>(m, wide, Layout::RowMajor, gen);
  const Operand<T> b = make_operand<T>(k, n, Layout::RowMajor, gen);
  std::vector<int64_t> order(static_cast<size_t>(wide));
  for (int64_t p = 0; p < wide; ++p) order[static_cast<size_t>(p)] = p;
  std::shuffle(order.begin(), order.end(), gen);
  order.resize(static_cast<size_t>(k));
  Operand<T> a;  // the same A, copied out row-major
  a.rs = k, a.cs = 1;
  a.data.resize(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) a.data[static_cast<size_t>(i * k + p)] = src.at(i, order[static_cast<size_t>(p)]);
  std::vector<T> want(static_cast<size_t>(m * n)), got(want.size());
  cpu::gemm(problem(m, n, k, a, b, want.data(), n), {}, isa);
  auto by_offsets = [&](T* c) {
    cpu::GemmProblem<T> p = problem(m, n, k, src, b, c, n);
    p.a = cpu::row_major(src.data.data(), wide);
    p.a_col_at = order.data();
    return p;
  };
  cpu::gemm(by_offsets(got.data()), {}, isa);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << cpu_isa_name(isa) << " on the fly m=" << m << " n=" << n << " k=" << k << " at " << i;
  std::vector<T> packed(static_cast<size_t>(cpu::gemm_packed_a_elems(m, k, dt, isa)) + 64 / sizeof(T),
                        std::numeric_limits<T>::quiet_NaN());
  T* aligned = aligned64(packed);
  const int64_t mr = cpu::gemm_mr(dt, isa), step = 2 * mr;
  std::vector<int64_t> starts;
  for (int64_t r0 = 0; r0 < m; r0 += step) starts.push_back(r0);
  std::shuffle(starts.begin(), starts.end(), gen);
  for (int64_t r0 : starts) cpu::gemm_pack_a_rows(by_offsets(nullptr), r0, std::min(step, m - r0), aligned, isa);
  check_packed_product(isa, m, n, k, a, b, aligned, want, "packed by rows");
  EXPECT_THROW(cpu::gemm_pack_a_rows(by_offsets(nullptr), 1, 1, aligned, isa), InternalError);
}

TEST_P(GemmIsa, ReadsAByColumnOffsets) {
  const int64_t shapes[][3] = {{1, 1, 1}, {17, 33, 3}, {100, 8, 257}, {257, 40, 400}, {33, 2100, 40}};
  for (const auto& sh : shapes) {
    check_column_offsets<float>(GetParam(), sh[0], sh[1], sh[2]);
    check_column_offsets<double>(GetParam(), sh[0], sh[1], sh[2]);
  }
}

// The a_packed form written value for value (gemm_kernel.h: per block of KC columns, slivers of
// MR rows, MR values a column, zeros past row m), one sliver at a time in a scrambled order, as
// threads pack their rows of one A: full slivers of row-major and column-major A go by vectors
// whose stores overhang into the next column (gemm_impl.h, pack_a_rows_sliver), and no sliver
// may write into another one or past the form. Column counts around the vector width and KC;
// the column-major A also with columns overlapping (csa below MR) and its storage cut at its
// last value, so a load past A shows under the address sanitizer.
template <typename T>
void check_packed_layout(CpuIsa isa, int64_t m, int64_t k, int64_t rs, int64_t cs) {
  std::mt19937 gen(static_cast<unsigned>(m * 31 + k * 7 + rs + cs));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const DType dt = sizeof(T) == 4 ? DType::Float32 : DType::Float64;
  std::vector<T> data(static_cast<size_t>((m - 1) * rs + (k - 1) * cs + 1));
  for (auto& v : data) v = static_cast<T>(u(gen));
  cpu::GemmProblem<T> p(m, 0, k);
  p.a = cpu::strided(data.data(), rs, cs);
  const int64_t mr = cpu::gemm_mr(dt, isa), kc_step = cpu::gemm_kc(dt, isa), mp = (m + mr - 1) / mr * mr;
  const int64_t elems = cpu::gemm_packed_a_elems(m, k, dt, isa), guard = 64;
  ASSERT_GE(elems, mp * k);
  std::vector<T> packed(static_cast<size_t>(elems + guard) + 64 / sizeof(T), T(-7));
  T* aligned = aligned64(packed);
  std::vector<int64_t> starts;
  for (int64_t r0 = 0; r0 < m; r0 += mr) starts.push_back(r0);
  std::shuffle(starts.begin(), starts.end(), gen);
  for (int64_t r0 : starts) cpu::gemm_pack_a_rows(p, r0, std::min(mr, m - r0), aligned, isa);
  for (int64_t pc = 0; pc < k; pc += kc_step) {
    const int64_t kc = std::min(kc_step, k - pc);
    for (int64_t i = 0; i < mp; ++i) {
      for (int64_t q = 0; q < kc; ++q) {
        const T want = i < m ? data[static_cast<size_t>(i * rs + (pc + q) * cs)] : T(0);
        const T got = aligned[pc * mp + (i / mr) * mr * kc + q * mr + i % mr];
        ASSERT_EQ(got, want) << cpu_isa_name(isa) << " m=" << m << " k=" << k << " rs=" << rs << " cs=" << cs
                             << " row " << i << " column " << pc + q;
      }
    }
  }
  for (int64_t e = mp * k; e < elems + guard; ++e)
    ASSERT_EQ(aligned[e], T(-7)) << cpu_isa_name(isa) << " m=" << m << " k=" << k << " wrote past the form at " << e;
}

TEST_P(GemmIsa, PacksASliverBySliverWithinItsOwnValues) {
  const int64_t rows[] = {6, 8, 13, 48, 50};
  const int64_t cols[] = {1, 7, 8, 9, 16, 17, 191, 192, 193, 255, 256, 257, 300};
  for (int64_t m : rows) {
    for (int64_t k : cols) {
      check_packed_layout<float>(GetParam(), m, k, k, 1);        // row-major
      check_packed_layout<double>(GetParam(), m, k, k, 1);
      check_packed_layout<float>(GetParam(), m, k, 1, m);        // column-major
      check_packed_layout<double>(GetParam(), m, k, 1, m);
      check_packed_layout<float>(GetParam(), m, k, 1, 2);        // column-major, columns overlapping
      check_packed_layout<double>(GetParam(), m, k, 1, 4);
      check_packed_layout<float>(GetParam(), m, k, k + 3, 1);    // row-major, rows apart
    }
  }
}

// gemm_dot: C[i, j] = alpha * <A row i, B row j> + beta * C[i, j].
template <typename T>
void check_dot(CpuIsa isa, int64_t m, int64_t n, int64_t k, T alpha, T beta) {
  std::mt19937 gen(static_cast<unsigned>(m * 13 + n * 5 + k));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int64_t lda = k + 2;
  std::vector<T> a(static_cast<size_t>(std::max<int64_t>(m * lda, 1))), bstore(static_cast<size_t>(std::max<int64_t>(n * (k + 1), 1)));
  for (auto& v : a) v = static_cast<T>(u(gen));
  for (auto& v : bstore) v = static_cast<T>(u(gen));
  std::vector<const T*> brows(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) brows[static_cast<size_t>(n - 1 - j)] = bstore.data() + j * (k + 1);
  const int64_t ldc = n + 1;
  std::vector<T> c(static_cast<size_t>(m * ldc));
  for (auto& v : c) v = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(u(gen));
  const std::vector<T> c0 = c;
  cpu::GemmDotProblem<T> prob(m, n, k);
  prob.alpha = alpha;
  prob.beta = beta;
  prob.a = a.data();
  prob.lda = lda;
  prob.b_rows = brows.data();
  prob.c = c.data();
  prob.ldc = ldc;
  cpu::gemm_dot(prob, isa);
  const double eps = sizeof(T) == 4 ? 2e-6 : 1e-14;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double t = static_cast<double>(a[static_cast<size_t>(i * lda + p)]) * static_cast<double>(brows[static_cast<size_t>(j)][p]);
        dot += t;
        mag += std::fabs(t);
      }
      const double old = beta == T(0) ? 0.0 : static_cast<double>(c0[static_cast<size_t>(i * ldc + j)]);
      const double want = static_cast<double>(alpha) * dot + static_cast<double>(beta) * old;
      ASSERT_NEAR(static_cast<double>(c[static_cast<size_t>(i * ldc + j)]), want, eps * (k + 4) * (mag + std::fabs(old) + 1))
          << cpu_isa_name(isa) << " dot m=" << m << " n=" << n << " k=" << k << " at (" << i << ", " << j << ")";
    }
}

TEST_P(GemmIsa, DotFormMatchesNaiveLoop) {
  for (int64_t m : {1, 3, 4, 17})
    for (int64_t n : {1, 3, 9, 17})
      for (int64_t k : {0, 1, 15, 16, 17, 33, 754}) {
        check_dot<float>(GetParam(), m, n, k, 1.0f, 0.0f);
        check_dot<double>(GetParam(), m, n, k, 0.5, 1.0);
      }
}

INSTANTIATE_TEST_SUITE_P(EveryIsaOfThisCpu, GemmIsa, ::testing::ValuesIn(available_isas()),
                         [](const ::testing::TestParamInfo<CpuIsa>& info) { return std::string(cpu_isa_name(info.param)); });

TEST(Gemm, RefusesAnIsaTheCpuDoesNotAllow) {
  if (cpu_isa() == CpuIsa::Avx512) GTEST_SKIP() << "this CPU allows every ISA";
  float c = 0;
  cpu::GemmProblem<float> p(1, 1, 1);
  p.a = cpu::row_major(&c, 1);
  p.b = cpu::row_major(&c, 1);
  p.c = &c;
  p.ldc = 1;
  EXPECT_THROW(cpu::gemm(p, {}, CpuIsa::Avx512), UnsupportedError);
}

TEST(Gemm, NamesTheSelectedKernel) {
  const std::string name = cpu::gemm_kernel_name();
  EXPECT_EQ(name.rfind(cpu_isa_name(cpu_isa()), 0), 0u) << name;
}

}  // namespace
