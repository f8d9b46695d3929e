// The properties of a lazy handle (_C.Lazy, what glassgrad.Tensor holds as `_h`) that every layer
// call of a training step reads: shape, dtype, device, realized, requires_grad, is_view. A
// pybind11 property is a Python property whose getter goes through pybind11's dispatcher (the
// argument's caster, the overload loop, the result's caster: about 1,100 instructions a read),
// and a ResNet-18 forward reads about 120 of them (docs/performance.md, "The plain loop's host
// work"). These are CPython getset descriptors on the same class instead: each reads the value
// as the pybind11 property did and gives the same Python object (a tuple of ints, a str, a bool).
//
// Glue only: the reads are the handle's accessors; nothing here decides anything. Installed by
// bind_lazy after the class is made, replacing its properties of the same names.
#include <Python.h>

#include <array>

#include "bindings.h"

namespace glassgrad {

namespace {

// The handle `self` holds: an exact _C.Lazy is read as pybind11's caster reads it (its value
// pointer), a subclass through the caster. Null with a Python error set when it holds none.
lazy::Handle* handle_of(PyObject* self) {
  static const py::detail::type_info* const info = py::detail::get_type_info(typeid(lazy::Handle));
  if (info != nullptr && Py_TYPE(self) == info->type) {
    void* v = reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder(info).value_ptr();
    if (v != nullptr) return static_cast<lazy::Handle*>(v);
  }
  try {
    return py::reinterpret_borrow<py::object>(self).cast<lazy::Handle*>();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  }
  return nullptr;
}

// The interned name of each dtype, made once (a read gives a new reference to it).
PyObject* dtype_str(DType dt) {
  static std::array<PyObject*, kNumDTypes> names = [] {
    std::array<PyObject*, kNumDTypes> out{};
    for (int i = 0; i < kNumDTypes; ++i) {
      out[static_cast<size_t>(i)] = PyUnicode_InternFromString(dtype_name(static_cast<DType>(i)));
    }
    return out;
  }();
  PyObject* s = names[static_cast<size_t>(dt)];
  if (s == nullptr) {
    PyErr_SetString(PyExc_SystemError, "Lazy.dtype: a dtype's name could not be made");
    return nullptr;
  }
  Py_INCREF(s);
  return s;
}

// Each getter: the value's field as the pybind11 property gave it. value() may re-derive the
// value from its storage (Handle::value), which allocates: a C++ exception becomes Python's.
template <typename F>
PyObject* read_with(PyObject* self, F&& get) {
  lazy::Handle* h = handle_of(self);
  if (h == nullptr) return nullptr;
  try {
    return get(*h);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* get_shape(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) -> PyObject* {
    const Shape& shape = h.value()->info.shape;
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
    if (t == nullptr) return nullptr;
    for (size_t i = 0; i < shape.size(); ++i) {
      PyObject* d = PyLong_FromLongLong(shape[i]);
      if (d == nullptr) {
        Py_DECREF(t);
        return nullptr;
      }
      PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), d);
    }
    return t;
  });
}
PyObject* get_dtype(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) { return dtype_str(h.value()->info.dtype); });
}
PyObject* get_device(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) {
    const std::string s = h.value()->info.device.str();
    return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  });
}
PyObject* get_realized(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) { return PyBool_FromLong(h.value()->realized()); });
}
PyObject* get_requires_grad(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) { return PyBool_FromLong(h.value()->requires_grad); });
}
PyObject* get_is_view(PyObject* self, void*) {
  return read_with(self, [](const lazy::Handle& h) { return PyBool_FromLong(!h.chain().empty()); });
}

// Static: a getset descriptor keeps a pointer to its entry for the interpreter's life.
PyGetSetDef kReads[] = {
    {"shape", get_shape, nullptr, "The value's shape, a tuple of ints.", nullptr},
    {"dtype", get_dtype, nullptr, "The value's dtype name ('float32', ...).", nullptr},
    {"device", get_device, nullptr, "The value's device ('cpu', 'cuda:0', ...).", nullptr},
    {"realized", get_realized, nullptr, "Whether the value is computed (stored).", nullptr},
    {"requires_grad", get_requires_grad, nullptr, "Whether the value requires gradients.", nullptr},
    {"is_view", get_is_view, nullptr, "Whether the handle is a view of another tensor's storage.", nullptr},
};

}  // namespace

void bind_handle_reads(const py::object& lazy_class) {
  auto* type = reinterpret_cast<PyTypeObject*>(lazy_class.ptr());
  for (PyGetSetDef& def : kReads) {
    py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewGetSet(type, &def));
    if (!descr) throw py::error_already_set();
    if (PyObject_SetAttrString(lazy_class.ptr(), def.name, descr.ptr()) != 0) throw py::error_already_set();
  }
}

}  // namespace glassgrad
