#include "registry.h"

#include "glassgrad/autodiff/op_schema.h"
#include "glassgrad/runtime/cuda.h"

namespace glassgrad {

namespace cuda {
const std::vector<DType>& all_dtypes() {
  // The storage types too: a CUDA kernel is registered only where the CPU has one (below), and
  // the CPU has them for the ops that take them as they are (Cast, Full, ToDevice).
  static const std::vector<DType> v{DType::Float32, DType::Float64, DType::Int64,   DType::UInt8,   DType::Bool,
                                    DType::Int8,    DType::Int16,   DType::Int32,   DType::Float16, DType::BFloat16};
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
