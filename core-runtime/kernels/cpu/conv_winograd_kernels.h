// The contract between the Winograd convolution driver (conv_winograd.cpp, baseline ISA) and
// its per-ISA tile kernels (conv_winograd_impl.h compiled by conv_winograd_{generic,avx2,avx512}.cpp),
// as gemm_kernel.h is for the GEMM: plain structs and a table of function pointers.
//
// Layouts (L = the vector lanes of T for that ISA: 16 floats / 8 doubles with AVX-512):
//   blocked image  [ceil(C / L)][rows][cols][L]: L channels innermost (oneDNN's nChw16c), so
//                  one pixel of L channels is one vector; lanes past C hold zeros.
//   transformed    element (xi, tile t, channel ch) at trans[xi * xi_stride + t * tile_stride + ch],
//                  xi < alpha^2 the Winograd-domain point of F(m x m, 3x3) (alpha = m + 2: 36
//                  points for m = 4, 16 for m = 2; at stride 2, alpha = 5: 25 points),
//                  tile_stride >= C rounded up to L (whole vectors are stored).
//   packed A       (WinoTiles::mr > 0) each point's [tiles, channels] matrix as the GEMM's A =
//                  its transpose [channels, tiles] in the a_packed form (gemm_kernel.h: blocks of
//                  KC tiles, MR-channel slivers, MR values a tile), a_packed_m = tile_stride:
//                  (xi, t, ch) at trans[xi * xi_stride + pc * tile_stride + ch' * kcb + (t - pc) *
//                  MR + ch % MR], pc = t - t % KC, kcb = min(KC, tiles - pc), ch' = ch - ch % MR.
//                  Only where MR = L or L / 2 (AVX-512), so a vector is one or two slivers' runs.
//   packed B       (WinoTiles::nr > 0) each point's [tiles, channels] matrix as the GEMM's B in
//                  the b_packed form (gemm_kernel.h: NR-channel slivers as deep as the block's
//                  tiles, NR values a tile): (xi, t, ch) at trans[xi * xi_stride + (ch - ch % NR) *
//                  tiles + t * NR + ch % NR]. Only where NR is a multiple of L and the channels
//                  rounded to L fill whole slivers, so a vector is one run of one sliver.
//   packed filters alpha^2 GEMM B operands in the GEMM's b_packed form (gemm_kernel.h), matrix
//                  xi at packed + xi * xi_stride.
#pragma once
#include <cstdint>

namespace glassgrad {
namespace cpu {

// xb [blocked, rows x cols] <- x [c][h][w] placed at (top, left): xb pixel (top + i, left + j)
// holds x[.][i][j]; every other pixel (the padding, and what covers partial tiles) is zero.
template <typename T>
struct WinoStage {
  const T* x;
  int64_t c, h, w;
  int64_t top, left;
  T* xb;
  int64_t rows, cols;
};

// The tiles of one blocked image: tile (ti, tj), t = ti * tiles_w + tj; its transform is tile
// first_tile + t of `trans`. Input tiles are alpha x alpha windows at pixel (step ti, step tj),
// step = m x stride (forward transform B^T d B); gradient and output tiles m x m at (m ti, m tj)
// (A gy A^T, A^T m A).
template <typename T>
struct WinoTiles {
  T* image;
  int64_t rows, cols, blocks;  // blocked image [blocks][rows][cols][L]
  int64_t tiles_h, tiles_w;
  T* trans;
  int64_t xi_stride, tile_stride, first_tile;
  // The packed A layout (above) when mr > 0: mr = MR, kc = KC, tiles = the GEMM's k (the block's
  // tiles); the packed B layout when nr > 0: nr = NR, tiles likewise. In both, trans points at
  // channel 0 (not at the channel block cb), blocks is 1.
  int64_t mr = 0, kc = 0, tiles = 0, cb = 0, nr = 0;
};

// y [k][ho][wo] <- yb (blocked [ceil(k / L)][rows][cols][L], rows >= ho, cols >= wo) + bias[k]
// (bias may be null), then max(., 0) when relu.
template <typename T>
struct WinoUnstage {
  const T* yb;
  int64_t rows, cols;
  T* y;
  int64_t k, ho, wo;
  const T* bias;
  bool relu;
};

// Filter transform G g G^T of 3x3 filters into alpha^2 packed GEMM B operands of rows x cols:
// filter (p, q) has its taps at w[p * p_stride + q * q_stride + r * 3 + s], rotated by 180
// degrees when flip (w[.. + (2 - r) * 3 + (2 - s)]). Writes the column range [q0, q1) (multiples
// of L; q1 may run to the last sliver's end, whose columns past `cols` get zeros).
template <typename T>
struct WinoFilter {
  const T* w;
  int64_t w_elems;  // elements of w (loads never pass its end)
  int64_t rows, cols, p_stride, q_stride;
  bool flip;
  T* packed;
  int64_t xi_stride, nr;
  int64_t q0, q1;
};

// dw [k][c][3][3] rows [k0, k1) <- G^T dU G, dU element (xi, k, ch) at du[xi * xi_stride + k * ld + ch].
template <typename T>
struct WinoFilterAdjoint {
  const T* du;
  int64_t xi_stride, ld;
  int64_t c, k0, k1;
  T* dw;
};

// The kernels of one tile size m (F(m x m, 3x3), m = 2 or 4, at stride 1; m = 2 at stride 2).
template <typename T>
struct WinogradKernels {
  int lanes;   // L
  int m;       // output tile side
  int stride;  // of the convolution: 1, or 2 (winograd::F2Stride2)
  void (*stage)(const WinoStage<T>& p);
  void (*input_tiles)(const WinoTiles<T>& p);   // alpha x alpha image windows -> trans
  void (*grad_tiles)(const WinoTiles<T>& p);    // m x m image tiles -> trans (A gy A^T)
  void (*output_tiles)(const WinoTiles<T>& p);  // trans -> m x m image tiles (A^T m A)
  void (*unstage)(const WinoUnstage<T>& p);
  void (*filter)(const WinoFilter<T>& p);
  void (*filter_adjoint)(const WinoFilterAdjoint<T>& p);
};

namespace conv_winograd_generic {
const WinogradKernels<float>& kernels_f32(int m, int stride);  // m = 2 or 4 at stride 1, 2 at stride 2
const WinogradKernels<double>& kernels_f64(int m, int stride);
}  // namespace conv_winograd_generic
namespace conv_winograd_avx2 {
const WinogradKernels<float>& kernels_f32(int m, int stride);  // m = 2 or 4 at stride 1, 2 at stride 2
const WinogradKernels<double>& kernels_f64(int m, int stride);
}  // namespace conv_winograd_avx2
namespace conv_winograd_avx512 {
const WinogradKernels<float>& kernels_f32(int m, int stride);  // m = 2 or 4 at stride 1, 2 at stride 2
const WinogradKernels<double>& kernels_f64(int m, int stride);
}  // namespace conv_winograd_avx512

}  // namespace cpu
}  // namespace glassgrad
