// 2-D convolution, NCHW input x [N, C, H, W], weight w [K, C, R, S], output y [N, K, OH, OW],
// stride (sh, sw), zero padding (top pt, left pl; bottom/right only shape OH, OW). From
// docs/architecture.md's "Convolution formulas", generalized to stride and padding:
//
//   forward:          y[n,k,oh,ow] = b[k] + sum_{c,r,s} x[n, c, oh*sh - pt + r, ow*sw - pl + s] * w[k,c,r,s]
//   backward-input:   dx[n,c,h,w]  = sum_{k,r,s} dy[n, k, (h + pt - r)/sh, (w + pl - s)/sw] * w[k,c,r,s]
//                                    (only terms where both divisions are exact and in range)
//   backward-weight:  dw[k,c,r,s]  = sum_{n,oh,ow} dy[n,k,oh,ow] * x[n, c, oh*sh - pt + r, ow*sw - pl + s]
//
// Out-of-range image coordinates read as 0 (padding is never materialized). All tensors are
// dense; index arithmetic is 32-bit (the launcher refuses tensors of 2^31 elements or more).
//
// Grouped and dilated convolutions (GGConv's G, dh, dw; PyTorch's semantics, conv_geometry.h)
// run on the generic kernels at the end; the other algorithms assume G = 1 and dilation 1.
//
// Two algorithms, picked per shape by the launcher (kernels/cuda/conv.cpp):
//  * direct: for few input channels (the first layers). Forward stages a 16 x 16 output
//    tile's input window for one channel plus the weights of 8 output channels in shared
//    memory; backward-input stages w[:, c] for one input plane (or, 3x3 stride 1 with at most
//    4 input channels, dy windows of 4 output channels for a 32 x 32 tile of every input
//    channel: bwd_input_fewc); backward-weight gives each weight element a block that reduces
//    over n, oh, ow.
//  * implicit GEMM (gemm_engine.cuh, register-tiled): forward is Y[K x NP] = W[K x CRS] X[CRS x NP],
//    backward-input dX[C x NHW] = W^T[C x KRS] dY[KRS x NHW] (one GEMM per stride phase), backward-weight
//    dW[K x CRS] = dY[K x NP] X^T[NP x CRS]. When the tiles alone would leave the GPU idle,
//    the reduction axis is split across blockIdx.z into a workspace of partial sums that the
//    *_reduce kernels add in a fixed order (so results do not depend on timing).
#include "gemm_engine.cuh"

namespace gg_conv {

constexpr int kTile = 16;   // direct forward: 16 x 16 outputs per block
constexpr int kKG = 8;      // direct forward: output channels per block
// Shared-memory budgets of the direct kernels, in bytes (the launcher checks the fit).
constexpr int kDirectInBytes = 16384;
constexpr int kDirectWBytes = 8192;

// ---- implicit GEMM operands ------------------------------------------------------------
// Bits lo .. hi - 1 of a tap mask (lo, hi clipped by the caller to at most the filter's extent,
// which is at most 32: the launcher sends wider filters to the generic kernels).
__device__ __forceinline__ unsigned span_mask(int lo, int hi) {
  lo = max(lo, 0);
  return hi > lo ? (~0u >> (32 - hi)) & (~0u << lo) : 0u;
}

// x gathered by output pixel np = (nb, oh, ow) and filter tap crs = (c, r, s):
//   x[nb, c, oh*sh - pt + r, ow*sw - pl + s], 0 outside the image.
// The pixel part (image base, and which filter rows r and columns s land inside the image, as
// bit masks) and the tap part (channel plane + r*W + s, and the bits of r and s) are computed
// separately, each once per tile or step, so an element costs two bit tests (its predicate), an
// add and an address.
template <typename T>
struct XGather {
  const T* x;
  GGConvGemm g;
  struct Pix {
    int base;              // nb*C*H*W + ih0*W + iw0, (ih0, iw0) the receptive field's corner
    unsigned rows, cols;   // bit r: 0 <= ih0 + r < H; bit s: 0 <= iw0 + s < W
  };
  struct Tap {
    int off;               // c*H*W + r*W + s
    unsigned rbit, sbit;   // 1 << r, 1 << s
  };
  __device__ __forceinline__ Pix pix(int np) const {
    const int P = g.OH * g.OW;
    const int nb = gg::fast_div(g.div_P, np), p = np - nb * P;
    const int oh = gg::fast_div(g.div_OW, p), ow = p - oh * g.OW;
    const int ih0 = oh * g.sh - g.pt, iw0 = ow * g.sw - g.pl;
    return Pix{nb * g.C * g.H * g.W + ih0 * g.W + iw0, span_mask(-ih0, min(g.H - ih0, g.R)),
               span_mask(-iw0, min(g.W - iw0, g.S))};
  }
  __device__ __forceinline__ Tap tap(int crs) const {
    const int RS = g.R * g.S;
    const int c = gg::fast_div(g.div_RS, crs), rs = crs - c * RS;
    const int r = gg::fast_div(g.div_S, rs), s = rs - r * g.S;
    return Tap{c * g.H * g.W + r * g.W + s, 1u << r, 1u << s};
  }
  __device__ __forceinline__ bool valid(const Pix& p, const Tap& t) const {
    return (p.rows & t.rbit) != 0 && (p.cols & t.sbit) != 0;
  }
  __device__ __forceinline__ const T* address(const Pix& p, const Tap& t) const { return x + (p.base + t.off); }
};

// Forward: Y[K x NP] = W[K x CRS] X[CRS x NP].
template <typename T>
struct FwdA {  // A(k, crs) = w[k, crs]
  static constexpr bool kKFast = true;
  static constexpr bool kDenseK = true;  // gemm_engine.cuh's quads
  typedef int Index;
  typedef int KIndex;
  const T* w;
  int CRS;
  __device__ __forceinline__ int index(int m) const { return m * CRS; }
  __device__ __forceinline__ int kindex(int k) const { return k; }
  __device__ __forceinline__ bool valid(int, int) const { return true; }
  __device__ __forceinline__ const T* address(int i, int k) const { return w + (i + k); }
  __device__ __forceinline__ bool vector_ok() const { return CRS % 4 == 0 && ((uintptr_t)w & 15) == 0; }
};
template <typename T>
struct FwdB {  // B(crs, np): consecutive threads take consecutive pixels
  static constexpr bool kKFast = false;
  typedef typename XGather<T>::Pix Index;
  typedef typename XGather<T>::Tap KIndex;
  XGather<T> x;
  __device__ __forceinline__ Index index(int np) const { return x.pix(np); }
  __device__ __forceinline__ KIndex kindex(int crs) const { return x.tap(crs); }
  __device__ __forceinline__ bool valid(const Index& p, const KIndex& t) const { return x.valid(p, t); }
  __device__ __forceinline__ const T* address(const Index& p, const KIndex& t) const { return x.address(p, t); }
};
template <typename T>
struct FwdStore {  // y[nb, k, p] = v + bias[k]
  typedef int Col;
  // gemm_engine.cuh's 16-byte epilogue when OH * OW is a multiple of 4: a thread's 4 consecutive
  // pixels then lie in one image, consecutive in y (1x1 and first layers reduce over few taps,
  // so their epilogue is a large share).
  static constexpr bool kRowMajor = true;
  static constexpr bool add = false;
  T* y;
  const T* bias;
  GGConvGemm g;
  __device__ __forceinline__ int col(int np) const {
    const int P = g.OH * g.OW, nb = gg::fast_div(g.div_P, np);
    return nb * g.K * P + (np - nb * P);
  }
  __device__ __forceinline__ void operator()(int k, int c, T v) const {
    y[c + k * g.OH * g.OW] = v + (bias ? bias[k] : T(0));
  }
  __device__ __forceinline__ bool aligned4() const {
    return (g.OH * g.OW) % 4 == 0 && ((uintptr_t)y & (4 * sizeof(T) - 1)) == 0;
  }
  __device__ __forceinline__ T* ptr(int k, int np) const { return y + col(np) + k * g.OH * g.OW; }
  __device__ __forceinline__ T row_offset(int k) const { return bias ? bias[k] : T(0); }
};

// Backward-input, one phase (ph, pw) of the strides at a time (params.h, GGConvGemm):
//   dX_phase[C x N*Hp*Wp] = W_phase^T[C x K*Ra*Sa] dY_phase[K*Ra*Sa x N*Hp*Wp]
// with dX_phase(c, (n, i, j)) = dx[n, c, ph + sh*i, pw + sw*j] and the taps r = r0 + sh*a,
// s = s0 + sw*b, the only ones for which (h + pt - r) / sh is exact; then oh = i + dh - a.
// Splitting by phase skips the (sh*sw - 1)/(sh*sw) of products a strided gather would
// multiply by zero (3/4 for stride 2).
template <typename T>
struct BinA {  // A(c, kab) = w[k, c, r0 + sh*a, s0 + sw*b]
  static constexpr bool kKFast = true;
  typedef int Index;
  typedef int KIndex;
  const T* w;
  GGConvGemm g;
  __device__ __forceinline__ int index(int c) const { return c * g.R * g.S; }
  __device__ __forceinline__ int kindex(int kab) const {
    const int k = gg::fast_div(g.div_RaSa, kab), ab = kab - k * g.Ra * g.Sa;
    const int a = gg::fast_div(g.div_Sa, ab), b = ab - a * g.Sa;
    return (k * g.C * g.R + g.r0 + g.sh * a) * g.S + g.s0 + g.sw * b;
  }
  __device__ __forceinline__ bool valid(int, int) const { return true; }
  __device__ __forceinline__ const T* address(int i, int k) const { return w + (i + k); }
};
template <typename T>
struct BinB {  // B(kab, (n, i, j)): consecutive threads take consecutive phase pixels
  static constexpr bool kKFast = false;
  struct Index {
    int base;            // n*K*OH*OW + ti*OW + tj, with ti = i + dh, tj = j + dw
    unsigned as, bs;     // bit a: 0 <= ti - a < OH; bit b: 0 <= tj - b < OW
  };
  struct KIndex {
    int off;             // k*OH*OW - a*OW - b
    unsigned abit, bbit; // 1 << a, 1 << b
  };
  const T* dy;
  GGConvGemm g;
  __device__ __forceinline__ Index index(int pix) const {
    const int PP = g.Hp * g.Wp, nb = gg::fast_div(g.div_PP, pix), ij = pix - nb * PP;
    const int i = gg::fast_div(g.div_Wp, ij), j = ij - i * g.Wp;
    const int ti = i + g.dh, tj = j + g.dw;
    return Index{nb * g.K * g.OH * g.OW + ti * g.OW + tj, span_mask(ti - g.OH + 1, min(ti + 1, g.Ra)),
                 span_mask(tj - g.OW + 1, min(tj + 1, g.Sa))};
  }
  __device__ __forceinline__ KIndex kindex(int kab) const {
    const int k = gg::fast_div(g.div_RaSa, kab), ab = kab - k * g.Ra * g.Sa;
    const int a = gg::fast_div(g.div_Sa, ab), b = ab - a * g.Sa;
    return KIndex{k * g.OH * g.OW - a * g.OW - b, 1u << a, 1u << b};
  }
  __device__ __forceinline__ bool valid(const Index& p, const KIndex& t) const {
    return (p.as & t.abit) != 0 && (p.bs & t.bbit) != 0;
  }
  __device__ __forceinline__ const T* address(const Index& p, const KIndex& t) const { return dy + (p.base + t.off); }
};
template <typename T>
struct BinStore {  // dx[n, c, ph + sh*i, pw + sw*j]
  typedef int Col;
  T* dx;
  GGConvGemm g;
  __device__ __forceinline__ int col(int pix) const {
    const int PP = g.Hp * g.Wp, nb = gg::fast_div(g.div_PP, pix), ij = pix - nb * PP;
    const int i = gg::fast_div(g.div_Wp, ij), j = ij - i * g.Wp;
    return nb * g.C * g.H * g.W + (g.ph + g.sh * i) * g.W + g.pw + g.sw * j;
  }
  __device__ __forceinline__ void operator()(int c, int col, T v) const { dx[col + c * g.H * g.W] = v; }
};

// Backward-weight: dW[K x CRS] = dY[K x NP] X^T[NP x CRS]; k runs over output pixels, so both
// operands are k-fast (consecutive threads read consecutive pixels).
template <typename T>
struct BwA {  // A(k, np) = dy[nb, k, p]
  static constexpr bool kKFast = true;
  typedef int Index;
  typedef int KIndex;
  const T* dy;
  GGConvGemm g;
  __device__ __forceinline__ int index(int k) const { return k * g.OH * g.OW; }
  __device__ __forceinline__ int kindex(int np) const {
    const int P = g.OH * g.OW, nb = gg::fast_div(g.div_P, np);
    return nb * g.K * P + (np - nb * P);
  }
  __device__ __forceinline__ bool valid(int, int) const { return true; }
  __device__ __forceinline__ const T* address(int i, int k) const { return dy + (i + k); }
};
template <typename T>
struct BwB {  // B(np, crs) = x gathered
  static constexpr bool kKFast = true;
  typedef typename XGather<T>::Tap Index;
  typedef typename XGather<T>::Pix KIndex;
  XGather<T> x;
  __device__ __forceinline__ Index index(int crs) const { return x.tap(crs); }
  __device__ __forceinline__ KIndex kindex(int np) const { return x.pix(np); }
  __device__ __forceinline__ bool valid(const Index& t, const KIndex& p) const { return x.valid(p, t); }
  __device__ __forceinline__ const T* address(const Index& t, const KIndex& p) const { return x.address(p, t); }
};
template <typename T>
struct DenseStore {  // dw[k, crs]
  typedef int Col;
  T* dst;
  int ld;
  __device__ __forceinline__ int col(int n) const { return n; }
  __device__ __forceinline__ void operator()(int m, int n, T v) const { dst[m * ld + n] = v; }
};

// blockIdx: x = column tiles, y = row tiles, z = k partitions (g.splits); ws holds the
// partitions when g.splits > 1 and the matching *_reduce kernel finishes.
// The forward's float 64 x 128 tiles walk k in steps of 16: on an H200, ResNet-18's forward
// convolutions took 1.48 ms a step instead of 1.56 (k steps of 8). The backward kernels keep
// 8: with 16 they spill under the 170-register cap.
template <typename T, typename Cfg>
struct FwdTile {
  typedef Cfg type;
};
template <>
struct FwdTile<float, gg::TileConfig<64, 128, 8, 8>> {  // scalar epilogue: the 16-byte one spilled at 168 registers
  typedef gg::TileConfig<64, 128, 8, 8, 16, false> type;
};

template <typename T, typename Cfg>
__device__ void fwd_gemm(const GGConvGemm& g, T* y, const T* x, const T* w, const T* bias, T* ws) {
  const int CRS = g.C * g.R * g.S;
  gg::gemm_tiled<T, typename FwdTile<T, Cfg>::type>(FwdA<T>{w, CRS}, FwdB<T>{XGather<T>{x, g}}, FwdStore<T>{y, bias, g}, g.K,
                         g.N * g.OH * g.OW, CRS, g.splits, ws);
}
// Tuning knobs (GLASSGRAD_CUDA_NVCC_FLAGS="-DGG_CONV_BWD_BK=16 -DGG_CONV_MINB_64=2"): the k step
// of the float 64 x 128 backward tiles and their minimum resident blocks (register cap). On an
// H200 that pair (no spills at 2 blocks) gave ResNet-18's weight gradients 2.04 ms a step
// against 1.80 ms with the defaults, and its input gradients 1.80 against 1.83: defaults kept.
#ifndef GG_CONV_BWD_BK
#define GG_CONV_BWD_BK 8
#endif
#ifndef GG_CONV_MINB_64
#define GG_CONV_MINB_64 3
#endif
template <typename T, typename Cfg>
struct BwdTile {
  typedef Cfg type;
};
template <>
struct BwdTile<float, gg::TileConfig<64, 128, 8, 8>> {
  typedef gg::TileConfig<64, 128, 8, 8, GG_CONV_BWD_BK> type;
};

template <typename T, typename Cfg>
__device__ void bwd_input_gemm(const GGConvGemm& g, T* dx, const T* dy, const T* w, T* ws) {
  gg::gemm_tiled<T, typename BwdTile<T, Cfg>::type>(BinA<T>{w, g}, BinB<T>{dy, g}, BinStore<T>{dx, g}, g.C, g.N * g.Hp * g.Wp,
                         g.K * g.Ra * g.Sa, g.splits, ws);
}
template <typename T, typename Cfg>
__device__ void bwd_weight_gemm(const GGConvGemm& g, T* dw, const T* dy, const T* x, T* ws) {
  const int CRS = g.C * g.R * g.S;
  gg::gemm_tiled<T, typename BwdTile<T, Cfg>::type>(BwA<T>{dy, g}, BwB<T>{XGather<T>{x, g}}, DenseStore<T>{dw, CRS}, g.K, CRS,
                         g.N * g.OH * g.OW, g.splits, ws);
}

typedef gg::TileConfig<128, 128, 8, 8> Tile128x128;  // 256 threads
typedef gg::TileConfig<64, 128, 8, 8> Tile64x128;    // 128 threads
typedef gg::TileConfig<32, 128, 4, 8> Tile32x128;    // 128 threads
typedef gg::TileConfig<128, 128, 8, 8, 16> Tile128x128k16;  // 256 threads, k steps of 16 (a tuner candidate)
// 128 x 128 k-16 with 8 x 4 micro-tiles a warp (gemm_engine.cuh, TileConfig's WARPS): a third
// less shared-memory traffic per FMA (a tuner candidate; the strided forwards' tile).
typedef gg::TileConfig<128, 128, 8, 8, 16, true, true> Tile128x128w;
// Narrow tiles (tuner candidates) for products with a small side, where a 128-wide tile mostly
// multiplies zeros: weight gradients of few channels (dW[K x CRS] with CRS = 9, 27, 144; a first
// layer's K = 16) and forwards / input gradients with 32 or fewer rows.
typedef gg::TileConfig<32, 32, 4, 4, 16> Tile32x32k16;  // 64 threads
typedef gg::TileConfig<64, 32, 4, 4> Tile64x32;         // 128 threads
typedef gg::TileConfig<32, 64, 4, 4> Tile32x64;         // 128 threads
// 64 x 128's occupancy with 128 x 128's gathers per multiply: the image side (the forward's and
// input gradient's columns, the weight gradient's) takes the 64, so a thread gathers 4 image
// values a k step instead of 8 (a tuner candidate).
typedef gg::TileConfig<128, 64, 8, 8> Tile128x64;       // 128 threads
// The same in k steps of 16 (half the barriers; forward and input gradient: the weight
// gradient's spilled at 168 registers): a tuner candidate for the strided layers.
typedef gg::TileConfig<128, 64, 8, 8, 16> Tile128x64k16;  // 128 threads

// ---- direct kernels ---------------------------------------------------------------------
// grid: x = output tiles (tiles_h * tiles_w), y = groups of kKG output channels, z = images.
template <typename T>
__device__ void fwd_direct(const GGConv& g, T* y, const T* x, const T* w, const T* bias) {
  __shared__ T xs[kDirectInBytes / sizeof(T)];
  __shared__ T ws[kDirectWBytes / sizeof(T)];
  const int C = (int)g.C, H = (int)g.H, W = (int)g.W, K = (int)g.K, R = (int)g.R, S = (int)g.S;
  const int OH = (int)g.OH, OW = (int)g.OW, sh = (int)g.sh, sw = (int)g.sw;
  const int tiles_w = (OW + kTile - 1) / kTile, tiles_h = (OH + kTile - 1) / kTile;
  const int IHt = (kTile - 1) * sh + R, IWt = (kTile - 1) * sw + S;
  const int CRS = C * R * S, RS = R * S;
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  for (int nb = blockIdx.z; nb < (int)g.N; nb += gridDim.z)
    for (int kg = blockIdx.y; kg * kKG < K; kg += gridDim.y)
      for (int t = blockIdx.x; t < tiles_h * tiles_w; t += gridDim.x) {
        const int oh0 = (t / tiles_w) * kTile, ow0 = (t % tiles_w) * kTile;
        const int k0 = kg * kKG;
        const int kn = K - k0 < kKG ? K - k0 : kKG;
        for (int e = threadIdx.x; e < kKG * CRS; e += blockDim.x)
          ws[e] = e < kn * CRS ? w[k0 * CRS + e] : T(0);
        T acc[kKG];
#pragma unroll
        for (int q = 0; q < kKG; ++q) acc[q] = T(0);
        const int ih0 = oh0 * sh - (int)g.pt, iw0 = ow0 * sw - (int)g.pl;
        for (int c = 0; c < C; ++c) {
          __syncthreads();  // the previous channel's tile is no longer read
          for (int e = threadIdx.x; e < IHt * IWt; e += blockDim.x) {
            const int ih = ih0 + e / IWt, iw = iw0 + e % IWt;
            xs[e] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[((nb * C + c) * H + ih) * W + iw] : T(0);
          }
          __syncthreads();
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < S; ++s) {
              const T xv = xs[(ty * sh + r) * IWt + tx * sw + s];
#pragma unroll
              for (int q = 0; q < kKG; ++q) acc[q] += xv * ws[q * CRS + c * RS + r * S + s];
            }
        }
        const int oh = oh0 + ty, ow = ow0 + tx;
        if (oh < OH && ow < OW) {
#pragma unroll
          for (int q = 0; q < kKG; ++q)
            if (q < kn) y[((nb * K + k0 + q) * OH + oh) * OW + ow] = acc[q] + (bias ? bias[k0 + q] : T(0));
        }
        __syncthreads();  // ws is rewritten by the next tile
      }
}

// grid: x = pixel blocks of one input plane, y = input channels, z = images. w[:, c] (K*R*S
// values) sits in shared memory.
template <typename T>
__device__ void bwd_input_direct(const GGConv& g, T* dx, const T* dy, const T* w) {
  __shared__ T ws[kDirectWBytes / sizeof(T)];
  const int C = (int)g.C, H = (int)g.H, W = (int)g.W, K = (int)g.K, R = (int)g.R, S = (int)g.S;
  const int OH = (int)g.OH, OW = (int)g.OW, sh = (int)g.sh, sw = (int)g.sw, RS = R * S;
  const int HW = H * W;
  for (int nb = blockIdx.z; nb < (int)g.N; nb += gridDim.z)
    for (int c = blockIdx.y; c < C; c += gridDim.y) {
      __syncthreads();
      for (int e = threadIdx.x; e < K * RS; e += blockDim.x) {
        const int k = e / RS, rs = e - k * RS;
        ws[e] = w[(k * C + c) * RS + rs];
      }
      __syncthreads();
      for (int p0 = blockIdx.x * blockDim.x; p0 < HW; p0 += gridDim.x * blockDim.x) {
        const int p = p0 + threadIdx.x;
        if (p >= HW) continue;
        const int h = p / W, wc = p - h * W;
        T acc = 0;
        for (int r = 0; r < R; ++r) {
          const int th = h + (int)g.pt - r;
          if (th < 0 || th % sh) continue;
          const int oh = th / sh;
          if (oh >= OH) continue;
          for (int s = 0; s < S; ++s) {
            const int tw = wc + (int)g.pl - s;
            if (tw < 0 || tw % sw) continue;
            const int ow = tw / sw;
            if (ow >= OW) continue;
            for (int k = 0; k < K; ++k) acc += dy[((nb * K + k) * OH + oh) * OW + ow] * ws[k * RS + r * S + s];
          }
        }
        dx[(nb * C + c) * HW + p] = acc;
      }
    }
}

// Input gradient of a 3x3 stride-1 layer with CN <= 4 input channels (a first layer: ResNet-18's
// x [32, 3, 32, 32], w [64, 3, 3, 3]), where the GEMM's C rows fill CN / 32 of a product tile
// and bwd_input_direct reads dy from global memory once per tap. A block owns a 32 x 32 tile
// of dx of one image, all CN channels; thread (tx, ty) computes column tx, rows 8 ty .. 8 ty + 7
// (8 * CN accumulators). Per step the (32 + 2) x (32 + 2) dy windows of kFewKC output channels
// (zeros outside dy) and their weights w[k, :, :, :] sit in shared memory; per channel k a
// thread reads a 10 x 3 register window and its weights (float4 broadcasts) and does
// 8 * 9 * CN FMAs:
//   dx[n, c, h, w] = sum_k sum_{r,s} dy[n, k, h + pt - r, w + pl - s] w[k, c, r, s]
// The window's row of (h, r) is (h - h0) + 2 - r (its origin is dy row h0 + pt - 2), its
// column of (w, s) likewise. Shared memory: 4 * 34 * 34 + 4 * 36 words = 19 KB.
constexpr int kFewTile = 32, kFewRows = 8, kFewKC = 4, kFewThreads = 128;  // kFewKC = kFewThreads / 32
template <int CN>
__device__ void bwd_input_fewc(const GGConv& g, float* dx, const float* dy, const float* w) {
  constexpr int TP = kFewTile + 2;          // dy window rows and columns
  constexpr int WL = (CN * 9 + 3) / 4 * 4;  // one k's weights w[k, :, :, :], padded to whole float4
  __shared__ float ys[kFewKC][TP][TP];
  __shared__ __align__(16) float wsh[kFewKC][WL];
  const int H = (int)g.H, W = (int)g.W, K = (int)g.K, OH = (int)g.OH, OW = (int)g.OW;
  const int tiles_w = (W + kFewTile - 1) / kFewTile, tiles = tiles_w * ((H + kFewTile - 1) / kFewTile);
  const int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32;  // ty < kFewThreads / 32 = 4
  for (int nb = blockIdx.y; nb < (int)g.N; nb += gridDim.y)
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      const int h0 = (t / tiles_w) * kFewTile, w0 = (t - (t / tiles_w) * tiles_w) * kFewTile;
      const int oh0 = h0 + (int)g.pt - 2, ow0 = w0 + (int)g.pl - 2;
      const float* dyn = dy + (int64_t)nb * K * OH * OW;
      float acc[CN][kFewRows];
#pragma unroll
      for (int c = 0; c < CN; ++c)
#pragma unroll
        for (int i = 0; i < kFewRows; ++i) acc[c][i] = 0.f;
      for (int k0 = 0; k0 < K; k0 += kFewKC) {
        __syncthreads();  // the previous step's windows are no longer read
        // Warp ty stages output channel k0 + ty (kFewKC is the number of warps): lane tx reads
        // column tx of the window's 34 rows, unrolled so the loads issue together (a loop of
        // dependent iterations paid a memory latency per row: 214 us for ResNet-18's first
        // layer on 8 SMs), then lanes take the 2 x 34 halo words of columns 32 and 33.
        {
          const int k = k0 + ty;
          const bool kin = k < K;
          const int64_t row0 = ((int64_t)(kin ? k : 0) * OH + oh0) * OW + ow0;  // window (0, 0) in dyn
          const bool cin = (unsigned)(ow0 + tx) < (unsigned)OW;
          const float* src = dyn + (kin && cin ? row0 + tx : 0);  // column tx of the window's row 0
#pragma unroll
          for (int a = 0; a < TP; ++a) {
            const bool ok = kin && cin && (unsigned)(oh0 + a) < (unsigned)OH;
            ys[ty][a][tx] = ok ? src[a * OW] : 0.f;
          }
#pragma unroll
          for (int q = 0; q < (2 * TP + 31) / 32; ++q) {
            const int j = tx + 32 * q, a = j >> 1, b = kFewTile + (j & 1);
            if (j < 2 * TP) {
              const bool ok = kin && (unsigned)(oh0 + a) < (unsigned)OH && (unsigned)(ow0 + b) < (unsigned)OW;
              ys[ty][a][b] = ok ? dyn[row0 + a * OW + b] : 0.f;
            }
          }
        }
        for (int e = threadIdx.x; e < kFewKC * WL; e += kFewThreads) {
          const int kk = e / WL, j = e - kk * WL;  // j = c * 9 + r * 3 + s
          wsh[kk][j] = (k0 + kk < K && j < CN * 9) ? w[(int64_t)(k0 + kk) * CN * 9 + j] : 0.f;
        }
        __syncthreads();
#pragma unroll 1
        for (int kk = 0; kk < kFewKC; ++kk) {
          float wr[WL];
#pragma unroll
          for (int q = 0; q < WL / 4; ++q) gg::load4(&wsh[kk][4 * q], wr + 4 * q);
          float win[kFewRows + 2][3];
#pragma unroll
          for (int a = 0; a < kFewRows + 2; ++a)
#pragma unroll
            for (int b = 0; b < 3; ++b) win[a][b] = ys[kk][ty * kFewRows + a][tx + b];
#pragma unroll
          for (int c = 0; c < CN; ++c)
#pragma unroll
            for (int r = 0; r < 3; ++r)
#pragma unroll
              for (int s = 0; s < 3; ++s) {
                const float wv = wr[c * 9 + r * 3 + s];
#pragma unroll
                for (int i = 0; i < kFewRows; ++i) acc[c][i] = fma(win[i + 2 - r][2 - s], wv, acc[c][i]);
              }
        }
      }
      const int wc = w0 + tx;
      if (wc < W) {
#pragma unroll
        for (int c = 0; c < CN; ++c)
#pragma unroll
          for (int i = 0; i < kFewRows; ++i) {
            const int h = h0 + ty * kFewRows + i;
            if (h < H) dx[(((int64_t)nb * CN + c) * H + h) * W + wc] = acc[c][i];
          }
      }
    }
}

// One block per weight element (grid-stride over K*C*R*S), reducing over n, oh, ow.
template <typename T>
__device__ void bwd_weight_direct(const GGConv& g, T* dw, const T* dy, const T* x) {
  __shared__ T scratch[32];
  const int C = (int)g.C, H = (int)g.H, W = (int)g.W, K = (int)g.K, R = (int)g.R, S = (int)g.S;
  const int OH = (int)g.OH, OW = (int)g.OW, P = OH * OW, NP = (int)g.N * P;
  const int total = K * C * R * S;
  for (int e = blockIdx.x; e < total; e += gridDim.x) {
    const int s = e % S, r = (e / S) % R, c = (e / (R * S)) % C, k = e / (C * R * S);
    T acc = 0;
    for (int j = threadIdx.x; j < NP; j += blockDim.x) {
      const int nb = j / P, p = j - nb * P, oh = p / OW, ow = p - oh * OW;
      const int ih = oh * (int)g.sh - (int)g.pt + r, iw = ow * (int)g.sw - (int)g.pl + s;
      if (ih >= 0 && ih < H && iw >= 0 && iw < W)
        acc += dy[(nb * K + k) * P + p] * x[((nb * C + c) * H + ih) * W + iw];
    }
    acc = gg::block_sum(acc, scratch);
    if (threadIdx.x == 0) dw[e] = acc;
  }
}


// ---- grouped and dilated: generic kernels ----------------------------------------------------
// Any groups, dilation, stride and padding, straight from the definition (conv_geometry.h):
//   y[n, k, i, j] = b[k] + sum_{c' < C/G, r, s} x[n, g*(C/G) + c', i*sh + r*dh - pt, j*sw + s*dw - pl] w[k, c', r, s]
// with g = k / (K/G). Forward and input gradient: one thread per output element (a depthwise
// layer is memory-bound, so a thread's window is all the work there is); weight gradient: one
// block per weight element, reducing over the images and output pixels in a fixed order.
template <typename T>
__device__ void fwd_generic(const GGConv& g, T* y, const T* x, const T* w, const T* bias) {
  const int64_t Cg = g.C / g.G, Kg = g.K / g.G, total = g.N * g.K * g.OH * g.OW;
  GG_FOR(i, total) {
    const int64_t ow = i % g.OW, t = i / g.OW, oh = t % g.OH, t2 = t / g.OH, k = t2 % g.K, n = t2 / g.K;
    const T* xb = x + (n * g.C + (k / Kg) * Cg) * g.H * g.W;
    const T* wk = w + k * Cg * g.R * g.S;
    T acc = bias ? bias[k] : T(0);
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t r = 0; r < g.R; ++r) {
        const int64_t ih = oh * g.sh - g.pt + r * g.dh;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t s = 0; s < g.S; ++s) {
          const int64_t iw = ow * g.sw - g.pl + s * g.dw;
          if (iw >= 0 && iw < g.W) acc += xb[(c * g.H + ih) * g.W + iw] * wk[(c * g.R + r) * g.S + s];
        }
      }
    y[i] = acc;
  }
}

// dx[n, c, h, w] = sum over the group's output channels k and the taps with
// h + pt - r*dh = oh*sh (exactly, 0 <= oh < OH) and likewise for w, of dy[n, k, oh, ow] w[k, c', r, s].
template <typename T>
__device__ void bwd_input_generic(const GGConv& g, T* dx, const T* dy, const T* w) {
  const int64_t Cg = g.C / g.G, Kg = g.K / g.G, total = g.N * g.C * g.H * g.W;
  GG_FOR(i, total) {
    const int64_t iw = i % g.W, t = i / g.W, ih = t % g.H, t2 = t / g.H, c = t2 % g.C, n = t2 / g.C;
    const int64_t grp = c / Cg, cp = c - grp * Cg;
    T acc = 0;
    for (int64_t kk = 0; kk < Kg; ++kk) {
      const int64_t k = grp * Kg + kk;
      const T* dyk = dy + (n * g.K + k) * g.OH * g.OW;
      const T* wk = w + (k * Cg + cp) * g.R * g.S;
      for (int64_t r = 0; r < g.R; ++r) {
        const int64_t th = ih + g.pt - r * g.dh;
        if (th < 0 || th % g.sh) continue;
        const int64_t oh = th / g.sh;
        if (oh >= g.OH) continue;
        for (int64_t s = 0; s < g.S; ++s) {
          const int64_t tw = iw + g.pl - s * g.dw;
          if (tw < 0 || tw % g.sw) continue;
          const int64_t ow = tw / g.sw;
          if (ow < g.OW) acc += dyk[oh * g.OW + ow] * wk[r * g.S + s];
        }
      }
    }
    dx[i] = acc;
  }
}

// blockDim.x: a power of two, at most kGenericThreads.
constexpr int kGenericThreads = 256;
template <typename T>
__device__ void bwd_weight_generic(const GGConv& g, T* dw, const T* dy, const T* x) {
  __shared__ T part[kGenericThreads];
  const int64_t Cg = g.C / g.G, Kg = g.K / g.G, P = g.OH * g.OW, NP = g.N * P;
  const int64_t total = g.K * Cg * g.R * g.S;
  for (int64_t e = blockIdx.x; e < total; e += gridDim.x) {
    const int64_t s = e % g.S, r = (e / g.S) % g.R, cp = (e / (g.R * g.S)) % Cg, k = e / (Cg * g.R * g.S);
    const int64_t c = (k / Kg) * Cg + cp;
    T acc = 0;
    for (int64_t j = threadIdx.x; j < NP; j += blockDim.x) {
      const int64_t nb = j / P, p = j - nb * P, oh = p / g.OW, ow = p - oh * g.OW;
      const int64_t ih = oh * g.sh - g.pt + r * g.dh, iw = ow * g.sw - g.pl + s * g.dw;
      if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W)
        acc += dy[(nb * g.K + k) * P + p] * x[((nb * g.C + c) * g.H + ih) * g.W + iw];
    }
    part[threadIdx.x] = acc;  // tree sum in shared memory: a fixed order
    __syncthreads();
    for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
      if (threadIdx.x < o) part[threadIdx.x] += part[threadIdx.x + o];
      __syncthreads();
    }
    if (threadIdx.x == 0) dw[e] = part[0];
    __syncthreads();  // part is rewritten by the next element
  }
}

}  // namespace gg_conv

#define GG_CONV_GEMM(suffix, T, tile, threads, min_blocks)                                                      \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                        \
      gg_conv_fwd_gemm##tile##_##suffix(GGConvGemm g, T* y, const T* x, const T* w, const T* b, T* ws) { \
    gg_conv::fwd_gemm<T, gg_conv::Tile##tile>(g, y, x, w, b, ws);                                    \
  }                                                                                                   \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                        \
      gg_conv_bwd_input_gemm##tile##_##suffix(GGConvGemm g, T* dx, const T* dy, const T* w, T* ws) {    \
    gg_conv::bwd_input_gemm<T, gg_conv::Tile##tile>(g, dx, dy, w, ws);                               \
  }                                                                                                   \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                        \
      gg_conv_bwd_weight_gemm##tile##_##suffix(GGConvGemm g, T* dw, const T* dy, const T* x, T* ws) {   \
    gg_conv::bwd_weight_gemm<T, gg_conv::Tile##tile>(g, dw, dy, x, ws);                              \
  }

#define GG_CONV(suffix, T)                                                                          \
  GG_KERNEL void gg_conv_fwd_reduce_##suffix(GGConvGemm g, T* y, const T* b, const T* ws) {          \
    gg::split_reduce<T>(gg_conv::FwdStore<T>{y, b, g}, g.K, g.N * g.OH * g.OW, g.splits, ws);       \
  }                                                                                                 \
  GG_KERNEL void gg_conv_bwd_input_reduce_##suffix(GGConvGemm g, T* dx, const T* ws) {               \
    gg::split_reduce<T>(gg_conv::BinStore<T>{dx, g}, g.C, g.N * g.Hp * g.Wp, g.splits, ws);         \
  }                                                                                                 \
  GG_KERNEL void gg_conv_bwd_weight_reduce_##suffix(GGConvGemm g, T* dw, const T* ws) {              \
    const int crs = g.C * g.R * g.S;                                                                \
    gg::split_reduce<T>(gg_conv::DenseStore<T>{dw, crs}, g.K, crs, g.splits, ws);                   \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_fwd_direct_##suffix(GGConv g, T* y, const T* x, const T* w, \
                                                                    const T* b) {                    \
    gg_conv::fwd_direct<T>(g, y, x, w, b);                                                          \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_input_direct_##suffix(GGConv g, T* dx, const T* dy,   \
                                                                          const T* w) {              \
    gg_conv::bwd_input_direct<T>(g, dx, dy, w);                                                     \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_weight_direct_##suffix(GGConv g, T* dw, const T* dy,  \
                                                                           const T* x) {             \
    gg_conv::bwd_weight_direct<T>(g, dw, dy, x);                                                    \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_fwd_generic_##suffix(GGConv g, T* y, const T* x, const T* w, \
                                                                     const T* b) {                    \
    gg_conv::fwd_generic<T>(g, y, x, w, b);                                                         \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_input_generic_##suffix(GGConv g, T* dx, const T* dy,  \
                                                                           const T* w) {             \
    gg_conv::bwd_input_generic<T>(g, dx, dy, w);                                                    \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_weight_generic_##suffix(GGConv g, T* dw, const T* dy, \
                                                                            const T* x) {            \
    gg_conv::bwd_weight_generic<T>(g, dw, dy, x);                                                   \
  }
// The few-channel input gradient, float only (one kernel per channel count; the launcher
// checks C <= 4, 3x3, stride 1, no groups or dilation).
#define GG_CONV_FEWC(cn)                                                                            \
  GG_KERNEL void __launch_bounds__(gg_conv::kFewThreads, 4)                                          \
      gg_conv_bwd_input_fewc##cn##_f32(GGConv g, float* dx, const float* dy, const float* w) {       \
    gg_conv::bwd_input_fewc<cn>(g, dx, dy, w);                                                      \
  }
GG_CONV_FEWC(1)
GG_CONV_FEWC(2)
GG_CONV_FEWC(3)
GG_CONV_FEWC(4)
// dx = 0 before a strided input gradient whose only phase with taps is (0, 0) (the launcher),
// 16-byte stores where aligned.
#define GG_CONV_ZERO(suffix, T, V)                                                                   \
  GG_KERNEL void __launch_bounds__(256) gg_conv_zero_##suffix(T* p, int64_t n) {                     \
    const int per = (int)(sizeof(V) / sizeof(T));                                                   \
    const int64_t head = (((uintptr_t)p & (sizeof(V) - 1)) == 0) ? 0 : n;                           \
    const int64_t nv = (n - head) / per;                                                             \
    GG_FOR(i, nv) reinterpret_cast<V*>(p)[i] = V{};                                                  \
    GG_FOR(i, n - nv * per) p[nv * per + i] = T(0);                                                  \
  }
GG_CONV(f32, float)
GG_CONV(f64, double)
GG_CONV_ZERO(f32, float, float4)
GG_CONV_ZERO(f64, double, double2)
// One direction's GEMM kernel of one tile (the narrow tiles exist only where they apply).
#define GG_CONV_GEMM_FWD(suffix, T, tile, threads, min_blocks)                                         \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                  \
      gg_conv_fwd_gemm##tile##_##suffix(GGConvGemm g, T* y, const T* x, const T* w, const T* b, T* ws) { \
    gg_conv::fwd_gemm<T, gg_conv::Tile##tile>(g, y, x, w, b, ws);                                      \
  }
#define GG_CONV_GEMM_BIN(suffix, T, tile, threads, min_blocks)                                         \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                  \
      gg_conv_bwd_input_gemm##tile##_##suffix(GGConvGemm g, T* dx, const T* dy, const T* w, T* ws) {   \
    gg_conv::bwd_input_gemm<T, gg_conv::Tile##tile>(g, dx, dy, w, ws);                                 \
  }
#define GG_CONV_GEMM_BW(suffix, T, tile, threads, min_blocks)                                          \
  GG_KERNEL void __launch_bounds__(threads, min_blocks)                                                  \
      gg_conv_bwd_weight_gemm##tile##_##suffix(GGConvGemm g, T* dw, const T* dy, const T* x, T* ws) {  \
    gg_conv::bwd_weight_gemm<T, gg_conv::Tile##tile>(g, dw, dy, x, ws);                                \
  }
// Tile shapes per dtype: float has every shape (the launcher or the tuner picks); double, whose
// kernels exist for gradient checks rather than speed, has the smallest micro-tile only.
// min_blocks 3 for the 128-thread float tiles caps them at 170 registers (the 64 x 128 weight
// gradient used 213, two blocks per SM) without spills; 4 would spill.
GG_CONV_GEMM(f32, float, 128x128, 256, 1)
GG_CONV_GEMM(f32, float, 64x128, 128, GG_CONV_MINB_64)
GG_CONV_GEMM(f32, float, 32x128, 128, 3)
GG_CONV_GEMM(f32, float, 128x128k16, 256, 1)
GG_CONV_GEMM(f32, float, 128x128w, 256, 1)
GG_CONV_GEMM(f64, double, 32x128, 128, 1)
// Narrow tiles: weight gradients (32 x 32 in k steps of 16, 64 x 32), forwards and input
// gradients of 32 or fewer rows (32 x 64).
GG_CONV_GEMM_BW(f32, float, 32x32k16, 64, 6)
GG_CONV_GEMM_BW(f32, float, 64x32, 128, 4)
GG_CONV_GEMM_FWD(f32, float, 32x64, 128, 4)
GG_CONV_GEMM_BIN(f32, float, 32x64, 128, 4)
GG_CONV_GEMM_FWD(f32, float, 128x64, 128, 3)
GG_CONV_GEMM_BIN(f32, float, 128x64, 128, 2)  // capped at 168 registers it spilled
GG_CONV_GEMM_BW(f32, float, 128x64, 128, 3)
GG_CONV_GEMM_FWD(f32, float, 128x64k16, 128, 3)
GG_CONV_GEMM_BIN(f32, float, 128x64k16, 128, 2)  // capped at 168 registers it spilled
