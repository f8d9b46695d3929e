// CPU kernels: optimizer family.
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

void register_cpu_optimizer_kernels(KernelRegistry& r) { (void)r; }

}  // namespace glassgrad
