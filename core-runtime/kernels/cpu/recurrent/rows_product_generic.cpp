// Small-row products (rows_product_impl.h) for baseline x86-64 (SSE2: 4 floats a vector) and
// other CPUs, and the dispatch to this CPU's table.
#define GG_ROWS_NS rows_product_generic
#define GG_ROWS_VEC_BYTES 16
#include "rows_product_impl.h"
#include "glassgrad/runtime/cpu_features.h"

namespace glassgrad {
namespace cpu {

const RowsProductF32& rows_product_f32() {
  switch (cpu_isa()) {
    case CpuIsa::Avx512: return rows_product_avx512::rows_product();
    case CpuIsa::Avx2: return rows_product_avx2::rows_product();
    default: return rows_product_generic::rows_product();
  }
}

}  // namespace cpu
}  // namespace glassgrad
