// Direct Conv2D forward for few input channels (C*R*S small), stride 1 along W, any stride
// along H, any padding and dilation: no im2col and no GEMM, one image (of one group) at a time.
//
//   y[k, i, j] = b[k] + sum_{c,r,s} x[c, i*sh + r*dh - pt, j + s*dw - pl] * w[k,c,r,s]
//
// For each output row i the C*R input rows it reads are staged once, zero-extended on both
// sides (the padding, and room for whole-vector loads), in a scratch of
// conv_direct_scratch_elems() elements; then KB output channels x one vector-wide run of j
// accumulate in registers over all C*R*S taps, and are stored straight into y. With C*R*S small
// this beats the GEMM, whose tiles would wait on packing and on copying out surplus columns.
// Compiled per ISA (conv_direct_impl.h) like the GEMM; plain data crosses the boundary.
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

template <typename T>
struct ConvDirectProblem {
  int64_t c, h, w;       // one input image [C, H, W]
  int64_t k, r, s;       // weight [K, C, R, S]
  int64_t sh, pt, pl;    // stride along H, padding top and left (stride along W is 1)
  int64_t dh, dw;        // dilation
  int64_t ho, wo;        // output [K, Ho, Wo]
  const T* x;
  const T* weight;
  const T* bias;         // [K] or null
  T* y;
  T* scratch;            // conv_direct_scratch_elems(...) elements, 64-byte aligned
};

template <typename T>
struct ConvDirectKernel {
  int run_width;  // output columns per register run (a multiple of the vector lanes)
  void (*forward)(const ConvDirectProblem<T>& p);
};

namespace conv_direct_generic {
const ConvDirectKernel<float>& kernel_f32();
const ConvDirectKernel<double>& kernel_f64();
}  // namespace conv_direct_generic
namespace conv_direct_avx2 {
const ConvDirectKernel<float>& kernel_f32();
const ConvDirectKernel<double>& kernel_f64();
}  // namespace conv_direct_avx2
namespace conv_direct_avx512 {
const ConvDirectKernel<float>& kernel_f32();
const ConvDirectKernel<double>& kernel_f64();
}  // namespace conv_direct_avx512

// The kernel for cpu_isa() (conv_direct.cpp).
const ConvDirectKernel<float>& conv_direct_kernel_f32();
const ConvDirectKernel<double>& conv_direct_kernel_f64();

// Scratch for the staged rows: C*R rows of ceil(Wo / run_width) * run_width + dw*(S - 1) elements.
inline int64_t conv_direct_scratch_elems(int64_t c, int64_t r, int64_t s, int64_t dw, int64_t wo, int run_width) {
  return c * r * ((wo + run_width - 1) / run_width * run_width + dw * (s - 1));
}

}  // namespace cpu
}  // namespace glassgrad
