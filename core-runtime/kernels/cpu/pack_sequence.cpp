// CPU kernels of PackSequence and PadPackedSequence (autodiff-engine/src/ops/recurrent.cpp), every
// dtype: rows of `feature` elements moved between the padded and the packed layouts of
// recurrent_geometry.h's PackGeometry,
//
//   packed[offsets[t] + j] = padded[t, sorted_indices[j]]      j < batch_sizes[t]
//
// and, unpacking, every other padded row (past a sequence's length, or past the last step up
// to total_length) set to padding_value. Rows are copied as bytes.
#include <cstring>

#include "glassgrad/autodiff/recurrent_geometry.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

void pack(const KernelContext& c) {
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
void fill(T* p, int64_t n, double value) {
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(value);
}

template <typename T>
void unpack(const KernelContext& c) {
  const PackGeometry g = PackGeometry::from(c.outputs[0].shape(), c.attrs);
  const Tensor& out = c.outputs[0];
  fill(out.data<T>(), out.numel(), c.attrs.f("padding_value", 0.0));
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

}  // namespace

// Called by register_cpu_recurrent_kernels (kernels/cpu/recurrent.cpp): one family.
void register_cpu_pack_sequence_kernels(KernelRegistry& r) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool}) {
    r.add("PackSequence", DeviceType::CPU, dt, pack);
  }
  r.add("PadPackedSequence", DeviceType::CPU, DType::Float32, unpack<float>);
  r.add("PadPackedSequence", DeviceType::CPU, DType::Float64, unpack<double>);
  r.add("PadPackedSequence", DeviceType::CPU, DType::Int64, unpack<int64_t>);
  r.add("PadPackedSequence", DeviceType::CPU, DType::UInt8, unpack<uint8_t>);
  r.add("PadPackedSequence", DeviceType::CPU, DType::Bool, unpack<bool>);
}

}  // namespace glassgrad
