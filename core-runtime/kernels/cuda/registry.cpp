#include "registry.h"

#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/runtime/cuda.h"

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
  if (!cuda::built_with_kernels()) return;
  std::vector<cuda::KernelDef> defs;
#define GG_FAMILY(family) cuda::add_##family##_kernels(defs);
#include "glassgrad/autodiff/families/families.def"
  for (const auto& d : defs) {
    if (!OpRegistry::instance().find(d.op)) continue;  // op not defined in this build (yet)
    for (DType dt : d.dtypes) {
      if (r.find(d.op, DeviceType::CPU, dt)) r.add(d.op, DeviceType::CUDA, dt, d.fn, d.workspace, d.batch);
    }
  }
}

}  // namespace glassgrad
