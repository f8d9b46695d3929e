// GELU and its backward over contiguous float32 runs, for the elementwise kernels' GELU and
// GELUBackward rows (kernels/cpu/elementwise.cpp calls these when the CPU has the instruction
// set and every operand of the run has unit stride). Compiled once per instruction set by
// gelu_avx2.cpp and gelu_avx512.cpp, which define GG_GELU_NS (the namespace of the copy): the
// compiler vectorizes the rows' own scalar functions (elementwise_scalar.h's host_float
// GELU, always inlined) at that width. Results are bit for bit the baseline kernels': the
// same operations (the runtime is compiled without FMA contraction), only more lanes at once.
#include <cstdint>

#include "glassgrad/autodiff/elementwise_scalar.h"

namespace glassgrad {
namespace cpu {
namespace GG_GELU_NS {

void gelu_f32(float* out, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = gg_gelu<float>(x[i]);
}

void gelu_backward_f32(float* out, const float* grad, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = grad[i] * gg_gelu_grad<float>(x[i]);
}

}  // namespace GG_GELU_NS
}  // namespace cpu
}  // namespace glassgrad
