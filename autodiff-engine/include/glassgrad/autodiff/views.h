// No-copy views: how Reshape, Permute, Slice and Expand map (shape, strides, offset) of a
// tensor to those of its view. Defined once here and used by the engine (to plan views as
// aliases of their base buffer) and by the runtime's Tensor (eager views).
//
// Element (i0, ..., ik) of a view lives at base[offset + sum_j i_j * strides[j]].
#pragma once
#include <cstdint>
#include <vector>

#include "glassgrad/autodiff/types.h"

namespace glassgrad {

struct Layout {
  Shape shape;
  Strides strides;
  int64_t offset = 0;

  static Layout contiguous(const Shape& shape) { return {shape, contiguous_strides(shape), 0}; }
  bool is_contiguous() const;
};

// Reshape as a view. Returns false when the new shape cannot be expressed over the old
// strides (e.g. flattening a transposed tensor); the caller must then copy.
bool reshape_view(const Layout& in, const Shape& new_shape, Layout& out);
// The strides PyTorch's unsqueeze, select, squeeze and indexing give a view that only inserts or
// drops size-1 axes, which differ from a reshape's on its size-1 axes and on an empty tensor
// (docs/inplace-and-views.md, "Strides"): such a Reshape carries `spec`, three numbers per axis
// of out in order (axis, num, den): its stride is in.strides[axis] * num / den, or num for axis
// -1; an axis of another size than 1 is one of in's, kept (num == den). A spec that does not fit
// in and out leaves out as reshape_view made it.
void set_view_strides(const std::vector<int64_t>& spec, const Layout& in, Layout& out);
// out.shape[i] = in.shape[dims[i]]; dims must be a permutation (checked by the caller).
Layout permute_view(const Layout& in, const std::vector<int64_t>& dims);
// Elements start, start+step, ... < stop along `dim` (0 <= start <= stop <= size, step >= 1).
Layout slice_view(const Layout& in, int dim, int64_t start, int64_t stop, int64_t step);
// Broadcast to `shape` (NumPy rules; stretched axes get stride 0).
Layout expand_view(const Layout& in, const Shape& shape);
// Length of a slice start:stop:step with 0 <= start <= stop.
int64_t slice_length(int64_t start, int64_t stop, int64_t step);

}  // namespace glassgrad
