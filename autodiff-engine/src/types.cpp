#include "glassgrad/autodiff/types.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

size_t dtype_size(DType dt) {
  switch (dt) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::UInt8: return 1;
    case DType::Bool: return 1;
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 4;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
  }
  return 0;
}

const char* dtype_name(DType dt) {
  switch (dt) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::UInt8: return "uint8";
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
  }
  return "?";
}

DType dtype_from_name(const std::string& name) {
  if (name == "float32" || name == "float") return DType::Float32;
  if (name == "float64" || name == "double") return DType::Float64;
  if (name == "int64" || name == "long") return DType::Int64;
  if (name == "uint8") return DType::UInt8;
  if (name == "bool") return DType::Bool;
  if (name == "int8") return DType::Int8;
  if (name == "int16" || name == "short") return DType::Int16;
  if (name == "int32" || name == "int") return DType::Int32;
  if (name == "float16" || name == "half") return DType::Float16;
  if (name == "bfloat16") return DType::BFloat16;
  throw DTypeError(ErrorMessage("unsupported dtype '" + name + "'")
                       .detail("glassgrad tensors hold bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
                               "float32 or float64")
                       .fix("convert first, e.g. np.asarray(x).astype(np.float32) for data or "
                            ".astype(np.int64) for labels"));
}

bool is_floating(DType dt) {
  return dt == DType::Float32 || dt == DType::Float64 || dt == DType::Float16 || dt == DType::BFloat16;
}

DType compute_dtype(DType dt) {
  switch (dt) {
    case DType::Int8:
    case DType::Int16:
    case DType::Int32: return DType::Int64;
    case DType::Float16:
    case DType::BFloat16: return DType::Float32;
    default: return dt;
  }
}

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda" || text == "gpu") return cuda(0);
  const std::string prefix = "cuda:";
  if (text.rfind(prefix, 0) == 0 && text.size() > prefix.size()) {
    const std::string idx = text.substr(prefix.size());
    bool digits = !idx.empty() && idx.size() < 4;
    for (char c : idx) digits = digits && c >= '0' && c <= '9';
    if (digits) return cuda(std::stoi(idx));
  }
  throw DeviceError(ErrorMessage("unknown device '" + text + "'")
                        .detail("devices are written 'cpu', 'cuda' or 'cuda:<index>'")
                        .fix("device='cpu' or device='cuda'"));
}

std::string Device::str() const {
  return type == DeviceType::CPU ? std::string("cpu") : "cuda:" + std::to_string(index);
}

bool size_mul(int64_t a, int64_t b, int64_t& out) {
  if (a < 0 || b < 0) return false;
  if (a == 0 || b == 0) {
    out = 0;
    return true;
  }
  if (a > kMaxSize / b) return false;
  out = a * b;
  return true;
}

bool size_add(int64_t a, int64_t b, int64_t& out) {
  if (a < 0 || b < 0 || a > kMaxSize - b) return false;
  out = a + b;
  return true;
}

namespace {
// "2^62" for powers of two, else the number: sizes past the limit are easier to read that way.
std::string size_str(long double v) {
  for (int e = 31; e < 400; ++e) {
    if (v == std::ldexp(1.0L, e)) return "2^" + std::to_string(e);
  }
  std::ostringstream os;
  if (v < 1e18L) os << static_cast<unsigned long long>(v);
  else os << static_cast<double>(v);
  return os.str();
}

// The exact size (as a long double) when a product or byte count is out of range, for messages.
long double product(const Shape& shape) {
  long double p = 1;
  for (int64_t d : shape) p *= static_cast<long double>(d);
  return p;
}

[[noreturn]] void size_error(const Shape& shape, DType dtype, const std::string& what, bool bytes) {
  const std::string prefix = what.empty() ? std::string() : what + ": ";
  for (int64_t d : shape) {
    if (d < 0) {
      throw ShapeError(ErrorMessage(prefix + "a tensor of shape " + shape_str(shape) + " has a negative size")
                           .fix("sizes must be >= 0")
                           .str());
    }
  }
  const long double n = product(shape);
  const std::string count =
      n == 0 ? "a size exceeds 2^60"
             : size_str(n) + " elements" +
                   (bytes ? " of " + std::to_string(dtype_size(dtype)) + " bytes (" +
                                size_str(n * static_cast<long double>(dtype_size(dtype))) + " bytes)"
                          : std::string());
  ErrorMessage m(prefix + "a tensor of shape " + shape_str(shape) + " " + (bytes ? dtype_name(dtype) : "") +
                 (bytes ? " " : "") + "is too large: " + count);
  m.detail("glassgrad counts elements and bytes in 64 bits and allows at most 2^60 of either")
      .cause("a size computed from another (an expand or reshape to a huge shape, a wrong axis), or a "
             "shape that multiplies out larger than intended")
      .fix("check the sizes: no device can hold 2^60 bytes");
  throw ShapeError(m.str());
}
}  // namespace

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) size_error(shape, DType::UInt8, "", false);
  }
  for (int64_t d : shape) {
    if (!size_mul(n, d, n)) {
      // A zero anywhere makes the count 0 whatever the other sizes are.
      for (int64_t z : shape) {
        if (z == 0) return 0;
      }
      size_error(shape, DType::UInt8, "", false);
    }
  }
  return n;
}

size_t nbytes(const Shape& shape, DType dtype) {
  int64_t b = 0;
  if (!size_mul(numel(shape), static_cast<int64_t>(dtype_size(dtype)), b)) size_error(shape, dtype, "", true);
  return static_cast<size_t>(b);
}

void check_shape(const Shape& shape, DType dtype, const std::string& what) {
  int64_t n = 1, b = 0;
  bool ok = true;
  for (int64_t d : shape) ok = ok && d >= 0 && d <= kMaxSize;
  if (ok) {
    for (int64_t d : shape) {
      if (!size_mul(n, d, n)) {
        ok = std::find(shape.begin(), shape.end(), 0) != shape.end();
        n = 0;
        break;
      }
    }
  }
  ok = ok && size_mul(n, static_cast<int64_t>(dtype_size(dtype)), b);
  if (!ok) size_error(shape, dtype, what, true);
}

Strides contiguous_strides(const Shape& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out) {
  const size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  out = std::move(r);
  return true;
}

int normalize_axis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return -1;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string TensorInfo::str() const {
  return shape_str(shape) + " " + dtype_name(dtype) + " " + device.str();
}

std::string ErrorMessage::str() const {
  std::string s = head_;
  for (const auto& l : lines_) s += "\n  " + l;
  if (!cause_.empty()) s += "\n  cause: " + cause_;
  if (!fix_.empty()) s += "\n  fix: " + fix_;
  return s;
}

}  // namespace glassgrad
