// Lazy tracing (define-by-run recording, realize, plan cache).
#include "bindings.h"

namespace glassgrad {
void bind_lazy(py::module_& m) { (void)m; }
}  // namespace glassgrad
