// The dropout mask (dropout_mask_impl.h) for baseline x86-64 and other CPUs, and the dispatch
// to this CPU's version.
#define GG_DROPOUT_NS dropout_mask_generic
#include "dropout_mask_impl.h"
#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

DropoutKeepFn dropout_keep_groups() {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return dropout_mask_avx512::keep_groups;
    case CpuIsa::Avx2: return dropout_mask_avx2::keep_groups;
    default: return dropout_mask_generic::keep_groups;
  }
}

}  // namespace cpu
}  // namespace glassgrad
