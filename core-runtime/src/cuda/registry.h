// CUDA kernel registrations: each family file (src/cuda/<family>.cpp) lists its kernels with
// the dtypes the CUDA code supports; register_cuda_kernels() adds each (op, dtype) for which
// the op exists and the CPU has a kernel too, so the CUDA table never offers more than the
// tested CPU table (and test_cuda_ops.py compares every pair).
#pragma once
#include <vector>

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

void add_creation_kernels(std::vector<KernelDef>& k);
void add_collective_kernels(std::vector<KernelDef>& k);
void add_movement_kernels(std::vector<KernelDef>& k);
void add_elementwise_kernels(std::vector<KernelDef>& k);
void add_reduction_kernels(std::vector<KernelDef>& k);
void add_matmul_kernels(std::vector<KernelDef>& k);
void add_conv_kernels(std::vector<KernelDef>& k);
void add_pool_kernels(std::vector<KernelDef>& k);
void add_norm_kernels(std::vector<KernelDef>& k);
void add_softmax_kernels(std::vector<KernelDef>& k);
void add_optimizer_kernels(std::vector<KernelDef>& k);
void add_fused_kernels(std::vector<KernelDef>& k);
void add_attention_kernels(std::vector<KernelDef>& k);
void add_recurrent_kernels(std::vector<KernelDef>& k);
void add_indexing_kernels(std::vector<KernelDef>& k);
void add_scan_kernels(std::vector<KernelDef>& k);

const std::vector<DType>& all_dtypes();    // float32, float64, int64, uint8, bool
const std::vector<DType>& float_dtypes();  // float32, float64

}  // namespace cuda
}  // namespace glassgrad
