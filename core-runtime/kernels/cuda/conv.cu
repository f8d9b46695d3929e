// 2-D convolution, NCHW input x [N, C, H, W], weight w [K, C, R, S], output y [N, K, OH, OW],
// stride (sh, sw), zero padding (top pt, left pl; bottom/right only shape OH, OW). From the
// seed's section 3.2, generalized to stride and padding:
//
//   forward:          y[n,k,oh,ow] = b[k] + sum_{c,r,s} x[n, c, oh*sh - pt + r, ow*sw - pl + s] * w[k,c,r,s]
//   backward-input:   dx[n,c,h,w]  = sum_{k,r,s} dy[n, k, (h + pt - r)/sh, (w + pl - s)/sw] * w[k,c,r,s]
//                                    (only terms where both divisions are exact and in range)
//   backward-weight:  dw[k,c,r,s]  = sum_{n,oh,ow} dy[n,k,oh,ow] * x[n, c, oh*sh - pt + r, ow*sw - pl + s]
//
// Out-of-range image coordinates read as 0 (padding is never materialized). All tensors are
// dense; index arithmetic is 32-bit (the launcher refuses tensors of 2^31 elements or more).
//
// Two algorithms, picked per shape by the launcher (src/cuda/conv.cpp):
//  * direct: for few input channels (the first layers). Forward stages a 16 x 16 output
//    tile's input window for one channel plus the weights of 8 output channels in shared
//    memory; backward-input stages w[:, c] for one input plane; backward-weight gives each
//    weight element a block that reduces over n, oh, ow.
//  * implicit GEMM (gemm_tile.cuh): forward is Y[K x NP] = W[K x CRS] X[CRS x NP],
//    backward-input dX[C x NHW] = W^T[C x KRS] dY[KRS x NHW], backward-weight
//    dW[K x CRS] = dY[K x NP] X^T[NP x CRS], with the long NP axis split across blockIdx.z
//    into a workspace of partial sums that gg_conv_bwd_weight_reduce adds in a fixed order.
#include "gemm_tile.cuh"

namespace gg_conv {

constexpr int kTile = 16;   // direct forward: 16 x 16 outputs per block
constexpr int kKG = 8;      // direct forward: output channels per block
// Shared-memory budgets of the direct kernels, in bytes (the launcher checks the fit).
constexpr int kDirectInBytes = 16384;
constexpr int kDirectWBytes = 8192;

// ---- implicit GEMM operands ------------------------------------------------------------
template <typename T>
struct FwdW {  // A(k, crs) = w[k, crs]
  const T* w;
  int CRS;
  int k_major;
  __device__ T operator()(int64_t m, int64_t k) const { return w[(int)m * CRS + (int)k]; }
};
template <typename T>
struct FwdX {  // B(crs, pix) = x gathered
  const T* x;
  GGConv g;
  int n_major;
  __device__ T operator()(int64_t kk, int64_t nn) const {
    const int P = (int)(g.OH * g.OW), RS = (int)(g.R * g.S);
    const int pix = (int)nn, crs = (int)kk;
    const int nb = pix / P, p = pix - nb * P;
    const int oh = p / (int)g.OW, ow = p - oh * (int)g.OW;
    const int c = crs / RS, rs = crs - c * RS;
    const int r = rs / (int)g.S, s = rs - r * (int)g.S;
    const int ih = oh * (int)g.sh - (int)g.pt + r, iw = ow * (int)g.sw - (int)g.pl + s;
    if (ih < 0 || ih >= (int)g.H || iw < 0 || iw >= (int)g.W) return T(0);
    return x[((nb * (int)g.C + c) * (int)g.H + ih) * (int)g.W + iw];
  }
};
template <typename T>
struct FwdY {
  T* y;
  const T* bias;
  GGConv g;
  __device__ void operator()(int64_t m, int64_t n, T v) const {
    const int P = (int)(g.OH * g.OW);
    const int k = (int)m, pix = (int)n, nb = pix / P, p = pix - nb * P;
    y[(nb * (int)g.K + k) * P + p] = v + (bias ? bias[k] : T(0));
  }
};

template <typename T>
struct BinW {  // A(c, krs) = w[k, c, r, s]
  const T* w;
  GGConv g;
  int k_major;
  __device__ T operator()(int64_t m, int64_t kk) const {
    const int RS = (int)(g.R * g.S);
    const int krs = (int)kk, k = krs / RS, rs = krs - k * RS;
    return w[(k * (int)g.C + (int)m) * RS + rs];
  }
};
template <typename T>
struct BinDY {  // B(krs, pix) = dy gathered (pix over the input image)
  const T* dy;
  GGConv g;
  int n_major;
  __device__ T operator()(int64_t kk, int64_t nn) const {
    const int HW = (int)(g.H * g.W), RS = (int)(g.R * g.S);
    const int pix = (int)nn, nb = pix / HW, hw = pix - nb * HW;
    const int h = hw / (int)g.W, w = hw - h * (int)g.W;
    const int krs = (int)kk, k = krs / RS, rs = krs - k * RS;
    const int r = rs / (int)g.S, s = rs - r * (int)g.S;
    const int th = h + (int)g.pt - r, tw = w + (int)g.pl - s;
    if (th < 0 || tw < 0) return T(0);
    const int oh = th / (int)g.sh, ow = tw / (int)g.sw;
    if (oh * (int)g.sh != th || ow * (int)g.sw != tw || oh >= (int)g.OH || ow >= (int)g.OW) return T(0);
    return dy[((nb * (int)g.K + k) * (int)g.OH + oh) * (int)g.OW + ow];
  }
};
template <typename T>
struct BinDX {
  T* dx;
  GGConv g;
  __device__ void operator()(int64_t m, int64_t n, T v) const {
    const int HW = (int)(g.H * g.W), pix = (int)n, nb = pix / HW, hw = pix - nb * HW;
    dx[(nb * (int)g.C + (int)m) * HW + hw] = v;
  }
};

template <typename T>
struct BwDY {  // A(k, np) = dy[n, k, p]
  const T* dy;
  GGConv g;
  int k_major;
  __device__ T operator()(int64_t m, int64_t kk) const {
    const int P = (int)(g.OH * g.OW), np = (int)kk, nb = np / P, p = np - nb * P;
    return dy[(nb * (int)g.K + (int)m) * P + p];
  }
};
template <typename T>
struct BwX {  // B(np, crs) = x gathered
  const T* x;
  GGConv g;
  int n_major;
  __device__ T operator()(int64_t kk, int64_t nn) const {
    const int P = (int)(g.OH * g.OW), RS = (int)(g.R * g.S);
    const int np = (int)kk, nb = np / P, p = np - nb * P;
    const int oh = p / (int)g.OW, ow = p - oh * (int)g.OW;
    const int crs = (int)nn, c = crs / RS, rs = crs - c * RS;
    const int r = rs / (int)g.S, s = rs - r * (int)g.S;
    const int ih = oh * (int)g.sh - (int)g.pt + r, iw = ow * (int)g.sw - (int)g.pl + s;
    if (ih < 0 || ih >= (int)g.H || iw < 0 || iw >= (int)g.W) return T(0);
    return x[((nb * (int)g.C + c) * (int)g.H + ih) * (int)g.W + iw];
  }
};
template <typename T>
struct BwStore {
  T* dst;   // dw, or the workspace slice of this split
  int ld;
  __device__ void operator()(int64_t m, int64_t n, T v) const { dst[(int)m * ld + (int)n] = v; }
};

template <typename T, typename LA, typename LB, typename ST>
__device__ void gemm_grid(const LA& la, const LB& lb, const ST& st, int64_t M, int64_t N, int64_t k0, int64_t k1) {
  const int64_t tiles_m = (M + gg::kBM - 1) / gg::kBM, tiles_n = (N + gg::kBN - 1) / gg::kBN;
  for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)
    for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x)
      gg::gemm_tile<T>(la, lb, st, M, N, tm * gg::kBM, tn * gg::kBN, k0, k1);
}

template <typename T>
__device__ void fwd_igemm(const GGConv& g, T* y, const T* x, const T* w, const T* bias) {
  const int CRS = (int)(g.C * g.R * g.S);
  gemm_grid<T>(FwdW<T>{w, CRS, 1}, FwdX<T>{x, g, 1}, FwdY<T>{y, bias, g}, g.K, g.N * g.OH * g.OW, 0, CRS);
}

template <typename T>
__device__ void bwd_input_igemm(const GGConv& g, T* dx, const T* dy, const T* w) {
  gemm_grid<T>(BinW<T>{w, g, 1}, BinDY<T>{dy, g, 1}, BinDX<T>{dx, g}, g.C, g.N * g.H * g.W, 0, g.K * g.R * g.S);
}

// blockIdx.z = split index; split z covers np in [z * chunk, (z + 1) * chunk).
template <typename T>
__device__ void bwd_weight_igemm(const GGConv& g, T* dst, const T* dy, const T* x) {
  const int64_t CRS = g.C * g.R * g.S, NP = g.N * g.OH * g.OW;
  const int64_t chunk = ((NP + g.splits - 1) / g.splits + gg::kBK - 1) / gg::kBK * gg::kBK;
  for (int64_t z = blockIdx.z; z < g.splits; z += gridDim.z) {
    const int64_t k0 = z * chunk, k1 = k0 + chunk < NP ? k0 + chunk : NP;
    T* out = g.splits == 1 ? dst : dst + z * g.K * CRS;
    gemm_grid<T>(BwDY<T>{dy, g, 1}, BwX<T>{x, g, 0}, BwStore<T>{out, (int)CRS}, g.K, CRS, k0, k1);
  }
}

template <typename T>
__device__ void bwd_weight_reduce(int64_t n, int64_t splits, T* dw, const T* ws) {
  GG_FOR(i, n) {
    T s = 0;
    for (int64_t z = 0; z < splits; ++z) s += ws[z * n + i];
    dw[i] = s;
  }
}

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

}  // namespace gg_conv

#define GG_CONV(suffix, T)                                                                          \
  GG_KERNEL void __launch_bounds__(256) gg_conv_fwd_igemm_##suffix(GGConv g, T* y, const T* x, const T* w, \
                                                                   const T* b) {                     \
    gg_conv::fwd_igemm<T>(g, y, x, w, b);                                                           \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_input_igemm_##suffix(GGConv g, T* dx, const T* dy,    \
                                                                         const T* w) {               \
    gg_conv::bwd_input_igemm<T>(g, dx, dy, w);                                                      \
  }                                                                                                 \
  GG_KERNEL void __launch_bounds__(256) gg_conv_bwd_weight_igemm_##suffix(GGConv g, T* dst, const T* dy,  \
                                                                          const T* x) {              \
    gg_conv::bwd_weight_igemm<T>(g, dst, dy, x);                                                    \
  }                                                                                                 \
  GG_KERNEL void gg_conv_bwd_weight_reduce_##suffix(int64_t n, int64_t splits, T* dw, const T* ws) { \
    gg_conv::bwd_weight_reduce<T>(n, splits, dw, ws);                                               \
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
  }
GG_CONV(f32, float)
GG_CONV(f64, double)
