// CUDA movement kernels (families/movement.def): the CPU backend's functions
// (runtime/movement_kernels.h), which only copy and fill through the device hooks (copy.cpp, any
// strides, any device).
#include "registry.h"
#include "glassgrad/runtime/movement_kernels.h"

namespace glassgrad {
namespace cuda {

void add_movement_kernels(std::vector<KernelDef>& k) {
  using namespace movement;
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/movement.def"
}

}  // namespace cuda
}  // namespace glassgrad
