// CPU kernels: matmul family.
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {

void register_cpu_matmul_kernels(KernelRegistry& r) { (void)r; }

}  // namespace glassgrad
