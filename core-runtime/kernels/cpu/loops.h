// Strided loops shared by the CPU kernels: iterate N operands of one iteration shape, each with
// its own element strides (0 for broadcast axes), collapsing dimensions that are contiguous
// for every operand (collapse_axes, strided.h) so the inner loop is as long as possible, and
// splitting the outer loop across threads.
#pragma once
#include <algorithm>
#include <array>
#include <tuple>
#include <utility>
#include <cstdint>
#include <vector>

#include "glassgrad/autodiff/types.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/strided.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {
namespace cpu {

using glassgrad::broadcast_strides;

template <size_t N>
struct Loop {
  Shape shape;                            // collapsed (collapse_axes, at least one axis)
  std::array<Strides, N> strides;         // collapsed, in elements
};

template <size_t N>
Loop<N> collapse(const Shape& shape, const std::array<Strides, N>& strides) {
  CollapsedAxes c = collapse_axes(shape, std::vector<Strides>(strides.begin(), strides.end()), 1);
  Loop<N> l;
  l.shape = std::move(c.shape);
  for (size_t k = 0; k < N; ++k) l.strides[k] = std::move(c.strides[k]);
  return l;
}

template <typename Tuple, size_t... I>
auto offset_tuple(const Tuple& base, const std::array<int64_t, sizeof...(I)>& off, std::index_sequence<I...>) {
  return std::make_tuple((std::get<I>(base) + off[I])...);
}

// Calls inner(ptrs, n, inner_strides) for every row of the collapsed iteration space, where
// ptrs[k] is the typed start of operand k's row and inner_strides[k] its element stride.
// T... are the element types of the operands. Rows are split across threads when the total
// size is at least `grain` elements per thread.
template <typename... T, typename F>
void for_each_row(const Shape& shape, const std::array<Strides, sizeof...(T)>& strides,
                  std::tuple<T*...> base, F&& inner, int64_t grain = 32768) {
  constexpr size_t N = sizeof...(T);
  const Loop<N> l = collapse<N>(shape, strides);
  const size_t rank = l.shape.size();
  const int64_t n_inner = l.shape.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= l.shape[d];
  if (rows * n_inner == 0) return;
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = l.strides[k].back();
  const int64_t row_grain = std::max<int64_t>(1, grain / std::max<int64_t>(n_inner, 1));
  parallel_for(rows, row_grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      std::array<int64_t, N> off{};
      int64_t rem = r;
      for (size_t d = rank - 1; d-- > 0;) {
        const int64_t i = rem % l.shape[d];
        rem /= l.shape[d];
        for (size_t k = 0; k < N; ++k) off[k] += i * l.strides[k][d];
      }
      inner(offset_tuple(base, off, std::make_index_sequence<N>{}), n_inner, inner_stride);
    }
  });
}

}  // namespace cpu
}  // namespace glassgrad
