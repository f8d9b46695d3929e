// CUDA backend status and device information.
#include "bindings.h"

namespace glassgrad {
void bind_cuda(py::module_& m) {
  m.def("cuda_is_available", [] { return false; });
  m.def("cuda_why_unavailable", [] { return std::string("this build of glassgrad has no CUDA kernels"); });
}
}  // namespace glassgrad
