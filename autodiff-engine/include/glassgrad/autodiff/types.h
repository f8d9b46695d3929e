// Basic value types shared by every glassgrad package: dtypes, devices and shapes.
// The autodiff engine sits at the bottom of the dependency graph, so these live here and the
// runtime reuses them. The engine treats a Device as an opaque tag: it never touches memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace glassgrad {

// Int8, Int16, Int32, Float16 and BFloat16 are storage types: tensors hold them and the Cast op
// converts between every pair, and any other op computes in compute_dtype() (docs/dtypes.md):
// the inputs are cast up and the results back where the op records (compute_dtypes.h).
enum class DType : uint8_t {
  Float32 = 0, Float64 = 1, Int64 = 2, UInt8 = 3, Bool = 4,
  Int8 = 5, Int16 = 6, Int32 = 7, Float16 = 8, BFloat16 = 9
};
constexpr int kNumDTypes = 10;

size_t dtype_size(DType dt);
// "float32", "float64", "int64", "uint8", "bool", "int8", "int16", "int32", "float16", "bfloat16"
const char* dtype_name(DType dt);
DType dtype_from_name(const std::string& name);  // throws DTypeError naming the valid choices
bool is_floating(DType dt);
// The dtype kernels compute a storage type in: int64 for int8/16/32, float32 for float16/bfloat16,
// the dtype itself otherwise.
DType compute_dtype(DType dt);
inline bool is_storage_only(DType dt) { return compute_dtype(dt) != dt; }

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  static Device cpu() { return {DeviceType::CPU, 0}; }
  static Device cuda(int i = 0) { return {DeviceType::CUDA, i}; }
  // Accepts "cpu", "cuda", "cuda:1", "gpu"; throws DeviceError otherwise.
  static Device parse(const std::string& text);
  std::string str() const;  // "cpu" or "cuda:0"
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool operator<(const Device& o) const {
    return type != o.type ? type < o.type : index < o.index;
  }
};

// Shapes and strides are written outermost-first (N, C, H, W); strides count elements.
using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

// Sizes are checked once, where shapes are made (Tensor::empty, every node's shape rule through
// infer_node, graph inputs, the planner): every dimension, element count, byte count and integer
// attribute is at most kMaxSize = 2^60, or a ShapeError says so. 2^60 bytes is far beyond any
// device; the headroom below int64's 2^63 is what makes the unchecked arithmetic after that
// point safe: a rule may add a few sizes (H + pad_top + pad_bottom) and a kernel may multiply an
// index by a stride (index * stride <= numel) without overflowing.
constexpr int64_t kMaxSize = int64_t(1) << 60;

// The element count. Throws ShapeError when a size is negative or the count exceeds kMaxSize
// (a shape with a zero size has no elements, however large the others).
int64_t numel(const Shape& shape);
// numel(shape) * dtype_size(dtype), with the same checks on the byte count.
size_t nbytes(const Shape& shape, DType dtype);
// Throws ShapeError "<what>: ..." unless every size is in [0, kMaxSize] and numel and nbytes are
// within kMaxSize: the one check every created shape passes.
void check_shape(const Shape& shape, DType dtype, const std::string& what);
// a * b and a + b for sizes (>= 0); false when the result would exceed kMaxSize.
bool size_mul(int64_t a, int64_t b, int64_t& out);
bool size_add(int64_t a, int64_t b, int64_t& out);
Strides contiguous_strides(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[32, 1, 28, 28]"
// NumPy broadcasting of two shapes; returns false (and leaves out untouched) if incompatible.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out);
// Normalizes a possibly negative axis against rank; returns -1 when out of range.
int normalize_axis(int64_t axis, int rank);

// What a value is, as far as shape and dtype rules are concerned.
struct TensorInfo {
  Shape shape;
  DType dtype = DType::Float32;
  Device device;

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return glassgrad::numel(shape); }
  size_t nbytes() const { return glassgrad::nbytes(shape, dtype); }
  std::string str() const;  // "[32, 16, 26, 26] float32 cpu"
  bool operator==(const TensorInfo& o) const {
    return shape == o.shape && dtype == o.dtype && device == o.device;
  }
};

}  // namespace glassgrad
