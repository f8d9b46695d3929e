#include "cuda/registry.h"

#include "glassgrad/autodiff/op_schema.h"

#ifndef GLASSGRAD_HAVE_CUDA_KERNELS
#define GLASSGRAD_HAVE_CUDA_KERNELS 0
#endif

namespace glassgrad {

namespace cuda {
const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v{DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool};
  return v;
}
const std::vector<DType>& float_dtypes() {
  static const std::vector<DType> v{DType::Float32, DType::Float64};
  return v;
}
}  // namespace cuda

void register_cuda_kernels(KernelRegistry& r) {
#if GLASSGRAD_HAVE_CUDA_KERNELS
  std::vector<cuda::KernelDef> defs;
  cuda::add_creation_kernels(defs);
  cuda::add_movement_kernels(defs);
  cuda::add_elementwise_kernels(defs);
  cuda::add_reduction_kernels(defs);
  cuda::add_matmul_kernels(defs);
  cuda::add_conv_kernels(defs);
  cuda::add_pool_kernels(defs);
  cuda::add_norm_kernels(defs);
  cuda::add_softmax_kernels(defs);
  cuda::add_optimizer_kernels(defs);
  cuda::add_fused_kernels(defs);
  cuda::add_attention_kernels(defs);
  cuda::add_collective_kernels(defs);
  cuda::add_recurrent_kernels(defs);
  cuda::add_indexing_kernels(defs);
  cuda::add_scan_kernels(defs);
  for (const auto& d : defs) {
    if (!OpRegistry::instance().find(d.op)) continue;  // op not defined in this build (yet)
    for (DType dt : d.dtypes) {
      if (r.find(d.op, DeviceType::CPU, dt)) r.add(d.op, DeviceType::CUDA, dt, d.fn, d.workspace, d.batch);
    }
  }
#else
  (void)r;
#endif
}

}  // namespace glassgrad
