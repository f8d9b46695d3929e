// Iterating operands that share one shape, each with its own element strides: the strides of a
// broadcast operand, and the merging of axes that are contiguous for every operand. Used by the
// CPU loops (kernels/cpu/loops.h) and the CUDA launchers (src/cuda/launch.cpp, fused.cpp,
// matmul.cpp, reduction.cpp), so both backends walk a layout the same way.
#pragma once
#include <vector>

#include "glassgrad/autodiff/types.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

// Strides of an operand (shape, strides) read as `to` under NumPy broadcasting: its axes align
// with the last ones of `to`; 0 on the axes it stretches (size 1) or lacks.
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& to);
inline Strides broadcast_strides(const Tensor& t, const Shape& to) {
  return broadcast_strides(t.shape(), t.strides(), to);
}

// The same iteration over fewer, longer axes: size-1 axes dropped, and axis d merged into the
// one before it wherever that holds for every operand k: stride[k][d-1] == stride[k][d] *
// shape[d] (the pair walks memory as one axis). Elements come in the same row-major order.
struct CollapsedAxes {
  Shape shape;
  std::vector<Strides> strides;  // one per operand
};
// min_rank 1: a scalar iteration (no axis left) becomes one axis of size 1, stride 0.
CollapsedAxes collapse_axes(const Shape& shape, const std::vector<Strides>& strides, size_t min_rank = 0);

}  // namespace glassgrad
