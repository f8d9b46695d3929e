// Layer normalization (glassgrad/autodiff/layer_norm_geometry.h; the gradient is derived in
// docs/gpt-step.md). x and grad_y dense [rows, cols], weight and bias dense [cols], the
// statistics dense [rows]:
//
//   gg_ln_fwd:    a warp per row: mean = sum(x) / cols, var = sum((x - mean)^2) / cols (two
//                 passes over the row, which the second reads from L1), rstd = 1 / sqrt(var + eps),
//                 y = (x - mean) * rstd * w + b.
//   gg_ln_dx:     a warp per row: with xhat = (x - mean) * rstd and gw = g * w,
//                 dx = rstd * (gw - sum(gw) / cols - xhat * sum(gw * xhat) / cols)
//                      (+ grad_mean / cols - grad_rstd * rstd^2 * xhat / cols).
//   gg_ln_params: dweight = sum over rows of g * xhat, dbias = sum over rows of g. A block owns
//                 32 columns (a lane each: the rows are read coalesced) of one partition of
//                 part_rows rows, its 8 warps take every 8th row, and the 8 sums are added in warp
//                 order through shared memory; one partition writes dweight and dbias, more
//                 write their sums to the workspace [parts][2][cols], which
//   gg_ln_params_sum adds in partition order (the results do not depend on timing).
//
// Every row's reductions are warp shuffles (__shfl_xor_sync: every lane gets the sum), so a
// row's arithmetic is fixed by cols alone. The row loops are uniform over the block (a warp
// past the last row computes on row 0 and stores nothing), so every thread reaches every
// shuffle, as the kernels' CPU emulation requires.
#include "common.cuh"
#include "layer_norm_params.h"

namespace gg_ln {

constexpr int kWarps = 8;  // rows (warps) of a 256-thread block

template <typename T>
__device__ __forceinline__ T warp_all(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T>
__device__ void forward(const GGLayerNorm& p, T* y, T* mean, T* rstd, const T* x, const T* w, const T* b) {
  const int lane = threadIdx.x & 31;
  const T n = (T)p.cols, eps = (T)p.eps;
  for (int64_t r0 = (int64_t)blockIdx.x * kWarps; r0 < p.rows; r0 += (int64_t)gridDim.x * kWarps) {
    const int64_t rr = r0 + (threadIdx.x >> 5);
    const bool live = rr < p.rows;
    const int64_t r = live ? rr : 0;
    const T* xr = x + r * p.cols;
    T s = 0;
    for (int64_t c = lane; c < p.cols; c += 32) s += xr[c];
    const T m = p.cols ? warp_all(s) / n : T(0);
    T q = 0;
    for (int64_t c = lane; c < p.cols; c += 32) {
      const T d = xr[c] - m;
      q += d * d;
    }
    const T var = p.cols ? warp_all(q) / n : T(0) / T(0);  // empty row: rstd NaN, as PyTorch's
    const T inv = T(1) / gg::gg_sqrt(var + eps);
    if (!live) continue;
    if (lane == 0) {
      mean[r] = m;
      rstd[r] = inv;
    }
    T* yr = y + r * p.cols;
    for (int64_t c = lane; c < p.cols; c += 32) {
      T v = (xr[c] - m) * inv;
      if (p.has_weight) v *= w[c];
      if (p.has_bias) v += b[c];
      yr[c] = v;
    }
  }
}

template <typename T>
__device__ void dx(const GGLayerNorm& p, T* dxo, const T* g, const T* x, const T* mean, const T* rstd, const T* w,
                   const T* gmean, const T* grstd) {
  const int lane = threadIdx.x & 31;
  const T inv_n = p.cols ? T(1) / (T)p.cols : T(0);
  for (int64_t r0 = (int64_t)blockIdx.x * kWarps; r0 < p.rows; r0 += (int64_t)gridDim.x * kWarps) {
    const int64_t rr = r0 + (threadIdx.x >> 5);
    const bool live = rr < p.rows;
    const int64_t r = live ? rr : 0;
    const T* xr = x + r * p.cols;
    const T* gr = g + r * p.cols;
    const T m = mean[r], s = rstd[r];
    T a = 0, cc = 0;
    for (int64_t c = lane; c < p.cols; c += 32) {
      const T gw = p.has_weight ? gr[c] * w[c] : gr[c];
      a += gw;
      cc += gw * ((xr[c] - m) * s);
    }
    a = warp_all(a) * inv_n;
    cc = warp_all(cc) * inv_n;
    if (!live) continue;
    // The statistics' own gradients: d mean / dx = 1 / cols, d rstd / dx = -rstd^2 xhat / cols.
    const T k_mean = p.stat_grads ? gmean[r] * inv_n : T(0);
    const T k_rstd = p.stat_grads ? -grstd[r] * s * s * inv_n : T(0);
    T* dr = dxo + r * p.cols;
    for (int64_t c = lane; c < p.cols; c += 32) {
      const T xh = (xr[c] - m) * s;
      const T gw = p.has_weight ? gr[c] * w[c] : gr[c];
      dr[c] = s * (gw - a - xh * cc) + k_mean + k_rstd * xh;
    }
  }
}

template <typename T>
__device__ void params(const GGLayerNorm& p, T* dw, T* db, T* ws, const T* g, const T* x, const T* mean,
                       const T* rstd) {
  __shared__ T sw[kWarps][33], sb[kWarps][33];
  const int lane = threadIdx.x & 31, wy = threadIdx.x >> 5;
  for (int64_t part = blockIdx.y; part < p.parts; part += gridDim.y) {
    const int64_t r0 = part * p.part_rows, r1 = r0 + p.part_rows < p.rows ? r0 + p.part_rows : p.rows;
    for (int64_t c0 = (int64_t)blockIdx.x * 32; c0 < p.cols; c0 += (int64_t)gridDim.x * 32) {
      const int64_t c = c0 + lane;
      T aw = 0, ab = 0;
      if (c < p.cols) {
        for (int64_t r = r0 + wy; r < r1; r += kWarps) {
          const T gv = g[r * p.cols + c];
          aw += gv * ((x[r * p.cols + c] - mean[r]) * rstd[r]);
          ab += gv;
        }
      }
      sw[wy][lane] = aw;
      sb[wy][lane] = ab;
      __syncthreads();
      if (wy == 0 && c < p.cols) {
        T tw = sw[0][lane], tb = sb[0][lane];
#pragma unroll
        for (int k = 1; k < kWarps; ++k) {
          tw += sw[k][lane];
          tb += sb[k][lane];
        }
        if (p.parts == 1) {
          if (p.has_weight) dw[c] = tw;
          if (p.has_bias) db[c] = tb;
        } else {
          ws[part * 2 * p.cols + c] = tw;
          ws[part * 2 * p.cols + p.cols + c] = tb;
        }
      }
      __syncthreads();  // sw and sb are rewritten by the next column block
    }
  }
}

template <typename T>
__device__ void params_sum(const GGLayerNorm& p, T* dw, T* db, const T* ws) {
  GG_FOR(c, p.cols) {
    T tw = 0, tb = 0;
    for (int64_t part = 0; part < p.parts; ++part) {
      tw += ws[part * 2 * p.cols + c];
      tb += ws[part * 2 * p.cols + p.cols + c];
    }
    if (p.has_weight) dw[c] = tw;
    if (p.has_bias) db[c] = tb;
  }
}

}  // namespace gg_ln

#define GG_LN_KERNELS(T, S)                                                                                    \
  GG_KERNEL void __launch_bounds__(256) gg_ln_fwd_##S(GGLayerNorm p, T* y, T* mean, T* rstd, const T* x,      \
                                                      const T* w, const T* b) {                                \
    gg_ln::forward<T>(p, y, mean, rstd, x, w, b);                                                              \
  }                                                                                                            \
  GG_KERNEL void __launch_bounds__(256) gg_ln_dx_##S(GGLayerNorm p, T* dx, const T* g, const T* x,            \
                                                     const T* mean, const T* rstd, const T* w, const T* gmean, \
                                                     const T* grstd) {                                         \
    gg_ln::dx<T>(p, dx, g, x, mean, rstd, w, gmean, grstd);                                                    \
  }                                                                                                            \
  GG_KERNEL void __launch_bounds__(256) gg_ln_params_##S(GGLayerNorm p, T* dw, T* db, T* ws, const T* g,      \
                                                         const T* x, const T* mean, const T* rstd) {           \
    gg_ln::params<T>(p, dw, db, ws, g, x, mean, rstd);                                                         \
  }                                                                                                            \
  GG_KERNEL void __launch_bounds__(256) gg_ln_params_sum_##S(GGLayerNorm p, T* dw, T* db, const T* ws) {      \
    gg_ln::params_sum<T>(p, dw, db, ws);                                                                       \
  }
GG_LN_KERNELS(float, f32)
GG_LN_KERNELS(double, f64)
#undef GG_LN_KERNELS
