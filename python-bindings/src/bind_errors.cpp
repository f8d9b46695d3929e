// Maps the C++ error types to Python exceptions that derive from glassgrad.GlassgradError and
// from the matching builtin, so `except ValueError` keeps working for users who expect it.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
// PyTorch raises RuntimeError for most of what glassgrad words as a shape, argument, dtype, memory
// or non-finite error (a broadcast mismatch, mm of unfitting matrices, view of an impossible shape,
// backward of a tensor without grad, bool() of several elements): those classes derive from
// RuntimeError too (runtime_too), so `except RuntimeError` written for PyTorch catches them.
py::object make_class(py::module_& m, const char* name, py::handle base1, py::object base2, const char* doc,
                      bool runtime_too = false) {
  py::dict ns;
  ns["__module__"] = "glassgrad";
  ns["__doc__"] = doc;
  py::object builtins = py::module_::import("builtins");
  py::tuple bases = py::make_tuple(base1, base2);
  if (runtime_too) bases = py::make_tuple(base1, base2, builtins.attr("RuntimeError"));
  py::object cls = builtins.attr("type")(name, bases, ns);
  (void)0;
  m.attr(name) = cls;
  return cls;
}
}  // namespace

void bind_errors(py::module_& m) {
  py::object builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__module__"] = "glassgrad";
  ns["__doc__"] = "Base class of every error glassgrad raises.";
  static py::handle base = builtins.attr("type")("GlassgradError", py::make_tuple(builtins.attr("Exception")), ns).release();
  m.attr("GlassgradError") = base;
  static py::handle shape = make_class(m, "ShapeError", base, builtins.attr("ValueError"), "Shapes do not fit the op.", true).release();
  static py::handle value = make_class(m, "InvalidArgumentError", base, builtins.attr("ValueError"), "A bad argument value.", true).release();
  static py::handle index = make_class(m, "GlassgradIndexError", base, builtins.attr("IndexError"), "An index or slice out of range.").release();
  static py::handle dtype = make_class(m, "DTypeError", base, builtins.attr("TypeError"), "A dtype the op does not accept.", true).release();
  static py::handle device = make_class(m, "DeviceError", base, builtins.attr("RuntimeError"), "Tensors on different or unavailable devices.").release();
  static py::handle oom = make_class(m, "OutOfMemoryError", base, builtins.attr("MemoryError"), "Over the memory limit or out of device memory.", true).release();
  static py::handle unsupported = make_class(m, "UnsupportedError", base, builtins.attr("NotImplementedError"), "A configuration glassgrad does not support.").release();
  static py::handle cuda = make_class(m, "CudaError", base, builtins.attr("RuntimeError"), "A CUDA driver call or kernel failed.").release();
  static py::handle comm = make_class(m, "CommunicationError", base, builtins.attr("RuntimeError"), "A collective (all-reduce, broadcast) failed, timed out, or has no process group.").release();
  static py::handle internal = make_class(m, "InternalError", base, builtins.attr("RuntimeError"), "A glassgrad bug: please report it.").release();
  static py::handle state = make_class(m, "TensorStateError", base, builtins.attr("RuntimeError"),
                                       "What a tensor's state forbids (PyTorch's RuntimeError there): an in-place write "
                                       "of a value backward still needs, a second backward through a freed graph, a "
                                       "view memory cannot give.").release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ShapeError& e) {
      PyErr_SetString(shape.ptr(), e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(value.ptr(), e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(index.ptr(), e.what());
    } catch (const DTypeError& e) {
      PyErr_SetString(dtype.ptr(), e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(device.ptr(), e.what());
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(oom.ptr(), e.what());
    } catch (const UnsupportedError& e) {
      PyErr_SetString(unsupported.ptr(), e.what());
    } catch (const CudaError& e) {
      PyErr_SetString(cuda.ptr(), e.what());
    } catch (const CommunicationError& e) {
      PyErr_SetString(comm.ptr(), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(internal.ptr(), e.what());
    } catch (const StateError& e) {
      PyErr_SetString(state.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(base.ptr(), e.what());
    }
  });
}

}  // namespace glassgrad
