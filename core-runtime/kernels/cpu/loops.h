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

// Elements of a row piece are a multiple of this (for_each_row): 64 bytes or more for every
// element type, so two threads' pieces never share a cache line of an aligned dense operand.
constexpr int64_t kRowPieceElems = 64;

// Calls inner(ptrs, n, inner_strides) for every row of the collapsed iteration space, where
// ptrs[k] is the typed start of operand k's row and inner_strides[k] its element stride.
// T... are the element types of the operands. Rows are split across threads when the total
// size is at least `grain` elements per thread.
//
// inner must treat each element on its own (every caller is an elementwise map, a copy, a fill,
// a cast or an optimizer update): with fewer rows than four a thread, each row is cut into
// pieces along its length, and inner is called once a piece. A dense tensor collapses to one
// row, which used to run on one thread whatever the thread count: ReLU, its backward and every
// optimizer update of a ResNet-18 step (docs/cpu-threads.md, "Elementwise rows cut into
// pieces"). Each element is computed by the same expression either way, so the results do not
// depend on the thread count.
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
  grain = std::max<int64_t>(grain, 1);
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  int64_t pieces = 1;  // per row
  if (threads > 1 && rows < 4 * threads && rows * n_inner >= 2 * grain)
    pieces = std::min((4 * threads + rows - 1) / rows, (n_inner + kRowPieceElems - 1) / kRowPieceElems);
  const int64_t piece = (n_inner + pieces - 1) / pieces;
  const int64_t piece_len = (piece + kRowPieceElems - 1) / kRowPieceElems * kRowPieceElems;
  const int64_t item_grain = std::max<int64_t>(1, grain / std::min(piece_len, n_inner));
  parallel_for(rows * pieces, item_grain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t r = i / pieces, start = (i % pieces) * piece_len;
      if (start >= n_inner) continue;
      std::array<int64_t, N> off{};
      int64_t rem = r;
      for (size_t d = rank - 1; d-- > 0;) {
        const int64_t j = rem % l.shape[d];
        rem /= l.shape[d];
        for (size_t k = 0; k < N; ++k) off[k] += j * l.strides[k][d];
      }
      for (size_t k = 0; k < N; ++k) off[k] += start * inner_stride[k];
      inner(offset_tuple(base, off, std::make_index_sequence<N>{}), std::min(piece_len, n_inner - start),
            inner_stride);
    }
  });
}

}  // namespace cpu
}  // namespace glassgrad
