// Geometry of the indexing ops (src/ops/indexing.cpp), shared by their shape rules and by the
// CPU and CUDA kernels, so that all three agree on which element an index names.
//
// Every indexing op is one walk over an iteration shape S (row-major) in which each position p
// names one element of a target tensor t:
//
//   t_offset(p) = sum_r p_r * target_stride[r]  +  sum_j index_j(p) * dim_stride[j]
//   index_j(p)  = idx_j[sum_r p_r * index_stride[j][r]]        (negative values wrap when `wrap`)
//
// and the op reads that element (Gather, IndexSelect, Index: out[p] = t[t_offset(p)], out dense
// over S) or writes it from a source operand (Scatter, IndexAdd, IndexPut:
// t[t_offset(p)] (=, +=, *=) src[sum_r p_r * source_stride[r]]). Positions that differ along an
// axis whose target stride is non-zero ("free" axes) never name the same element, because the
// indexed dims and the free axes are different axes of t: kernels that accumulate run the free
// axes in parallel and the others in order (deterministic), or every position at once with atomics.
#pragma once
#include <cstdint>
#include <vector>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

// Advanced indexing x[..., i_0, ..., i_{k-1}, ...] with index tensors at the ascending axes
// `dims` of x, broadcast together to `broadcast`. The broadcast axes replace the indexed axes
// where those are adjacent, and come first otherwise (NumPy's and PyTorch's rule).
struct AdvancedIndex {
  Shape result;                    // the shape of x[...]
  int front = 0;                   // the first broadcast axis of `result`
  std::vector<int> source_axis;    // per result axis: the axis of x it runs along, -1 for a broadcast axis
};
AdvancedIndex advanced_index(const Shape& x, const std::vector<int64_t>& dims, const Shape& broadcast);

// One walk (see above). Built by the functions below from dense (row-major) operands.
struct IndexWalk {
  Shape shape;                                  // iteration shape S
  Strides target_stride;                        // per axis of S
  std::vector<Strides> index_stride;            // per index operand, per axis of S
  std::vector<int64_t> dim_stride;              // per index operand: t's stride along its dim
  std::vector<int64_t> dim_size;                // per index operand: t's size along its dim
  std::vector<int> dim;                         // per index operand: the axis of t it indexes
  Strides source_stride;                        // per axis of S (empty for reads)
  bool wrap = false;                            // negative indices count from the end
};

// Gather(x, index){dim}: S = index's shape.
IndexWalk gather_walk(const Shape& x, const Shape& index, int dim);
// Scatter(x, index, src){dim}: S = index's shape; src is read at the same positions.
IndexWalk scatter_walk(const Shape& x, const Shape& index, const Shape& src, int dim);
// IndexSelect(x, index){dim}: S = x's shape with len(index) along dim.
IndexWalk index_select_walk(const Shape& x, int64_t index_len, int dim);
// IndexAdd(x, index, src){dim}: S = src's shape.
IndexWalk index_add_walk(const Shape& x, int64_t index_len, int dim);
// Index(x, idx...){dims} and IndexPut(x, values, idx...){dims}: S = the result's shape;
// values (when given) broadcast to it.
IndexWalk advanced_walk(const Shape& x, const std::vector<Shape>& indices, const std::vector<int64_t>& dims,
                        const Shape* values);

// The axes of S along which the target stride is 0 (walked in order by deterministic
// accumulation), and the element counts of the free and the ordered parts.
struct WalkSplit {
  std::vector<int> free_axes, ordered_axes;
  int64_t free_count = 1, ordered_count = 1;
};
WalkSplit split_walk(const IndexWalk& w);

}  // namespace glassgrad
