// CUDA kernel registrations: each family's launcher file (kernels/cuda/<family>.cpp) lists its
// kernels with the dtypes the CUDA code supports (a declared family: from its rows, with
// GG_ADD_CUDA_KERNEL below); register_cuda_kernels() adds each (op, dtype) for which the op
// exists and the CPU has a kernel too, so the CUDA table never offers more than the tested CPU
// table (and test_cuda_ops.py compares every pair).
#pragma once
#include <vector>

#include "glassgrad/autodiff/family.h"
#include "glassgrad/runtime/kernel.h"

namespace glassgrad {
namespace cuda {

struct KernelDef {
  const char* op;
  KernelFn fn;
  std::vector<DType> dtypes;
  WorkspaceSizeFn workspace = nullptr;
  BatchKernelFn batch = nullptr;  // several consecutive steps in one launch (kernel.h)
};

// One per family, declared from the one list of families.
#define GG_FAMILY(family) void add_##family##_kernels(std::vector<KernelDef>& k);
#include "glassgrad/autodiff/families/families.def"

const std::vector<DType>& all_dtypes();    // float32, float64, int64, uint8, bool
const std::vector<DType>& float_dtypes();  // float32, float64

// A declared op's CUDA kernel (glassgrad/autodiff/family.h): its launcher (a KernelFn or a
// KernelEntry) for the row's dtypes.
inline KernelDef declared_kernel(const char* op, const KernelEntry& e, DTypeSet dtypes) {
  return KernelDef{op, e.fn, dtypes_of(dtypes), e.workspace, e.batch};
}

}  // namespace cuda
}  // namespace glassgrad

// Expands a row into add_<family>_kernels(std::vector<KernelDef>& k):
//   void add_pool_kernels(std::vector<KernelDef>& k) {
//   #define GG_OP GG_ADD_CUDA_KERNEL
//   #include "glassgrad/autodiff/families/pool.def"
//   }
#define GG_ADD_CUDA_KERNEL(Name, Kernel, DTypes, Inputs, Outputs, Formula) \
  k.push_back(::glassgrad::cuda::declared_kernel(#Name, ::glassgrad::kernel_entry(Kernel), ::glassgrad::DTypeSet::DTypes));
