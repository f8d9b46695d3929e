// collapse_axes walks the same elements in the same order as the layout it collapses, for
// every operand, and merges every pair of axes it can; broadcast_strides gives 0 on stretched
// and missing axes. Checked on random shapes, permutations, slices and broadcasts.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "glassgrad/runtime/strided.h"

using namespace glassgrad;

namespace {

// Element offsets of (shape, strides) in row-major order of the shape.
std::vector<int64_t> offsets(const Shape& shape, const Strides& strides) {
  std::vector<int64_t> out;
  const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, off = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      off += (rem % shape[d]) * strides[d];
      rem /= shape[d];
    }
    out.push_back(off);
  }
  return out;
}

// A random operand layout of `shape`: a permuted dense buffer, sliced with steps, or broadcast.
Strides random_strides(const Shape& shape, std::mt19937& rng) {
  std::vector<size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  if (rng() % 2) std::shuffle(order.begin(), order.end(), rng);
  Strides st(shape.size());
  int64_t s = 1 + static_cast<int64_t>(rng() % 2);  // step 2: a sliced view
  for (size_t k = order.size(); k-- > 0;) {
    st[order[k]] = rng() % 5 == 0 ? 0 : s;  // stride 0: broadcast along that axis
    s *= shape[order[k]];
  }
  return st;
}

}  // namespace

TEST(Strided, CollapsedAxesWalkTheSameElementsInTheSameOrder) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    Shape shape(rng() % 6);
    for (auto& n : shape) n = 1 + static_cast<int64_t>(rng() % 4);
    std::vector<Strides> st;
    for (int k = 0; k < 3; ++k) st.push_back(random_strides(shape, rng));
    const CollapsedAxes c = collapse_axes(shape, st, 1);
    ASSERT_GE(c.shape.size(), 1u);
    ASSERT_LE(c.shape.size(), std::max<size_t>(shape.size(), 1));
    for (size_t k = 0; k < st.size(); ++k) {
      EXPECT_EQ(offsets(c.shape, c.strides[k]), offsets(shape, st[k])) << "trial " << trial << " operand " << k;
    }
    // No pair left that every operand could merge.
    for (size_t d = 1; d < c.shape.size(); ++d) {
      bool mergeable = true;
      for (const auto& s : c.strides) mergeable = mergeable && s[d - 1] == s[d] * c.shape[d];
      EXPECT_FALSE(mergeable) << "trial " << trial << " axes " << d - 1 << ", " << d;
    }
  }
}

TEST(Strided, ADenseLayoutCollapsesToOneAxisAndAScalarToOneOfSizeOne) {
  const Shape shape{2, 3, 4};
  const CollapsedAxes c = collapse_axes(shape, {contiguous_strides(shape)});
  EXPECT_EQ(c.shape, (Shape{24}));
  EXPECT_EQ(c.strides[0], (Strides{1}));
  EXPECT_TRUE(collapse_axes(Shape{1, 1}, {Strides{1, 1}}).shape.empty());
  const CollapsedAxes s = collapse_axes(Shape{1, 1}, {Strides{1, 1}}, 1);
  EXPECT_EQ(s.shape, (Shape{1}));
  EXPECT_EQ(s.strides[0], (Strides{0}));
}

TEST(Strided, BroadcastStridesAreZeroOnStretchedAndMissingAxes) {
  EXPECT_EQ(broadcast_strides(Shape{3, 1}, Strides{1, 1}, Shape{2, 3, 4}), (Strides{0, 1, 0}));
  EXPECT_EQ(broadcast_strides(Shape{2, 3}, Strides{3, 1}, Shape{2, 3}), (Strides{3, 1}));
  EXPECT_EQ(broadcast_strides(Shape{1}, Strides{1}, Shape{1}), (Strides{1}));
}
