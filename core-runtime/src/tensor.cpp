#include "glassgrad/runtime/tensor.h"

#include <algorithm>
#include <sstream>

#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/host_copy.h"
#include "glassgrad/runtime/host_times.h"

namespace glassgrad {

namespace {
const Device kCpu = Device::cpu();

int check_dim(int64_t dim, int rank, const char* op, const Shape& shape) {
  const int d = normalize_axis(dim, rank);
  if (d < 0) {
    throw IndexError(ErrorMessage(std::string(op) + ": dimension " + std::to_string(dim) +
                                  " is out of range for a " + std::to_string(rank) + "-d tensor " +
                                  shape_str(shape))
                         .fix("use a dimension in [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]")
                         .str());
  }
  return d;
}
}  // namespace

Tensor Tensor::empty(const Shape& shape, DType dtype, const Device& device, const std::string& name) {
  check_shape(shape, dtype, "cannot create a tensor");
  Tensor t;
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape);
  t.dtype_ = dtype;
  t.storage_ = Storage::allocate(glassgrad::nbytes(shape, dtype), device, name);
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, const Device& device, const std::string& name) {
  return full(shape, 0.0, dtype, device, name);
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype, const Device& device, const std::string& name) {
  Tensor t = empty(shape, dtype, device, name);
  t.fill(value);
  return t;
}

Tensor Tensor::from_storage(std::shared_ptr<Storage> storage, const Shape& shape, const Strides& strides,
                            int64_t offset, DType dtype) {
  if (shape.size() != strides.size()) throw InternalError("from_storage: shape and strides differ in rank");
  check_shape(shape, dtype, "view");
  Tensor t;
  t.storage_ = std::move(storage);
  t.shape_ = shape;
  t.strides_ = strides;
  t.offset_ = offset;
  t.dtype_ = dtype;
  t.check_fits_storage();
  return t;
}

void Tensor::rebind(std::shared_ptr<Storage> storage, int64_t offset) {
  storage_ = std::move(storage);
  offset_ = offset;
  check_fits_storage();
}

void Tensor::check_fits_storage() const {
  if (numel() == 0) return;
  // In checked size arithmetic: the reach below and above the offset (each span is at most
  // the storage's size when the view fits, so a failed check means it does not).
  const int64_t cap = static_cast<int64_t>(storage_->nbytes() / dtype_size(dtype_));
  int64_t below = 0, above = 0;
  bool fits = offset_ >= 0 && offset_ < cap;
  for (size_t i = 0; fits && i < shape_.size(); ++i) {
    const int64_t stride = strides_[i];
    int64_t span = 0;
    fits = stride >= -kMaxSize && stride <= kMaxSize && size_mul(shape_[i] - 1, stride < 0 ? -stride : stride, span) &&
           size_add(stride < 0 ? below : above, span, stride < 0 ? below : above);
  }
  if (!fits || offset_ - below < 0 || offset_ + above >= cap) {
    throw IndexError(ErrorMessage("view " + shape_str(shape_) + " strides " + shape_str(strides_) + " offset " +
                                  std::to_string(offset_) + " reaches outside its storage of " +
                                  std::to_string(cap) + " elements")
                         .str());
  }
}

const Device& Tensor::device() const { return storage_ ? storage_->device() : kCpu; }

int64_t Tensor::size(int dim) const { return shape_[static_cast<size_t>(check_dim(dim, rank(), "size", shape_))]; }

void* Tensor::data_ptr() const {
  if (!storage_) return nullptr;
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize());
}

std::string Tensor::str() const {
  std::ostringstream os;
  os << "Tensor(" << shape_str(shape_) << ", " << dtype_name(dtype_) << ", " << device().str() << ")";
  return os.str();
}

Shape Tensor::infer_shape(const Shape& requested, int64_t n, const char* op) {
  Shape out = requested;
  int infer = -1;
  Shape known_sizes;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) {
        throw ShapeError(ErrorMessage(std::string(op) + ": only one dimension can be -1, got " + shape_str(requested)).str());
      }
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      throw ShapeError(ErrorMessage(std::string(op) + ": invalid size " + std::to_string(out[i]) + " in " + shape_str(requested))
                           .fix("sizes must be >= 0, or -1 for one size to be inferred")
                           .str());
    } else {
      known_sizes.push_back(out[i]);
    }
  }
  check_shape(known_sizes, DType::UInt8, std::string(op) + ": the requested shape " + shape_str(requested));
  const int64_t known = glassgrad::numel(known_sizes);
  if (infer >= 0) {
    if (known == 0 || n % known != 0) {
      throw ShapeError(ErrorMessage(std::string(op) + ": cannot reshape " + std::to_string(n) + " elements into " +
                                    shape_str(requested))
                           .str());
    }
    out[static_cast<size_t>(infer)] = n / known;
  }
  if (glassgrad::numel(out) != n) {
    throw ShapeError(ErrorMessage(std::string(op) + ": cannot reshape a tensor of " + std::to_string(n) +
                                  " elements into " + shape_str(requested) + " (" +
                                  std::to_string(glassgrad::numel(out)) + " elements)")
                         .fix("the product of the new sizes must equal the old one; use -1 for one size to infer it")
                         .str());
  }
  return out;
}

Tensor Tensor::as_strided(const Shape& shape, const Strides& strides, int64_t offset) const {
  return from_storage(storage_, shape, strides, offset, dtype_);
}

Tensor Tensor::view(const Shape& shape) const {
  const Shape s = infer_shape(shape, numel(), "view");
  Layout out;
  if (!reshape_view(layout(), s, out)) {
    throw ShapeError(ErrorMessage("view: a tensor of shape " + shape_str(shape_) + " with strides " +
                                  shape_str(strides_) + " cannot be viewed as " + shape_str(s) + " without copying")
                         .cause("the tensor is not contiguous (e.g. transposed or sliced with a step)")
                         .fix("use .reshape(...) (copies when needed) or .contiguous().view(...)")
                         .str());
  }
  return as_strided(out.shape, out.strides, out.offset);
}

Tensor Tensor::reshape(const Shape& shape) const {
  const Shape s = infer_shape(shape, numel(), "reshape");
  Layout out;
  if (reshape_view(layout(), s, out)) return as_strided(out.shape, out.strides, out.offset);
  return contiguous().view(s);
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  if (static_cast<int>(dims.size()) != rank()) {
    throw ShapeError(ErrorMessage("permute: got " + std::to_string(dims.size()) + " dimensions for a " +
                                  std::to_string(rank()) + "-d tensor " + shape_str(shape_))
                         .fix("name every dimension once, e.g. permute(0, 2, 3, 1)")
                         .str());
  }
  std::vector<int64_t> norm;
  std::vector<char> seen(static_cast<size_t>(rank()), 0);
  for (int64_t d : dims) {
    const int n = check_dim(d, rank(), "permute", shape_);
    if (seen[static_cast<size_t>(n)]) {
      throw ShapeError(ErrorMessage("permute: dimension " + std::to_string(n) + " appears twice in " + shape_str(dims)).str());
    }
    seen[static_cast<size_t>(n)] = 1;
    norm.push_back(n);
  }
  const Layout l = permute_view(layout(), norm);
  return as_strided(l.shape, l.strides, l.offset);
}

Tensor Tensor::transpose(int64_t a, int64_t b) const {
  std::vector<int64_t> dims(static_cast<size_t>(rank()));
  for (int i = 0; i < rank(); ++i) dims[static_cast<size_t>(i)] = i;
  std::swap(dims[static_cast<size_t>(check_dim(a, rank(), "transpose", shape_))],
            dims[static_cast<size_t>(check_dim(b, rank(), "transpose", shape_))]);
  return permute(dims);
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t stop, int64_t step) const {
  const int d = check_dim(dim, rank(), "slice", shape_);
  if (step < 1) {
    throw IndexError(ErrorMessage("slice: step must be >= 1, got " + std::to_string(step))
                         .cause("negative steps (reversing) are not supported by views")
                         .fix("slice with a positive step")
                         .str());
  }
  const int64_t n = shape_[static_cast<size_t>(d)];
  auto clamp = [n](int64_t i) {
    if (i < 0) i += n;
    return std::min(std::max<int64_t>(i, 0), n);
  };
  const int64_t b = clamp(start);
  const int64_t e = std::max(b, clamp(stop));
  const Layout l = slice_view(layout(), d, b, e, step);
  return as_strided(l.shape, l.strides, l.offset);
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  const int d = check_dim(dim, rank(), "index", shape_);
  const int64_t n = shape_[static_cast<size_t>(d)];
  if (index < -n || index >= n) {
    throw IndexError(ErrorMessage("index " + std::to_string(index) + " is out of range for dimension " +
                                  std::to_string(d) + " of size " + std::to_string(n) + " (shape " + shape_str(shape_) + ")")
                         .fix("use an index in [" + std::to_string(-n) + ", " + std::to_string(n - 1) + "]")
                         .str());
  }
  const int64_t i = index < 0 ? index + n : index;
  Shape s = shape_;
  Strides st = strides_;
  const int64_t off = offset_ + i * strides_[static_cast<size_t>(d)];
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return as_strided(s, st, off);
}

Tensor Tensor::expand(const Shape& shape) const {
  Shape out;
  if (shape.size() < shape_.size() || !broadcast_shapes(shape_, shape, out) || out != shape) {
    throw ShapeError(ErrorMessage("expand: cannot broadcast " + shape_str(shape_) + " to " + shape_str(shape))
                         .cause("only size-1 dimensions can be stretched, and new dimensions go in front")
                         .str());
  }
  const Layout l = expand_view(layout(), shape);
  return as_strided(l.shape, l.strides, l.offset);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (rank() == 0) return reshape({1});
  const int s = check_dim(start_dim, rank(), "flatten", shape_);
  const int e = check_dim(end_dim, rank(), "flatten", shape_);
  if (s > e) throw ShapeError("flatten: start_dim " + std::to_string(s) + " is after end_dim " + std::to_string(e));
  Shape out(shape_.begin(), shape_.begin() + s);
  int64_t m = 1;
  for (int i = s; i <= e; ++i) m *= shape_[static_cast<size_t>(i)];
  out.push_back(m);
  out.insert(out.end(), shape_.begin() + e + 1, shape_.end());
  return reshape(out);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  const int d = check_dim(dim, rank() + 1, "unsqueeze", shape_);
  Shape s = shape_;
  Strides st = strides_;
  const int64_t inner = d < rank() ? strides_[static_cast<size_t>(d)] * shape_[static_cast<size_t>(d)] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, inner);
  return as_strided(s, st, offset_);
}

Tensor Tensor::squeeze(int64_t dim) const {
  const int d = check_dim(dim, rank(), "squeeze", shape_);
  if (shape_[static_cast<size_t>(d)] != 1) return *this;
  Shape s = shape_;
  Strides st = strides_;
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return as_strided(s, st, offset_);
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_, device(), storage_ ? storage_->name() : "");
  copy_tensor(t, *this);
  return t;
}

Tensor Tensor::to(const Device& d) const {
  if (d == device()) return *this;
  const HostTimer timer(HostPhase::Transfer);
  Tensor t;
  // A GPU output read on the host: its early copy, which waits for the steps that wrote it only
  // (host_copy.h); without one, a copy that waits for everything queued on the device.
  if (d.is_cpu() && storage_ && storage_->host_copy() && read_host_copy(*this, t)) return t;
  t = empty(shape_, dtype_, d, storage_ ? storage_->name() : "");
  copy_tensor(t, *this);
  return t;
}

void Tensor::copy_from(const Tensor& src) { copy_tensor(*this, src); }

void Tensor::fill(double value) { fill_tensor(*this, value); }

}  // namespace glassgrad
