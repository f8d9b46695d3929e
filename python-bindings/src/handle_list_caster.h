// Lists of handles (std::vector<lazy::Handle*> arguments: optimizer.step's lazy_have_grads,
// lazy_unrealized and lazy_views, zero_grad's clear_grads, ...) converted without pybind11's
// per-item caster lookup. pybind11's list caster runs its generic caster for each item, which
// looks up the type's record by the C++ type (about 350 instructions an item; a ResNet-18's 62
// parameters cost about 22k a call, docs/performance.md "eleventh round"). Here an exact
// _C.Lazy item's pointer is read from its instance as that caster reads it; anything else (a
// subclass, a wrong type) and any sequence other than a list go through pybind11's own casters,
// with their results and errors. None, which pybind11's caster turns into a null pointer that
// the runtime would dereference, is refused as a wrong type (TypeError): no list holds a null.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "glassgrad/runtime/lazy.h"

namespace glassgrad {

// The lazy::Handle an exact _C.Lazy object wraps, or null for any other object (or a Lazy whose
// value is not set): then pybind11's caster decides.
inline lazy::Handle* exact_handle(PyObject* obj) {
  static const pybind11::detail::type_info* const info = pybind11::detail::get_type_info(typeid(lazy::Handle));
  if (info == nullptr || Py_TYPE(obj) != info->type) return nullptr;
  void* v = reinterpret_cast<pybind11::detail::instance*>(obj)->get_value_and_holder(info).value_ptr();
  return static_cast<lazy::Handle*>(v);
}

}  // namespace glassgrad

namespace pybind11 {
namespace detail {

template <>
struct type_caster<std::vector<glassgrad::lazy::Handle*>>
    : list_caster<std::vector<glassgrad::lazy::Handle*>, glassgrad::lazy::Handle*> {
  bool load(handle src, bool convert) {
    if (!PyList_CheckExact(src.ptr())) {
      if (!list_caster<std::vector<glassgrad::lazy::Handle*>, glassgrad::lazy::Handle*>::load(src, convert)) return false;
      for (glassgrad::lazy::Handle* h : value)
        if (h == nullptr) return false;  // None: refused (pybind11's TypeError), never dereferenced
      return true;
    }
    const Py_ssize_t n = PyList_GET_SIZE(src.ptr());
    value.clear();
    value.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyList_GET_ITEM(src.ptr(), i);
      if (glassgrad::lazy::Handle* h = glassgrad::exact_handle(item)) {
        value.push_back(h);
        continue;
      }
      make_caster<glassgrad::lazy::Handle*> conv;
      if (!conv.load(item, convert)) return false;
      glassgrad::lazy::Handle* h = cast_op<glassgrad::lazy::Handle*>(std::move(conv));
      if (h == nullptr) return false;  // None: refused (pybind11's TypeError), never dereferenced
      value.push_back(h);
    }
    return true;
  }
};

}  // namespace detail
}  // namespace pybind11
