// Conv2D and both its gradients by Winograd's minimal filtering F(m x m, 3x3) (Lavin and Gray,
// CVPR 2016), for 3x3 kernels at stride 1, in output tiles of m = 4 (36 multiplications per 4x4
// output tile and channel pair instead of 144) or m = 2 (16 instead of 36), the rest being cheap
// per-tile transforms (winograd_transforms.h, shared with the CUDA kernels). F(4x4) saves more
// multiplications but rounds worse in float32 (docs/numerics.md gives the measured errors);
// conv.cpp's algorithm choice picks the tile.
//
// Below, for m = 4 (m = 2: 4x4 windows, 16 points):
//
//   forward          y  = A^T [ U (.) V ] A  per tile, U = G w G^T, V = B^T x_tile B, summed over
//                    input channels: for each of the 36 points xi, M[xi] = V[xi] [tiles, C] x
//                    U[xi] [C, K] is one GEMM; y tiles = A^T M A.
//   backward input   the forward of gy with the filters rotated by 180 degrees and their channel
//                    axes swapped, padding 2 - p (the transposed convolution at stride 1).
//   backward weight  dw = G^T [ sum_tiles (B^T x_tile B) (.) (A gy_tile A^T) ] G  (the adjoint
//                    of the forward in w): dU[xi] [K, C] = Z[xi]^T [K, tiles] x V[xi] [tiles, C]
//                    with Z = A gy A^T, one GEMM per point again.
//
// Work goes in blocks of whole images (about kWinogradBlockTiles tiles). Per block: (A) stage
// the images channel block by channel block into the blocked layout (L channels innermost,
// zero padding written once) and transform their tiles; (B) the point GEMMs, one per point, on
// threads; (C) inverse-transform the GEMM results and write them back to NCHW with the bias and
// the fused ReLU. Filters are transformed once per call straight into the GEMM's packed B form,
// so the point GEMMs never repack them. Layers whose transformed filters outweigh the batch's
// transformed input (many channels, few tiles) run the whole batch as one block and transform
// the filters a chunk of output channels at a time, each chunk's point GEMMs right after it
// (winograd_filter_chunks). NCHW stays the layout of every tensor outside.
//
// At stride 2 (winograd_stride2_suits), the forward and the weight gradient run the same
// schedule with winograd::F2Stride2 (winograd_transforms.h): 2x2 output tiles from 5x5 input
// windows every 4 pixels, 25 points instead of the direct 36 multiplications (docs/cpu-threads.md,
// "Winograd at stride 2"); m is 2 and the stride is read from the geometry. The input gradient
// of a strided convolution is not a stride-1 convolution and keeps the GEMM path.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cpu/conv_geometry.h"

namespace glassgrad {
namespace cpu {

// Whether this path computes g (all three ops): 3x3, stride 1, no dilation, one group, padding
// at most 2 on every side (the input gradient pads by 2 - p), and at least kWinogradMinChannels
// input and output channels (with fewer, the transforms cost more than the multiplications saved).
bool winograd_suits(const ConvGeometry& g);

constexpr int64_t kWinogradMinChannels = 8;

// Whether the forward and the weight gradient of g run by F(2x2, 3x3) at stride 2: as
// winograd_suits, at stride 2 instead of 1.
bool winograd_stride2_suits(const ConvGeometry& g);

// Whether the forward (input_gradient false) or the input gradient of g at tile m runs by chunks
// of output channels, never storing the whole transformed filters (conv_winograd.cpp,
// filter_chunks_suit: many channels, few tiles, such as ResNet-18's layer4 at batch 32).
bool winograd_filter_chunks(const ConvGeometry& g, int m, DType dt, bool input_gradient);

// m: the output tile side, 2 or 4.
size_t winograd_forward_workspace(const ConvGeometry& g, int m, DType dt);
size_t winograd_backward_input_workspace(const ConvGeometry& g, int m, DType dt);
size_t winograd_backward_weight_workspace(const ConvGeometry& g, int m, DType dt);

// y [N, K, Ho, Wo] = conv(x [N, C, H, W], w [K, C, 3, 3]) + bias[k] (bias may be null), then
// max(., 0) when relu. The workspace should hold winograd_forward_workspace(g, m, dtype) bytes (a
// temporary buffer is allocated when it does not).
template <typename T>
void winograd_forward(const ConvGeometry& g, int m, const T* x, const T* w, const T* bias, bool relu, T* y, void* workspace,
                      size_t workspace_bytes);
// dx [N, C, H, W] from gy [N, K, Ho, Wo] and w [K, C, 3, 3].
template <typename T>
void winograd_backward_input(const ConvGeometry& g, int m, const T* gy, const T* w, T* dx, void* workspace,
                             size_t workspace_bytes);
// dw [K, C, 3, 3] from x [N, C, H, W] and gy [N, K, Ho, Wo] (overwritten, not accumulated).
template <typename T>
void winograd_backward_weight(const ConvGeometry& g, int m, const T* x, const T* gy, T* dw, void* workspace,
                              size_t workspace_bytes);

}  // namespace cpu
}  // namespace glassgrad
