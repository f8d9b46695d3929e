// The GELU loops compiled per instruction set (gelu_impl.h): the elementwise kernels' GELU and
// GELUBackward rows run them over contiguous float32 runs when cpu_isa() has that set.
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {
namespace gelu_avx2 {
void gelu_f32(float* out, const float* x, int64_t n);
void gelu_backward_f32(float* out, const float* grad, const float* x, int64_t n);
}  // namespace gelu_avx2
namespace gelu_avx512 {
void gelu_f32(float* out, const float* x, int64_t n);
void gelu_backward_f32(float* out, const float* grad, const float* x, int64_t n);
}  // namespace gelu_avx512
}  // namespace cpu
}  // namespace glassgrad
