// cpu::for_each_row (kernels/cpu/loops.h), the loop of the elementwise maps, copies, fills,
// casts and optimizer updates: every element is visited once, with its own offset in every
// operand, on any thread count; and a dense tensor, which collapses to one row, is shared by the
// threads in pieces that start on kRowPieceElems boundaries (docs/cpu-threads.md, "Elementwise
// rows cut into pieces").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "cpu/loops.h"
#include "glassgrad/runtime/parallel.h"

using namespace glassgrad;

namespace {

struct ThreadCount {
  explicit ThreadCount(int n) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(0); }
};

struct Visit {
  std::vector<int> count;                 // of each destination element
  std::vector<std::pair<int64_t, int64_t>> pieces;  // (first element, length) of each call
  std::set<std::thread::id> threads;
  bool wrong_source = false;
};

// dst[i] visited through for_each_row with a second operand of strides `src_strides` over
// `shape`, whose element at the same multi-index must be src[i] (src holds the dense index).
Visit visit(const Shape& shape, const Strides& src_strides, const std::vector<int64_t>& src, int64_t grain) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  Strides dense(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) dense[d - 1] = dense[d] * shape[d];
  std::vector<int> dst(static_cast<size_t>(total), 0);
  Visit v;
  std::mutex mu;
  cpu::for_each_row<int, const int64_t>(
      shape, {dense, src_strides}, std::make_tuple(dst.data(), src.data()),
      [&](auto p, int64_t n, const std::array<int64_t, 2>& s) {
        int* d = std::get<0>(p);
        const int64_t* x = std::get<1>(p);
        const int64_t first = d - dst.data();
        bool wrong = false;
        for (int64_t k = 0; k < n; ++k) {
          d[k * s[0]] += 1;
          wrong |= x[k * s[1]] != first + k * s[0];
        }
        std::lock_guard<std::mutex> lock(mu);
        v.pieces.emplace_back(first, n);
        v.threads.insert(std::this_thread::get_id());
        v.wrong_source |= wrong;
      },
      grain);
  v.count = std::move(dst);
  return v;
}

TEST(RowLoops, VisitEveryElementOnceOnAnyThreadCount) {
  // One dense row (long and short), a few rows, many rows, and a transposed second operand.
  struct Case {
    Shape shape;
    bool transposed;
  };
  const std::vector<Case> cases = {{{200003}, false}, {{65536}, false},  {{1000}, false},   {{3, 70001}, false},
                                   {{2, 64, 1031}, false}, {{513, 257}, true}, {{7, 9, 11}, true}};
  for (int threads : {1, 2, 3, 4}) {
    ThreadCount tc(threads);
    for (const Case& c : cases) {
      int64_t total = 1;
      for (int64_t d : c.shape) total *= d;
      // src is laid out as the destination (dense), or transposed (last two axes swapped).
      Strides st(c.shape.size(), 1);
      for (size_t d = c.shape.size(); d-- > 1;) st[d - 1] = st[d] * c.shape[d];
      std::vector<int64_t> src(static_cast<size_t>(total));
      if (c.transposed) {
        const size_t r = c.shape.size();
        const int64_t a = c.shape[r - 2], b = c.shape[r - 1];
        Strides t = st;
        t[r - 1] = a, t[r - 2] = 1;
        for (size_t d = r - 2; d-- > 0;) t[d] = st[d];
        for (int64_t i = 0; i < total; ++i) {  // src at the transposed offset holds dense index i
          const int64_t outer = i / (a * b), ia = (i / b) % a, ib = i % b;
          src[static_cast<size_t>(outer * a * b + ib * a + ia)] = i;
        }
        st = t;
      } else {
        for (int64_t i = 0; i < total; ++i) src[static_cast<size_t>(i)] = i;
      }
      const Visit v = visit(c.shape, st, src, 4096);
      EXPECT_TRUE(std::all_of(v.count.begin(), v.count.end(), [](int n) { return n == 1; }))
          << "threads " << threads << ", shape of " << total << " elements";
      EXPECT_FALSE(v.wrong_source) << "threads " << threads << ", shape of " << total << " elements";
    }
  }
}

TEST(RowLoops, ADenseRowIsSharedByTheThreadsInAlignedPieces) {
  ThreadCount tc(2);
  if (get_num_threads() < 2) GTEST_SKIP() << "built without OpenMP: one thread";
  const int64_t total = 200003;
  std::vector<int64_t> src(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) src[static_cast<size_t>(i)] = i;
  const Visit v = visit({total}, {1}, src, 32768);
  EXPECT_EQ(v.threads.size(), 2u) << "one dense row ran on " << v.threads.size() << " thread(s)";
  EXPECT_GT(v.pieces.size(), 1u);
  for (const auto& [first, n] : v.pieces) {
    EXPECT_EQ(first % cpu::kRowPieceElems, 0) << "a piece starts at element " << first;
    EXPECT_TRUE(n % cpu::kRowPieceElems == 0 || first + n == total) << "a piece of " << n << " elements";
  }
  // Under the grain per thread, the row stays whole on the calling thread.
  const Visit small = visit({1000}, {1}, src, 32768);
  EXPECT_EQ(small.pieces.size(), 1u);
  EXPECT_EQ(small.threads.size(), 1u);
}

}  // namespace
