// Direct Conv2D forward (conv_direct.h) for baseline x86-64 / any CPU, and the run-time choice
// of the copy for this CPU's ISA.
#define GG_CONV_NS conv_direct_generic
#define GG_CONV_VEC_BYTES 16
#define GG_CONV_KB_F32 6
#define GG_CONV_NV_F32 2
#define GG_CONV_KB_F64 6
#define GG_CONV_NV_F64 2
#include "conv_direct_impl.h"

#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

const ConvDirectKernel<float>& conv_direct_kernel_f32() {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return conv_direct_avx512::kernel_f32();
    case CpuIsa::Avx2: return conv_direct_avx2::kernel_f32();
    default: return conv_direct_generic::kernel_f32();
  }
}

const ConvDirectKernel<double>& conv_direct_kernel_f64() {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return conv_direct_avx512::kernel_f64();
    case CpuIsa::Avx2: return conv_direct_avx2::kernel_f64();
    default: return conv_direct_generic::kernel_f64();
  }
}

}  // namespace cpu
}  // namespace glassgrad
