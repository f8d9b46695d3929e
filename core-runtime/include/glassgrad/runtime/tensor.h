// Tensor: a strided view (shape, strides in elements, offset in elements, dtype) over a
// Storage. NCHW, row-major by default. View operations never copy; contiguous() copies only
// when the layout is not already dense row-major.
//
// Element (i0, ..., ik) is at storage + (offset + sum_j i_j * strides[j]) * itemsize.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glassgrad/autodiff/types.h"
#include "glassgrad/autodiff/views.h"
#include "glassgrad/runtime/storage.h"

namespace glassgrad {

class Tensor {
 public:
  Tensor() = default;  // undefined
  static Tensor empty(const Shape& shape, DType dtype, const Device& device = Device::cpu(),
                      const std::string& name = "");
  static Tensor zeros(const Shape& shape, DType dtype, const Device& device = Device::cpu(),
                      const std::string& name = "");
  static Tensor full(const Shape& shape, double value, DType dtype, const Device& device = Device::cpu(),
                     const std::string& name = "");
  static Tensor from_storage(std::shared_ptr<Storage> storage, const Shape& shape, const Strides& strides,
                             int64_t offset, DType dtype);

  // The same view (shape, strides, dtype) over `storage` from element `offset`, checked as
  // from_storage checks a view, keeping the shape and strides vectors: rebinding allocates
  // nothing (the executor rebinds a plan's slots every run: Executor::bind).
  void rebind(std::shared_ptr<Storage> storage, int64_t offset);
  // Drops the storage and keeps the layout for a later rebind; defined() is false until then.
  void release() { storage_.reset(); }

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  const Device& device() const;
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return glassgrad::numel(shape_); }
  int64_t size(int dim) const;  // negative dims count from the end
  size_t itemsize() const { return dtype_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  TensorInfo info() const { return {shape_, dtype_, device()}; }
  Layout layout() const { return {shape_, strides_, offset_}; }
  bool is_contiguous() const { return layout().is_contiguous(); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // Pointer to element (0, ..., 0).
  void* data_ptr() const;
  template <typename T>
  T* data() const { return static_cast<T*>(data_ptr()); }
  std::string str() const;  // "Tensor([32, 1, 28, 28], float32, cpu)"

  // Views: never copy. Errors name the op, the shapes and the fix.
  Tensor view(const Shape& shape) const;       // -1 allowed once; throws if not expressible
  Tensor reshape(const Shape& shape) const;    // a view when possible, else a contiguous copy
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t a, int64_t b) const;
  // Python slice semantics: negative start/stop count from the end; out-of-range bounds clamp;
  // step >= 1.
  Tensor slice(int64_t dim, int64_t start, int64_t stop, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;  // drops `dim`; IndexError when out of range
  Tensor expand(const Shape& shape) const;          // broadcast: stretched axes get stride 0
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze(int64_t dim) const;
  Tensor as_strided(const Shape& shape, const Strides& strides, int64_t offset) const;

  Tensor contiguous() const;  // *this when already contiguous
  Tensor clone() const;       // always a new contiguous copy
  Tensor to(const Device& device) const;  // *this when already there
  // Copies src into this tensor's elements (same shape and dtype; devices may differ).
  void copy_from(const Tensor& src);
  void fill(double value);

  // Resolves -1 in a requested shape against numel; throws ShapeError naming both shapes.
  static Shape infer_shape(const Shape& requested, int64_t numel, const char* op);

 private:
  void check_fits_storage() const;  // from_storage's bounds check: the furthest element lies inside
  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float32;
};

}  // namespace glassgrad
