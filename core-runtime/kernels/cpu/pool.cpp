// CPU kernels: pool family.
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

void register_cpu_pool_kernels(KernelRegistry& r) { (void)r; }

}  // namespace glassgrad
