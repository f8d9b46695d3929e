// CPU kernels: elementwise family.
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

void register_cpu_elementwise_kernels(KernelRegistry& r) { (void)r; }

}  // namespace glassgrad
