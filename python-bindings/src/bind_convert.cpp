#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

namespace {
// A Python int as int64, or a ValueError naming `what` (pybind11's own cast error says neither
// the value nor where it came from).
int64_t int64_from(const py::handle& v, const std::string& what) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0) {
    throw ValueError(ErrorMessage(what + " = " + std::string(py::str(v)) + " does not fit in 64 bits")
                         .detail("sizes, strides, paddings and axes are at most 2^60 in magnitude")
                         .fix("check the value")
                         .str());
  }
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(x);
}
}  // namespace

Attrs attrs_from_dict(const py::dict& d) {
  Attrs a;
  for (auto kv : d) {
    const std::string key = py::str(kv.first);
    py::handle v = kv.second;
    if (py::isinstance<py::bool_>(v)) {
      a.set(key, v.cast<bool>());
    } else if (py::isinstance<py::int_>(v)) {
      a.set(key, int64_from(v, "attribute '" + key + "'"));
    } else if (py::isinstance<py::float_>(v)) {
      a.set(key, v.cast<double>());
    } else if (py::isinstance<py::str>(v)) {
      a.set(key, v.cast<std::string>());
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      bool all_int = true;
      for (auto e : seq) all_int = all_int && py::isinstance<py::int_>(e) && !py::isinstance<py::bool_>(e);
      if (all_int) {
        std::vector<int64_t> ints;
        for (auto e : seq) ints.push_back(int64_from(e, "attribute '" + key + "'"));
        a.set(key, std::move(ints));
      } else {
        a.set(key, seq.cast<std::vector<double>>());
      }
    } else if (py::hasattr(v, "__index__")) {
      a.set(key, int64_from(v.attr("__index__")(), "attribute '" + key + "'"));
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
  if (py::isinstance<py::int_>(h) || py::hasattr(h, "__index__")) return {int64_from(h.attr("__index__")(), "size")};
  Shape s;
  for (auto e : py::reinterpret_borrow<py::sequence>(h)) {
    if (!py::hasattr(e, "__index__")) {
      throw ValueError("a shape holds integers, got " + std::string(py::str(py::type::handle_of(e).attr("__name__"))));
    }
    s.push_back(int64_from(e.attr("__index__")(), "size"));
  }
  return s;
}

}  // namespace glassgrad
