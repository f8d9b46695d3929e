// Strided copy and fill: the CPU side of Tensor::contiguous/clone/copy_from/fill.
#include <cstring>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "half_rules.h"
#include "loops.h"

namespace glassgrad {
namespace cpu {

namespace {
template <typename W>
void copy_words(const Tensor& dst, const Tensor& src) {
  for_each_row<W, const W>(dst.shape(), {dst.strides(), src.strides()},
                           std::make_tuple(static_cast<W*>(dst.data_ptr()), static_cast<const W*>(src.data_ptr())),
                           [](auto p, int64_t n, const std::array<int64_t, 2>& s) {
                             W* d = std::get<0>(p);
                             const W* x = std::get<1>(p);
                             if (s[0] == 1 && s[1] == 1) {
                               std::memcpy(d, x, static_cast<size_t>(n) * sizeof(W));
                             } else {
                               for (int64_t i = 0; i < n; ++i) d[i * s[0]] = x[i * s[1]];
                             }
                           });
}

template <typename T>
void fill_typed(const Tensor& dst, T v) {
  for_each_row<T>(dst.shape(), {dst.strides()}, std::make_tuple(static_cast<T*>(dst.data_ptr())),
                  [v](auto p, int64_t n, const std::array<int64_t, 1>& s) {
                    T* d = std::get<0>(p);
                    for (int64_t i = 0; i < n; ++i) d[i * s[0]] = v;
                  });
}
}  // namespace

void strided_copy(const Tensor& dst, const Tensor& src) {
  switch (dtype_size(dst.dtype())) {
    case 1: copy_words<uint8_t>(dst, src); break;
    case 2: copy_words<uint16_t>(dst, src); break;
    case 4: copy_words<uint32_t>(dst, src); break;
    case 8: copy_words<uint64_t>(dst, src); break;
    default: throw InternalError("strided_copy: unexpected item size");
  }
}

void fill(const Tensor& dst, double value) {
  switch (dst.dtype()) {
    case DType::Float32: fill_typed<float>(dst, static_cast<float>(value)); break;
    case DType::Float64: fill_typed<double>(dst, value); break;
    case DType::Int64: fill_typed<int64_t>(dst, static_cast<int64_t>(value)); break;
    case DType::UInt8: fill_typed<uint8_t>(dst, static_cast<uint8_t>(value)); break;
    case DType::Bool: fill_typed<uint8_t>(dst, value != 0 ? 1 : 0); break;
    // The storage types: the value converted as the Cast op converts a float64 (creation.cpp).
    case DType::Int8: fill_typed<int8_t>(dst, static_cast<int8_t>(static_cast<int64_t>(value))); break;
    case DType::Int16: fill_typed<int16_t>(dst, static_cast<int16_t>(static_cast<int64_t>(value))); break;
    case DType::Int32: fill_typed<int32_t>(dst, static_cast<int32_t>(static_cast<int64_t>(value))); break;
    case DType::Float16: fill_typed<uint16_t>(dst, half_rules::float_to_half(static_cast<float>(value))); break;
    case DType::BFloat16: fill_typed<uint16_t>(dst, half_rules::float_to_bfloat16(static_cast<float>(value))); break;
  }
}

}  // namespace cpu
}  // namespace glassgrad
