#include <pybind11/stl.h>

#include "bindings.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

Attrs attrs_from_dict(const py::dict& d) {
  Attrs a;
  for (auto kv : d) {
    const std::string key = py::str(kv.first);
    py::handle v = kv.second;
    if (py::isinstance<py::bool_>(v)) {
      a.set(key, v.cast<bool>());
    } else if (py::isinstance<py::int_>(v)) {
      a.set(key, v.cast<int64_t>());
    } else if (py::isinstance<py::float_>(v)) {
      a.set(key, v.cast<double>());
    } else if (py::isinstance<py::str>(v)) {
      a.set(key, v.cast<std::string>());
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      bool all_int = true;
      for (auto e : seq) all_int = all_int && py::isinstance<py::int_>(e) && !py::isinstance<py::bool_>(e);
      if (all_int) a.set(key, seq.cast<std::vector<int64_t>>());
      else a.set(key, seq.cast<std::vector<double>>());
    } else if (py::hasattr(v, "__index__")) {
      a.set(key, v.attr("__index__")().cast<int64_t>());
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
  if (py::isinstance<py::int_>(h)) return {h.cast<int64_t>()};
  return h.cast<std::vector<int64_t>>();
}

}  // namespace glassgrad
