// glassgrad._C: pybind11 glue only. Each bind_<area> function exposes one area and is defined in
// bind_<area>.cpp (named apart from the runtime headers, e.g. lazy.h, cuda.h); none holds logic.
#pragma once
#include <pybind11/pybind11.h>

#include "glassgrad/autodiff/attrs.h"
#include "glassgrad/autodiff/types.h"
#include "glassgrad/runtime/lazy.h"
#include "handle_list_caster.h"

namespace glassgrad {
namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_graph(py::module_& m);
void bind_memory(py::module_& m);
void bind_lazy(py::module_& m);
void bind_cuda(py::module_& m);
void bind_debug(py::module_& m);
void bind_distributed(py::module_& m);
void bind_pinned(py::module_& m);
void bind_frames(py::module_& m);
void bind_attributes(py::module_& m);
void bind_module_call(py::module_& m);

// Conversions between Python values and the C++ value types.
Attrs attrs_from_dict(const py::dict& d);
py::dict attrs_to_dict(const Attrs& a);
// attrs_from_dict's result made once per distinct contents of the dict and shared
// (bind_shared_attrs.cpp): what recording an op converts its attributes with.
lazy::SharedAttrs shared_attrs_from_dict(const py::dict& d);
Shape shape_from(const py::handle& h);

// "file.py:42" of the innermost Python frame whose file does not start with package_dir ("" when
// every frame does): the source line every recorded node carries (bind_frames.cpp).
py::str user_source(const py::str& package_dir);

// The thread's (scopes, roles, layers) tuple of glassgrad._trace._local (borrowed), read once per
// thread and kept (bind_lazy.cpp): what recorded ops and Module calls push and read. Throws
// py::error_already_set or InternalError.
PyObject* thread_stacks(PyObject* stacks);

}  // namespace glassgrad
