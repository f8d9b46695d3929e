// CPU kernels of PackSequence and PadPackedSequence (rows of families/recurrent.def, registered
// by kernels/cpu/recurrent.cpp; shape rules in autodiff-engine/src/ops/recurrent.cpp), every
// dtype of their rows: rows of `feature` elements moved between the padded and the packed layouts
// of recurrent_geometry.h's PackGeometry,
//
//   packed[offsets[t] + j] = padded[t, sorted_indices[j]]      j < batch_sizes[t]
//
// and, unpacking, every other padded row (past a sequence's length, or past the last step up
// to total_length) set to padding_value. Rows are copied as bytes.
#pragma once
#include <cstring>

#include "glassgrad/autodiff/recurrent_geometry.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace cpu {

// Packing copies rows as bytes: one function serves every element type.
inline void pack_rows(const KernelContext& c) {
  const PackGeometry g = PackGeometry::from(c.inputs[0].shape(), c.attrs);
  const size_t row = static_cast<size_t>(g.feature) * c.inputs[0].itemsize();
  const char* src = static_cast<const char*>(c.inputs[0].data_ptr());
  char* dst = static_cast<char*>(c.outputs[0].data_ptr());
  if (row == 0) return;
  for (size_t t = 0; t < g.batch_sizes.size(); ++t) {
    for (int64_t j = 0; j < g.batch_sizes[t]; ++j) {
      const int64_t from = g.padded_row(static_cast<int64_t>(t), g.sequence(j));
      std::memcpy(dst + static_cast<size_t>(g.offsets[t] + j) * row, src + static_cast<size_t>(from) * row, row);
    }
  }
}

template <typename T>
constexpr KernelFn pack_sequence = pack_rows;

template <typename T>
void fill_padding(T* p, int64_t n, double value) {
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(value);
}

template <typename T>
void pad_packed_sequence(const KernelContext& c) {
  const PackGeometry g = PackGeometry::from(c.outputs[0].shape(), c.attrs);
  const Tensor& out = c.outputs[0];
  fill_padding(out.data<T>(), out.numel(), c.attrs.f("padding_value", 0.0));
  const size_t row = static_cast<size_t>(g.feature) * sizeof(T);
  if (row == 0) return;
  const char* src = static_cast<const char*>(c.inputs[0].data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  for (size_t t = 0; t < g.batch_sizes.size(); ++t) {
    for (int64_t j = 0; j < g.batch_sizes[t]; ++j) {
      const int64_t to = g.padded_row(static_cast<int64_t>(t), g.sequence(j));
      std::memcpy(dst + static_cast<size_t>(to) * row, src + static_cast<size_t>(g.offsets[t] + j) * row, row);
    }
  }
}

}  // namespace cpu
}  // namespace glassgrad
