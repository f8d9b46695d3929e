// _C.Tensor: the runtime's strided tensor, with NumPy conversion. Data always crosses between
// NumPy and glassgrad as a copy, so neither side can free memory the other still reads.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/runtime/device_hooks.h"
#include "glassgrad/runtime/host_times.h"
#include "glassgrad/runtime/pinned_memory.h"
#include "glassgrad/runtime/tensor.h"

namespace glassgrad {

namespace {

DType dtype_of(const py::array& a) {
  const py::dtype dt = a.dtype();
  const char kind = dt.kind();
  const size_t size = static_cast<size_t>(dt.itemsize());
  if (kind == 'f' && size == 4) return DType::Float32;
  if (kind == 'f' && size == 8) return DType::Float64;
  if (kind == 'f' && size == 2) return DType::Float16;
  if (kind == 'i' && size == 8) return DType::Int64;
  if (kind == 'i' && size == 4) return DType::Int32;
  if (kind == 'i' && size == 2) return DType::Int16;
  if (kind == 'i' && size == 1) return DType::Int8;
  if (kind == 'u' && size == 1) return DType::UInt8;
  if (kind == 'b') return DType::Bool;
  const std::string name = py::str(dt);
  ErrorMessage m("glassgrad.tensor: NumPy dtype " + name + " is not supported");
  m.detail("glassgrad holds bool, uint8, int8, int16, int32, int64, float16, float32 and float64 arrays");
  if (kind == 'i' || kind == 'u') {
    m.cause(name + " integers would have to be converted; labels and indices are int64 in glassgrad")
        .fix("y.astype(np.int64)");
  } else if (kind == 'f') {
    m.fix("x.astype(np.float32)");
  } else {
    m.fix("convert the array with .astype(np.float32) or .astype(np.int64)");
  }
  throw DTypeError(m.str());
}

py::dtype numpy_dtype(DType dt) {
  switch (dt) {
    case DType::Float32: return py::dtype::of<float>();
    case DType::Float64: return py::dtype::of<double>();
    case DType::Int64: return py::dtype::of<int64_t>();
    case DType::UInt8: return py::dtype::of<uint8_t>();
    case DType::Bool: return py::dtype::of<bool>();
    case DType::Int8: return py::dtype::of<int8_t>();
    case DType::Int16: return py::dtype::of<int16_t>();
    case DType::Int32: return py::dtype::of<int32_t>();
    case DType::Float16: return py::dtype("float16");
    case DType::BFloat16: break;
  }
  // As PyTorch's Tensor.numpy(): NumPy has no bfloat16.
  throw DTypeError(ErrorMessage("Tensor.numpy(): got unsupported dtype " + std::string(dtype_name(dt)))
                       .detail("NumPy has no bfloat16 type")
                       .fix("convert first: x.float().numpy()")
                       .str());
}

// The one way data enters glassgrad from NumPy: any strides (copied dense), any byte order
// (converted to the machine's: raw bytes of a big-endian array would be garbage values), any
// rank including 0-d (a scalar stays shape ()).
// Copies of at least this many bytes let other Python threads run meanwhile (below it, giving
// the lock up and taking it back costs more than the copy).
constexpr size_t kCopyWithoutGil = size_t{64} << 10;

Tensor from_numpy(const py::array& arr, const std::string& device, const std::string& name, bool pinned) {
  const HostTimer timer(HostPhase::Transfer);
  const DType dt = dtype_of(arr);
  py::array native = arr;
  if (!arr.dtype().attr("isnative").cast<bool>()) {
    native = arr.attr("astype")(arr.dtype().attr("newbyteorder")("="));
  }
  py::array c = py::array::ensure(native, py::array::c_style);
  if (!c) throw py::error_already_set();
  Shape shape(c.shape(), c.shape() + c.ndim());
  const Device dev = Device::parse(device);
  // Bound for a GPU: staged in pinned memory (host_staging), so the copy is queued and the host
  // goes on while the GPU still runs the previous step.
  Tensor host = pinned ? empty_pinned(shape, dt, name) : host_staging(shape, dt, dev, name);
  if (host.nbytes() > 0) {
    // Nothing Python is touched while copying (`c` stays referenced), so another thread runs:
    // the DataLoader's pin-memory thread copies a batch while the training loop goes on
    // (docs/data-loading.md, "How a batch reaches the GPU").
    std::optional<py::gil_scoped_release> release;
    if (host.nbytes() >= kCopyWithoutGil) release.emplace();
    std::memcpy(host.data_ptr(), c.data(), host.nbytes());
  }
  return dev.is_cpu() ? host : host.to(dev);
}

// A CPU tensor over the memory of `arr` itself, not a copy (shared memory: Tensor.share_memory_,
// docs/data-loading.md "Sharing a model between processes"). `arr` must be C-contiguous, writable
// and of the machine's byte order; it and `owner` (e.g. the object that holds the mapping's file)
// stay alive as long as the storage does.
Tensor wrap_array(const py::array& arr, const py::object& owner, const std::string& name) {
  const DType dt = dtype_of(arr);
  if (!(arr.flags() & py::array::c_style) || !arr.writeable() || !arr.dtype().attr("isnative").cast<bool>()) {
    throw ValueError(ErrorMessage("Tensor.wrap_array: the array must be C-contiguous, writable and of native byte order")
                         .fix("pass np.ascontiguousarray(a) of a writable buffer")
                         .str());
  }
  Shape shape(arr.shape(), arr.shape() + arr.ndim());
  auto* kept = new py::tuple(py::make_tuple(arr, owner));
  auto release = [kept] {
    if (!Py_IsInitialized()) return;  // at interpreter exit the buffer goes with the process
    py::gil_scoped_acquire gil;
    delete kept;
  };
  auto storage = Storage::wrap(const_cast<void*>(arr.data()), static_cast<size_t>(arr.nbytes()), Device::cpu(),
                               release, name);
  return Tensor::from_storage(storage, shape, contiguous_strides(shape), 0, dt);
}

py::array to_numpy(const Tensor& t) {
  const HostTimer timer(HostPhase::Transfer);
  Tensor host = t.device().is_cpu() ? t.contiguous() : t.to(Device::cpu());
  if (!host.is_contiguous()) host = host.contiguous();
  py::array out(numpy_dtype(t.dtype()), std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  if (host.nbytes() > 0) std::memcpy(out.mutable_data(), host.data_ptr(), host.nbytes());
  return out;
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<Tensor>(m, "Tensor", "A strided view over device memory (the runtime's tensor).")
      .def_static("from_numpy", &from_numpy, py::arg("array"), py::arg("device") = "cpu", py::arg("name") = "",
                  py::arg("pinned") = false,
                  "Copies a NumPy array into a new tensor on `device` (on the CPU: in pinned memory when `pinned`).")
      .def_static("wrap_array", &wrap_array, py::arg("array"), py::arg("owner") = py::none(), py::arg("name") = "",
                  "A CPU tensor over the array's own memory (no copy); the array stays alive as long as the tensor.")
      .def_static("empty", [](const py::handle& shape, const std::string& dtype, const std::string& device, const std::string& name) {
                    return Tensor::empty(shape_from(shape), dtype_from_name(dtype), Device::parse(device), name);
                  }, py::arg("shape"), py::arg("dtype") = "float32", py::arg("device") = "cpu", py::arg("name") = "")
      .def_static("full", [](const py::handle& shape, double value, const std::string& dtype, const std::string& device,
                             const std::string& name) {
                    return Tensor::full(shape_from(shape), value, dtype_from_name(dtype), Device::parse(device), name);
                  }, py::arg("shape"), py::arg("value"), py::arg("dtype") = "float32", py::arg("device") = "cpu",
                  py::arg("name") = "")
      .def("numpy", &to_numpy, "A NumPy copy of the elements.")
      .def_property_readonly("shape", [](const Tensor& t) { return py::tuple(py::cast(t.shape())); })
      .def_property_readonly("strides", [](const Tensor& t) { return py::tuple(py::cast(t.strides())); })
      .def_property_readonly("offset", &Tensor::offset)
      .def_property_readonly("dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device().str(); })
      .def_property_readonly("numel", &Tensor::numel)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      // An address handed out is the storage's for good: a lent one is claimed first (storage.h).
      .def_property_readonly("data_ptr", [](const Tensor& t) {
        if (t.storage()) t.storage()->claim();
        return reinterpret_cast<uintptr_t>(t.data_ptr());
      })
      .def_property_readonly("storage_ptr", [](const Tensor& t) {
        if (t.storage()) t.storage()->claim();
        return reinterpret_cast<uintptr_t>(t.storage() ? t.storage()->data() : nullptr);
      })
      .def_property_readonly("storage_lent", [](const Tensor& t) { return t.storage() && t.storage()->lent(); },
                             "Whether the storage views a CUDA graph's buffer until claimed (docs/cuda.md).")
      .def("_lend", [](const Tensor& t) {
        return Tensor::from_storage(Storage::lend(t.storage(), t.storage()->name()), t.shape(), t.strides(), t.offset(), t.dtype());
      }, "The same view over a lent storage of t's buffer, as a graph replay returns (tests of the bookkeeping).")
      .def_property_readonly("storage_nbytes", [](const Tensor& t) { return t.storage() ? t.storage()->nbytes() : 0; })
      .def_property_readonly("name", [](const Tensor& t) { return t.storage() ? t.storage()->name() : std::string(); })
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("is_pinned", [](const Tensor& t) { return is_pinned(t); })
      .def("view", [](const Tensor& t, const py::handle& s) { return t.view(shape_from(s)); })
      .def("reshape", [](const Tensor& t, const py::handle& s) { return t.reshape(shape_from(s)); })
      .def("permute", &Tensor::permute)
      .def("transpose", &Tensor::transpose)
      .def("slice", &Tensor::slice, py::arg("dim"), py::arg("start"), py::arg("stop"), py::arg("step") = 1)
      .def("select", &Tensor::select)
      .def("expand", [](const Tensor& t, const py::handle& s) { return t.expand(shape_from(s)); })
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("unsqueeze", &Tensor::unsqueeze)
      .def("squeeze", &Tensor::squeeze)
      .def("as_strided", &Tensor::as_strided)
      .def("contiguous", &Tensor::contiguous)
      .def("clone", &Tensor::clone)
      .def("to", [](const Tensor& t, const std::string& d) { return t.to(Device::parse(d)); })
      .def("copy_from", &Tensor::copy_from)
      .def("fill", &Tensor::fill)
      .def("__repr__", &Tensor::str);
}

}  // namespace glassgrad
