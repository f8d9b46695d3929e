// Convolutions whose window covers the whole unpadded input ("dense"): kernel R x S on an R x S
// image, no padding, no dilation, one group. Every image then has one output pixel and its
// im2col column is the image itself (x[n] read as C*R*S values in KCRS order), so the conv is a
// fully connected layer over the batch (DCGAN's first transposed convolution, 100 -> [4, 4], and
// its discriminator's last convolution, [4, 4] -> 1):
//   forward          y [N, K]    = x [N, CRS] x w [K, CRS]^T   (+ b along rows)
//   backward input   dx [N, CRS] = gy [N, K] x w [K, CRS]
//   backward weight  dw [K, CRS] = gy [N, K]^T x x [N, CRS]
// One GEMM a call, with the batch on one of its axes. The per-image paths of conv.cpp would run N
// GEMMs of a single column each, padded to the GEMM's NR-wide tile (48 on AVX-512: 98% of the
// products on padding; docs/performance.md, "Compute-bound training on the CPU").
#pragma once
#include <cstddef>

#include "cpu/conv_geometry.h"
#include "glassgrad/autodiff/types.h"

namespace glassgrad {
namespace cpu {

inline bool conv_dense(const ConvGeometry& g) {
  return g.unpadded() && g.r == g.h && g.s == g.w && g.dh == 1 && g.dw == 1 && g.groups == 1;
}

// Workspace (bytes) of each direction: the GEMM's packing buffers (none for the forward with
// fewer output channels than the GEMM's tile width, which runs as row dot products).
size_t dense_forward_workspace(const ConvGeometry& g, DType dt);
size_t dense_backward_input_workspace(const ConvGeometry& g, DType dt);
size_t dense_backward_weight_workspace(const ConvGeometry& g, DType dt);

// T = float or double; tensors dense NCHW / KCRS; bias may be null. A short workspace costs
// speed only (the GEMM then borrows its buffers or uses fewer threads).
template <typename T>
void dense_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, void* workspace, size_t bytes);
template <typename T>
void dense_backward_input(const ConvGeometry& g, const T* gy, const T* w, T* dx, void* workspace, size_t bytes);
template <typename T>
void dense_backward_weight(const ConvGeometry& g, const T* x, const T* gy, T* dw, void* workspace, size_t bytes);

}  // namespace cpu
}  // namespace glassgrad
