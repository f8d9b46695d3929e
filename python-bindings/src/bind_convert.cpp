#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
// A Python int as int64, or a ValueError naming the attribute `key` ("size" when key is null: a
// shape's entry). The name is only spelled out on failure: this runs for every integer of every
// recorded op's attributes.
int64_t int64_from(const py::handle& v, const std::string* key) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0) {
    const std::string what = key ? "attribute '" + *key + "'" : std::string("size");
    throw ValueError(ErrorMessage(what + " = " + std::string(py::str(v)) + " does not fit in 64 bits")
                         .detail("sizes, strides, paddings and axes are at most 2^60 in magnitude")
                         .fix("check the value")
                         .str());
  }
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(x);
}

// A str as UTF-8 (the encoding errors of py::str's conversion when it is not valid).
std::string utf8_of(PyObject* s) {
  Py_ssize_t n = 0;
  const char* c = PyUnicode_AsUTF8AndSize(s, &n);
  if (c == nullptr) throw py::error_already_set();
  return std::string(c, static_cast<size_t>(n));
}

// A list or tuple attribute: int64s when every entry is an int (not a bool; an empty sequence
// too), else doubles as pybind11 converts them.
AttrValue sequence_attr(const py::handle& v, const std::string& key) {
  PyObject* seq = v.ptr();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  bool all_int = true;
  for (Py_ssize_t i = 0; i < n && all_int; ++i) all_int = PyLong_Check(items[i]) && !PyBool_Check(items[i]);
  if (!all_int) return py::reinterpret_borrow<py::sequence>(v).cast<std::vector<double>>();
  std::vector<int64_t> ints;
  ints.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) ints.push_back(int64_from(items[i], &key));
  return ints;
}
}  // namespace

// Every recorded op converts its attributes here, so the common types are tested with the C
// API's type checks (bool before int: a bool is an int to Python) and no message is built
// unless a conversion fails.
Attrs attrs_from_dict(const py::dict& d) {
  Attrs a;
  PyObject* k = nullptr;
  PyObject* val = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(d.ptr(), &pos, &k, &val)) {
    const std::string key = PyUnicode_Check(k) ? utf8_of(k) : std::string(py::str(k));
    py::handle v(val);
    if (PyBool_Check(val)) {
      a.set(key, val == Py_True);
    } else if (PyLong_Check(val)) {
      a.set(key, int64_from(v, &key));
    } else if (PyFloat_Check(val)) {
      a.set(key, PyFloat_AS_DOUBLE(val));
    } else if (PyUnicode_Check(val)) {
      a.set(key, utf8_of(val));
    } else if (PyList_Check(val) || PyTuple_Check(val)) {
      a.set(key, sequence_attr(v, key));
    } else if (py::hasattr(v, "__index__")) {
      a.set(key, int64_from(v.attr("__index__")(), &key));
    } else if (py::hasattr(v, "__float__")) {
      a.set(key, v.attr("__float__")().cast<double>());
    } else {
      throw ValueError("attribute '" + key + "' has unsupported type " +
                       std::string(py::str(py::type::handle_of(v).attr("__name__"))));
    }
  }
  return a;
}

py::dict attrs_to_dict(const Attrs& a) {
  py::dict d;
  for (const auto& kv : a.items()) {
    std::visit([&](const auto& x) { d[py::str(kv.first)] = py::cast(x); }, kv.second);
  }
  return d;
}

Shape shape_from(const py::handle& h) {
  if (py::isinstance<py::int_>(h) || py::hasattr(h, "__index__")) return {int64_from(h.attr("__index__")(), nullptr)};
  Shape s;
  for (auto e : py::reinterpret_borrow<py::sequence>(h)) {
    if (!py::hasattr(e, "__index__")) {
      throw ValueError("a shape holds integers, got " + std::string(py::str(py::type::handle_of(e).attr("__name__"))));
    }
    s.push_back(int64_from(e.attr("__index__")(), nullptr));
  }
  return s;
}

}  // namespace glassgrad
