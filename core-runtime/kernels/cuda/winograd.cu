// Winograd convolutions F(m x m, 3 x 3), m = 2 or 4, for 3x3 stride-1 layers (Lavin and Gray,
// "Fast Algorithms for Convolutional Neural Networks", CVPR 2016). With alpha = m + 2, an
// m x m output tile of one (output, input) channel pair is
//
//   Y = A^T [ (G f G^T) (.) (B^T d B) ] A          (.) elementwise, d the alpha x alpha input tile
//
// so summed over input channels every one of the alpha^2 transform elements e is a matrix
// product:  M_e[co, p] = sum_ci U_e[co, ci] V_e[ci, p]  (p = output tile), then Y = A^T M A.
// alpha^2 / m^2 products per output instead of 9: 16/4 = 4 (F(2x2)) and 36/16 = 2.25 (F(4x4)).
//
// Three directions on one geometry (GGWino, params.h):
//  * forward:         src = x, f = w, dst = y, offset (pt, pl) = the padding;
//  * input gradient:  src = dy, f[c, k] = w[k, c] rotated 180 degrees (flip), dst = dx, offset
//                     2 - padding (a stride-1 convolution's adjoint is the flipped convolution);
//  * weight gradient: y is linear in U, so dL/dU_e[k, c] = sum_p (A dY_p A^T)_e V_e[c, p] and
//                     dw = G^T (dL/dU) G: the same V, dy tiles transformed by A, products over p.
//
// Non-fused, as cuDNN's WINOGRAD_NONFUSED: transform kernels (one thread per tile and channel)
// write V, U and the dy transform to the workspace as [e][row][p]; the products run on the
// register-tiled engine (gemm_engine.cuh, gemm_batched: blockIdx.z = e, and for the weight
// gradient also the split of the tile axis); the output transforms read them back. A pass
// covers the tiles [p0, p0 + pc) so the workspace stays bounded; weight-gradient passes add
// into the partial sums, which the filter-gradient transform sums over the splits in a fixed
// order (no separate reduction kernel).
//
// Rounding: the transforms scale values by up to 8 (A^T of F(4x4)) and 1/24 (G), so float32
// results differ from direct summation more than an implicit GEMM's do. Relative to the
// output's largest magnitude, a float32 simulation gives up to 8e-7 (F(2x2)) and 1.6e-5
// (F(4x4)) at 512 channels; the parity tests allow 5e-5 and 2e-4 (python-bindings/tests/
// test_cuda_ops.py; core-runtime/tests/test_cuda_emulated.cpp checks small shapes on the CPU).
#include "../winograd_transforms.h"
#include "gemm_engine.cuh"

namespace gg_wino {

// The per-tile transforms are kernels/winograd_transforms.h's, shared with the CPU kernels:
// input_tile (B^T d B), filter_tile (G g G^T), output_tile (A^T M A) and the adjoints the weight
// gradient needs, output_adjoint_tile (A dY A^T) and filter_adjoint_tile (G^T dU G). The
// notebook examples-and-tutorials/notebooks/winograd.ipynb derives the matrices.
namespace wt = glassgrad::winograd;

// Tile p of the destination: image n and the tile's top-left destination pixel (oh0, ow0).
template <int M>
__device__ __forceinline__ void tile_origin(const GGWino& g, int p, int& n, int& oh0, int& ow0) {
  n = gg::fast_div(g.div_T, p);
  const int t = p - n * g.TH * g.TW;
  const int th = gg::fast_div(g.div_TW, t);
  oh0 = th * M;
  ow0 = (t - th * g.TW) * M;
}

// ---- transform kernels (the filter's by tiles of channel pairs, the others a thread per (channel, tile))
// U[e][co][ci] = (G f[co, ci] G^T)_e. A block takes a tile of kWinoFilterCo x kWinoFilterCi
// (8 x 32) channel pairs through shared memory, so that both sides are coalesced: the source
// is read as runs of consecutive words (w[co][ci][3][3]: 32 * 9 words per co; the input
// gradient's w[ci][co][3][3]: 8 * 9 per ci), and U is written 32 consecutive ci at a time.
// (A thread per pair reading its own 9 words made the input gradient's reads stride Co * 36
// bytes apart: 171 of 649 us at [32, 512, 4, 4] on 8 SMs.) Shared rows of 8 * 9 + 1 = 73 words:
// a warp's 32 ci read 32 different banks. blockDim.x must be 256 (kWinoFilterCo * kWinoFilterCi).
template <int M, typename T>
__device__ void filter_transform(const GGWino& g, const T* w, T* U) {
  constexpr int A = M + 2, TCO = kWinoFilterCo, TCI = kWinoFilterCi, RUN = TCO * 9 + 1;
  __shared__ T f[TCI][RUN];  // f[ci - ci0][(co - co0) * 9 + r * 3 + s] = w as stored (not yet rotated)
  const int Co = g.Co, Ci = g.Ci, pairs = Co * Ci;
  const int tiles_ci = (Ci + TCI - 1) / TCI, tiles = tiles_ci * ((Co + TCO - 1) / TCO);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int co0 = (t / tiles_ci) * TCO, ci0 = (t - (t / tiles_ci) * tiles_ci) * TCI;
    // 9 words a thread, unrolled so the loads issue together (a runtime-stride loop paid a
    // memory latency per word: 93 us for the [32, 512, 4, 4] forward's transform on 8 SMs).
    if (g.flip) {  // w[ci][co][rs]: ci's run of TCO * 9 words starts at (ci * Co + co0) * 9
#pragma unroll
      for (int j = 0; j < 9; ++j) {
        const int e = (int)threadIdx.x + j * TCO * TCI, cil = e / (TCO * 9), run = e - cil * (TCO * 9);
        const int col = run / 9;
        f[cil][run] = (ci0 + cil < Ci && co0 + col < Co) ? w[((int64_t)(ci0 + cil) * Co + co0) * 9 + run] : T(0);
      }
    } else {  // w[co][ci][rs]: co's run of TCI * 9 words starts at (co * Ci + ci0) * 9
#pragma unroll
      for (int j = 0; j < 9; ++j) {
        const int e = (int)threadIdx.x + j * TCO * TCI, col = e / (TCI * 9), run = e - col * (TCI * 9);
        const int cil = run / 9, rs = run - cil * 9;
        f[cil][col * 9 + rs] = (ci0 + cil < Ci && co0 + col < Co) ? w[((int64_t)(co0 + col) * Ci + ci0) * 9 + run] : T(0);
      }
    }
    __syncthreads();
    const int cil = (int)threadIdx.x % TCI, col = (int)threadIdx.x / TCI;
    const int ci = ci0 + cil, co = co0 + col;
    if (col < TCO && ci < Ci && co < Co) {
      const T* src = &f[cil][col * 9];
      T fr[3][3];
#pragma unroll
      for (int r = 0; r < 3; ++r)
#pragma unroll
        for (int s = 0; s < 3; ++s) fr[r][s] = g.flip ? src[(2 - r) * 3 + 2 - s] : src[r * 3 + s];
      T u[A][A];
      wt::filter_tile<M, T>(&fr[0][0], &u[0][0]);
      const int i = co * Ci + ci;
#pragma unroll
      for (int e = 0; e < A * A; ++e) U[(int64_t)e * pairs + i] = u[e / A][e % A];
    }
    __syncthreads();  // f is rewritten by the next tile
  }
}

// V[e][ci][p - p0] = (B^T d B)_e, d the alpha x alpha source window of tile p (zeros outside).
template <int M, typename T>
__device__ void input_transform(const GGWino& g, const T* src, T* V) {
  constexpr int A = M + 2;
  const int total = g.Ci * g.pc;
  GG_FOR(i64, total) {
    const int i = (int)i64, ci = gg::fast_div(g.div_pc, i);
    int n, oh0, ow0;
    tile_origin<M>(g, g.p0 + i - ci * g.pc, n, oh0, ow0);
    const int h0 = oh0 - g.pt, w0 = ow0 - g.pl;
    const T* plane = src + ((int64_t)n * g.Ci + ci) * g.Hi * g.Wi;
    T d[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        const int h = h0 + a, w = w0 + b;
        d[a][b] = ((unsigned)h < (unsigned)g.Hi && (unsigned)w < (unsigned)g.Wi) ? plane[h * g.Wi + w] : T(0);
      }
    T v[A][A];
    wt::input_tile<M, T>(&d[0][0], &v[0][0]);
#pragma unroll
    for (int e = 0; e < A * A; ++e) V[(int64_t)e * total + i] = v[e / A][e % A];
  }
}

// dst tile p of channel co = A^T M A + bias (then ReLU when g.relu), clipped to Ho x Wo.
template <int M, typename T>
__device__ void output_transform(const GGWino& g, const T* Mb, T* dst, const T* bias) {
  constexpr int A = M + 2;
  const int total = g.Co * g.pc;
  GG_FOR(i64, total) {
    const int i = (int)i64, co = gg::fast_div(g.div_pc, i);
    int n, oh0, ow0;
    tile_origin<M>(g, g.p0 + i - co * g.pc, n, oh0, ow0);
    T m[A][A];
#pragma unroll
    for (int e = 0; e < A * A; ++e) m[e / A][e % A] = Mb[(int64_t)e * total + i];
    T y[M][M];
    wt::output_tile<M, T>(&m[0][0], &y[0][0]);
    const T b = bias ? bias[co] : T(0);
    T* out = dst + ((int64_t)n * g.Co + co) * g.Ho * g.Wo;
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int c = 0; c < M; ++c) {
        const int h = oh0 + a, w = ow0 + c;
        if (h < g.Ho && w < g.Wo) {
          const T v = y[a][c] + b;
          out[h * g.Wo + w] = (g.relu && !(v > T(0))) ? T(0) : v;
        }
      }
  }
}

// Y[e][k][p - p0] = (A dy_p A^T)_e, dy_p the m x m tile p of dy[n, k] (zeros past Ho x Wo).
template <int M, typename T>
__device__ void grad_output_transform(const GGWino& g, const T* dy, T* Y) {
  constexpr int A = M + 2;
  const int total = g.Co * g.pc;
  GG_FOR(i64, total) {
    const int i = (int)i64, k = gg::fast_div(g.div_pc, i);
    int n, oh0, ow0;
    tile_origin<M>(g, g.p0 + i - k * g.pc, n, oh0, ow0);
    const T* plane = dy + ((int64_t)n * g.Co + k) * g.Ho * g.Wo;
    T d[M][M];
#pragma unroll
    for (int a = 0; a < M; ++a)
#pragma unroll
      for (int c = 0; c < M; ++c) {
        const int h = oh0 + a, w = ow0 + c;
        d[a][c] = (h < g.Ho && w < g.Wo) ? plane[h * g.Wo + w] : T(0);
      }
    T v[A][A];
    wt::output_adjoint_tile<M, T>(&d[0][0], &v[0][0]);
#pragma unroll
    for (int e = 0; e < A * A; ++e) Y[(int64_t)e * total + i] = v[e / A][e % A];
  }
}

// dw[k, c] = G^T (sum_z dU[z][.][k][c]) G, the splits summed in ascending z. A thread's 9
// values are consecutive, so direct stores would be 9 instructions of 4 bytes 36 bytes apart:
// the block's 9 * 256 values go through shared memory and out as consecutive words.
// blockDim.x is 256 (kGradFilterThreads).
constexpr int kGradFilterThreads = 256;
template <int M, typename T>
__device__ void grad_filter_transform(const GGWino& g, const T* dU, T* dw) {
  constexpr int A = M + 2;
  __shared__ T out[kGradFilterThreads * 9];
  const int pairs = g.Co * g.Ci;
  for (int base = blockIdx.x * kGradFilterThreads; base < pairs; base += gridDim.x * kGradFilterThreads) {
    const int i = base + (int)threadIdx.x;
    if (i < pairs) {
      // z outermost: each split's A * A loads are independent and issue together (with z inside
      // the e loop, a runtime-length loop between loads serialized them: 113 us of 690 at
      // [32, 512, 4, 4] on 8 SMs). Every element still sums z in ascending order.
      T u[A][A];
#pragma unroll
      for (int e = 0; e < A * A; ++e) u[e / A][e % A] = dU[(int64_t)e * pairs + i];
      for (int z = 1; z < g.splits; ++z) {
        const T* dz = dU + (int64_t)z * A * A * pairs + i;
#pragma unroll
        for (int e = 0; e < A * A; ++e) u[e / A][e % A] += dz[(int64_t)e * pairs];
      }
      T dg[3][3];
      wt::filter_adjoint_tile<M, T>(&u[0][0], &dg[0][0]);
#pragma unroll
      for (int r = 0; r < 3; ++r)
#pragma unroll
        for (int s = 0; s < 3; ++s) out[threadIdx.x * 9 + r * 3 + s] = dg[r][s];
    }
    __syncthreads();
    const int n = min(kGradFilterThreads, pairs - base) * 9;
    for (int t = threadIdx.x; t < n; t += kGradFilterThreads) dw[(int64_t)base * 9 + t] = out[t];
    __syncthreads();  // out is rewritten by the next chunk
  }
}

// ---- the batched products -------------------------------------------------------------------
// Forward / input gradient: M_e[Co x pc] = U_e[Co x Ci] V_e[Ci x pc].
template <typename T>
struct RowMajorK {  // A(m, k) = a[m * ld + k]: consecutive threads walk k
  static constexpr bool kKFast = true;
  typedef int Index;
  typedef int KIndex;
  const T* a;
  int ld;
  __device__ __forceinline__ int index(int m) const { return m * ld; }
  __device__ __forceinline__ int kindex(int k) const { return k; }
  __device__ __forceinline__ T load(int i, int k) const { return a[i + k]; }
};
template <typename T>
struct RowMajorN {  // B(k, n) = b[k * ld + n]: consecutive threads walk n
  static constexpr bool kKFast = false;
  typedef int Index;
  typedef int KIndex;
  const T* b;
  int ld;
  __device__ __forceinline__ int index(int n) const { return n; }
  __device__ __forceinline__ int kindex(int k) const { return k * ld; }
  __device__ __forceinline__ T load(int i, int k) const { return b[i + k]; }
};
template <typename T>
struct DenseOut {  // c[m * ld + n] (= or +=)
  typedef T* Col;
  static constexpr bool kRowMajor = true;  // gemm_engine.cuh: 16-byte stores when aligned
  T* c;
  int ld;
  bool add;
  __device__ __forceinline__ T* col(int n) const { return c + n; }
  __device__ __forceinline__ void operator()(int m, T* p, T v) const {
    T* q = p + (int64_t)m * ld;
    *q = add ? *q + v : v;
  }
  __device__ __forceinline__ bool aligned4() const { return ld % 4 == 0 && ((uintptr_t)c & (4 * sizeof(T) - 1)) == 0; }
  __device__ __forceinline__ T* ptr(int m, int n) const { return c + (int64_t)m * ld + n; }
};

template <typename T>
struct ForwardProducts {
  const T* U;
  const T* V;
  T* Mb;
  int Co, Ci, pc;
  __device__ __forceinline__ RowMajorK<T> a(int e) const { return RowMajorK<T>{U + (int64_t)e * Co * Ci, Ci}; }
  __device__ __forceinline__ RowMajorN<T> b(int e) const { return RowMajorN<T>{V + (int64_t)e * Ci * pc, pc}; }
  __device__ __forceinline__ DenseOut<T> store(int e, int) const {
    return DenseOut<T>{Mb + (int64_t)e * Co * pc, pc, false};
  }
};

// Weight gradient: dU[z][e][K x C] (+)= Y_e[K x pc] V_e[C x pc]^T over split z of the tiles.
template <typename T>
struct WeightProducts {
  const T* Y;
  const T* V;
  T* dU;
  int K, C, pc, batch;
  bool add;
  __device__ __forceinline__ RowMajorK<T> a(int e) const { return RowMajorK<T>{Y + (int64_t)e * K * pc, pc}; }
  __device__ __forceinline__ RowMajorK<T> b(int e) const { return RowMajorK<T>{V + (int64_t)e * C * pc, pc}; }
  __device__ __forceinline__ DenseOut<T> store(int e, int z) const {
    return DenseOut<T>{dU + ((int64_t)z * batch + e) * K * C, C, add};
  }
};

typedef gg::TileConfig<128, 128, 8, 8> Tile128x128;  // 256 threads
typedef gg::TileConfig<64, 128, 8, 8> Tile64x128;    // 128 threads
typedef gg::TileConfig<32, 128, 4, 8> Tile32x128;    // 128 threads
typedef gg::TileConfig<64, 64, 8, 4> Tile64x64;      // 128 threads
typedef gg::TileConfig<128, 128, 8, 8, 16> Tile128x128k16;
typedef gg::TileConfig<64, 128, 8, 8, 16> Tile64x128k16;
typedef gg::TileConfig<64, 64, 8, 4, 16> Tile64x64k16;
typedef gg::TileConfig<32, 32, 4, 4, 16> Tile32x32k16;  // weight gradients of few channels
// k-16 tiles with 8 x 4 micro-tiles a warp (gemm_engine.cuh, TileConfig's WARPS): a third less
// shared-memory traffic per FMA.
typedef gg::TileConfig<128, 128, 8, 8, 16, true, true> Tile128x128w;
typedef gg::TileConfig<64, 128, 8, 8, 16, true, true> Tile64x128w;

}  // namespace gg_wino

#define GG_WINO_TRANSFORMS(m, suffix, T)                                                                \
  GG_KERNEL void __launch_bounds__(256) gg_wino##m##_filter_##suffix(GGWino g, const T* w, T* U) {     \
    gg_wino::filter_transform<m, T>(g, w, U);                                                           \
  }                                                                                                     \
  GG_KERNEL void __launch_bounds__(256) gg_wino##m##_input_##suffix(GGWino g, const T* src, T* V) {    \
    gg_wino::input_transform<m, T>(g, src, V);                                                          \
  }                                                                                                     \
  GG_KERNEL void __launch_bounds__(256) gg_wino##m##_output_##suffix(GGWino g, const T* Mb, T* dst,    \
                                                                      const T* bias) {                  \
    gg_wino::output_transform<m, T>(g, Mb, dst, bias);                                                  \
  }                                                                                                     \
  GG_KERNEL void __launch_bounds__(256) gg_wino##m##_grad_output_##suffix(GGWino g, const T* dy, T* Y) { \
    gg_wino::grad_output_transform<m, T>(g, dy, Y);                                                     \
  }                                                                                                     \
  GG_KERNEL void __launch_bounds__(256) gg_wino##m##_grad_filter_##suffix(GGWino g, const T* dU, T* dw) { \
    gg_wino::grad_filter_transform<m, T>(g, dU, dw);                                                    \
  }

// batch = alpha^2 (16 or 36): the products do not depend on m otherwise.
#define GG_WINO_GEMM(tile, threads, min_blocks, suffix, T)                                                   \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                    \
      gg_wino_gemm##tile##_##suffix(GGWino g, const T* U, const T* V, T* Mb, int batch) {                   \
    gg::gemm_batched<T, gg_wino::Tile##tile>(gg_wino::ForwardProducts<T>{U, V, Mb, g.Co, g.Ci, g.pc}, g.Co, \
                                             g.pc, g.Ci, batch, 1);                                         \
  }
#define GG_WINO_WGRAD_GEMM(tile, threads, min_blocks, suffix, T)                                            \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                   \
      gg_wino_wgrad_gemm##tile##_##suffix(GGWino g, const T* Y, const T* V, T* dU, int batch) {            \
    gg::gemm_batched<T, gg_wino::Tile##tile>(                                                              \
        gg_wino::WeightProducts<T>{Y, V, dU, g.Co, g.Ci, g.pc, batch, g.accumulate != 0}, g.Co, g.Ci, g.pc, \
        batch, g.splits);                                                                                  \
  }

// float32 only: float64 convolutions (gradient checks) keep the implicit GEMM. The 64 x 128
// products run two blocks per SM: capped at 168 registers (three) they spill (nvcc -Xptxas -v,
// sm_90).
GG_WINO_TRANSFORMS(2, f32, float)
GG_WINO_TRANSFORMS(4, f32, float)
GG_WINO_GEMM(128x128, 256, 1, f32, float)
GG_WINO_GEMM(64x128, 128, 2, f32, float)
GG_WINO_GEMM(32x128, 128, 3, f32, float)
GG_WINO_WGRAD_GEMM(128x128, 256, 1, f32, float)
GG_WINO_WGRAD_GEMM(64x128, 128, 2, f32, float)
GG_WINO_WGRAD_GEMM(64x64, 128, 3, f32, float)
// k steps of 16: candidates the autotuner times against the k-8 tiles.
GG_WINO_GEMM(128x128k16, 256, 1, f32, float)
GG_WINO_GEMM(64x128k16, 128, 2, f32, float)
GG_WINO_WGRAD_GEMM(128x128k16, 256, 1, f32, float)
GG_WINO_WGRAD_GEMM(64x128k16, 128, 2, f32, float)
GG_WINO_WGRAD_GEMM(64x64k16, 128, 2, f32, float)
GG_WINO_WGRAD_GEMM(32x32k16, 64, 8, f32, float)
GG_WINO_GEMM(128x128w, 256, 1, f32, float)
GG_WINO_GEMM(64x128w, 128, 2, f32, float)
GG_WINO_WGRAD_GEMM(128x128w, 256, 1, f32, float)
GG_WINO_WGRAD_GEMM(64x128w, 128, 2, f32, float)
