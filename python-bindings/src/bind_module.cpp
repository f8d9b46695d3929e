#include "bindings.h"

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  m.doc() = "glassgrad's C++ core: tensors, kernels, graphs, plans (pybind11 glue only)";
  m.attr("__version__") = GLASSGRAD_VERSION;
  glassgrad::bind_errors(m);
  glassgrad::bind_tensor(m);
  glassgrad::bind_ops(m);
  glassgrad::bind_graph(m);
  glassgrad::bind_memory(m);
  glassgrad::bind_lazy(m);
  glassgrad::bind_cuda(m);
  glassgrad::bind_debug(m);
  glassgrad::bind_distributed(m);
  glassgrad::bind_pinned(m);
  glassgrad::bind_frames(m);
  glassgrad::bind_attributes(m);
  glassgrad::bind_module_call(m);
}
