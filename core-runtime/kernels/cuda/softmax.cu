// Softmax, log-softmax and cross-entropy along one axis. x is viewed as [outer, D, inner]
// (D the softmax axis); with m = max_j x_j and s = sum_j exp(x_j - m):
//
//   softmax:      y_j = exp(x_j - m) / s              log_softmax: y_j = x_j - m - log s
//   softmax bwd:  dx_j = y_j (g_j - sum_i g_i y_i)     log_softmax bwd: dx_j = g_j - exp(y_j) sum_i g_i
//   cross-entropy over logits [N, C], labels [N] (int64), class weights w [C] (or ones),
//   W = sum_c w_c, e = label_smoothing, lse_n = log sum_j exp(z_nj), y = label_n:
//     loss_n = (1-e) w_y (lse_n - z_ny) + (e/C) (W lse_n - sum_c w_c z_nc), 0 if y == ignore_index
//     reduction none / sum / mean (sum over sum_n w_y of the rows not ignored)
//     dz_nj  = scale_n ((1-e) w_y (p_nj - [j = y]) + (e/C) (W p_nj - w_j)), 0 on ignored rows,
//     scale_n = g (sum), g / sum_n w_y (mean), g_n (none)
//
// Rows with inner == 1 (the usual case) get one block each (grid-stride over rows) and reduce
// through shared memory; otherwise each thread owns one (outer, inner) column and walks D.
// Cross-entropy "sum" and "mean" of at most 256 rows of at most 32 classes run in one block,
// a warp a row (ce_reduced).
// A label outside [0, C) records its row in *bad (atomicMin keeps the first); the launcher
// reads it after the kernel and raises an error naming the row and the label.
// Layouts: dense.
#include "common.cuh"
#include "softmax.h"

namespace gg_sm {

template <typename T>
__device__ T block_max_all(T v, T* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    const T u = __shfl_down_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)((blockDim.x + 31) >> 5); ++w) v = scratch[w] > v ? scratch[w] : v;
    scratch[0] = v;
  }
  __syncthreads();
  const T r = scratch[0];
  __syncthreads();
  return r;
}

// mode: 0 softmax, 1 log-softmax
template <typename T>
__device__ void forward_rows(int64_t rows, int64_t D, int mode, T* y, const T* x) {
  __shared__ T sbuf[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * D;
    T* yr = y + row * D;
    T m = gg::lowest<T>();
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) m = xr[j] > m ? xr[j] : m;
    m = block_max_all(m, sbuf);
    T s = 0;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) s += gg::gg_exp(xr[j] - m);
    s = gg::block_sum_all(s, sbuf);
    if (mode == 0) {
      const T inv = T(1) / s;
      for (int64_t j = threadIdx.x; j < D; j += blockDim.x) yr[j] = gg::gg_exp(xr[j] - m) * inv;
    } else {
      const T ls = gg::gg_log(s);
      for (int64_t j = threadIdx.x; j < D; j += blockDim.x) yr[j] = xr[j] - m - ls;
    }
  }
}

template <typename T>
__device__ void forward_cols(int64_t outer, int64_t D, int64_t inner, int mode, T* y, const T* x) {
  GG_FOR(col, outer * inner) {
    const int64_t o = col / inner, i = col - o * inner;
    const T* xc = x + o * D * inner + i;
    T* yc = y + o * D * inner + i;
    T m = gg::lowest<T>();
    for (int64_t j = 0; j < D; ++j) m = xc[j * inner] > m ? xc[j * inner] : m;
    T s = 0;
    for (int64_t j = 0; j < D; ++j) s += gg::gg_exp(xc[j * inner] - m);
    if (mode == 0) {
      for (int64_t j = 0; j < D; ++j) yc[j * inner] = gg::gg_exp(xc[j * inner] - m) / s;
    } else {
      const T ls = gg::gg_log(s);
      for (int64_t j = 0; j < D; ++j) yc[j * inner] = xc[j * inner] - m - ls;
    }
  }
}

template <typename T>
__device__ __forceinline__ T bwd_term(int mode, T g, T y) { return mode == 0 ? g * y : g; }
template <typename T>
__device__ __forceinline__ T bwd_out(int mode, T g, T y, T s) {
  return mode == 0 ? y * (g - s) : g - gg::gg_exp(y) * s;
}

template <typename T>
__device__ void backward_rows(int64_t rows, int64_t D, int mode, T* dx, const T* g, const T* y) {
  __shared__ T sbuf[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* gr = g + row * D;
    const T* yr = y + row * D;
    T s = 0;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) s += bwd_term(mode, gr[j], yr[j]);
    s = gg::block_sum_all(s, sbuf);
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) dx[row * D + j] = bwd_out(mode, gr[j], yr[j], s);
  }
}

template <typename T>
__device__ void backward_cols(int64_t outer, int64_t D, int64_t inner, int mode, T* dx, const T* g, const T* y) {
  GG_FOR(col, outer * inner) {
    const int64_t o = col / inner, i = col - o * inner, base = o * D * inner + i;
    T s = 0;
    for (int64_t j = 0; j < D; ++j) s += bwd_term(mode, g[base + j * inner], y[base + j * inner]);
    for (int64_t j = 0; j < D; ++j) dx[base + j * inner] = bwd_out(mode, g[base + j * inner], y[base + j * inner], s);
  }
}

__device__ __forceinline__ bool label_ok(int64_t label, int64_t C) { return label >= 0 && label < C; }

// The options of the cross-entropy kernels: class weights (null: ones), ignore_index, smoothing.
template <typename T>
struct CEOpts {
  const T* weight;
  int64_t ignore_index;
  T smoothing;
};

template <typename T>
__device__ __forceinline__ T class_weight(const CEOpts<T>& o, int64_t j) {
  return o.weight ? o.weight[j] : T(1);
}

// Per-row losses (one block per row); wrow[row] = w_y (0 when ignored) when wrow is not null.
template <typename T>
__device__ void ce_rows(int64_t N, int64_t C, T* loss, T* wrow, const T* z, const int64_t* labels, CEOpts<T> o,
                        unsigned long long* bad) {
  __shared__ T sbuf[32];
  for (int64_t row = blockIdx.x; row < N; row += gridDim.x) {
    const T* zr = z + row * C;
    T m = gg::lowest<T>();
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) m = zr[j] > m ? zr[j] : m;
    m = block_max_all(m, sbuf);
    T s = 0, wz = 0, wsum = 0;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
      s += gg::gg_exp(zr[j] - m);
      if (o.smoothing > T(0)) {
        wz += class_weight(o, j) * zr[j];
        wsum += class_weight(o, j);
      }
    }
    s = gg::block_sum(s, sbuf);
    if (o.smoothing > T(0)) {
      wz = gg::block_sum(wz, sbuf);
      wsum = gg::block_sum(wsum, sbuf);
    }
    if (threadIdx.x == 0) {
      const int64_t label = labels[row];
      T l = 0, wy = 0;
      if (label == o.ignore_index) {
        l = 0;
      } else if (label_ok(label, C)) {
        const T lse = m + gg::gg_log(s);
        wy = class_weight(o, label);
        l = (T(1) - o.smoothing) * wy * (lse - zr[label]);
        if (o.smoothing > T(0)) l += o.smoothing / T(C) * (wsum * lse - wz);
      } else {
        atomicMin(bad, (unsigned long long)row);
        l = T(0) / T(0);
      }
      loss[row] = l;
      if (wrow) wrow[row] = wy;
    }
  }
}

// out[0] = sum(v) * scale, or sum(v) / sum(w) when w is not null. One block of 1024 threads, a
// fixed order of additions.
template <typename T>
__device__ void sum_all(int64_t n, T scale, T* out, const T* v, const T* w) {
  __shared__ T sbuf[32];
  T s = 0, sw = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    s += v[j];
    if (w) sw += w[j];
  }
  s = gg::block_sum(s, sbuf);
  if (w) sw = gg::block_sum(sw, sbuf);
  if (threadIdx.x == 0) out[0] = w ? s / sw : s * scale;
}

// Row n's loss and w_y from the row's logits in one warp (lane j holds class j; C <= 32): the
// arithmetic of ce_rows, reduced across the warp instead of the block. Returns (loss, w_y) in
// every lane.
template <typename T>
__device__ __forceinline__ void ce_row_warp(int64_t C, int64_t row, const T* z, const int64_t* labels,
                                            const CEOpts<T>& o, unsigned long long* bad, T& loss, T& wy) {
  const int lane = threadIdx.x & 31;
  const T* zr = z + row * C;
  const T zj = lane < C ? zr[lane] : gg::lowest<T>();
  T m = zj;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const T u = __shfl_xor_sync(0xffffffffu, m, off);
    m = u > m ? u : m;
  }
  T s = lane < C ? gg::gg_exp(zj - m) : T(0);
  T wz = 0, wsum = 0;
  if (o.smoothing > T(0) && lane < C) {
    wz = class_weight(o, lane) * zj;
    wsum = class_weight(o, lane);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, off);
    wz += __shfl_xor_sync(0xffffffffu, wz, off);
    wsum += __shfl_xor_sync(0xffffffffu, wsum, off);
  }
  const int64_t label = labels[row];
  loss = 0;
  wy = 0;
  if (label == o.ignore_index) return;
  if (!label_ok(label, C)) {
    if (lane == 0) atomicMin(bad, (unsigned long long)row);
    loss = T(0) / T(0);
    return;
  }
  const T lse = m + gg::gg_log(s);
  wy = class_weight(o, label);
  loss = (T(1) - o.smoothing) * wy * (lse - zr[label]);
  if (o.smoothing > T(0)) loss += o.smoothing / T(C) * (wsum * lse - wz);
}

// "sum" and "mean" of a batch of at most kCEReducedRows (params.h) rows of at most 32 classes in
// one block, one launch instead of ce_rows + sum_all: warp w takes rows w, w + 32, ...; the rows'
// losses and weights meet in shared memory and sum_all's arithmetic reduces them.
template <typename T>
__device__ void ce_reduced(int64_t N, int64_t C, T scale, int mean, T* out, const T* z, const int64_t* labels,
                           CEOpts<T> o, unsigned long long* bad) {
  __shared__ T rows[kCEReducedRows], wrows[kCEReducedRows];
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int64_t row = warp; row < N; row += warps) {
    T l, wy;
    ce_row_warp(C, row, z, labels, o, bad, l, wy);
    if ((threadIdx.x & 31) == 0) {
      rows[row] = l;
      wrows[row] = wy;
    }
  }
  __syncthreads();
  sum_all<T>(N, scale, out, rows, mean ? wrows : nullptr);
}

// total[0] = sum_n w_{y_n} over the rows not ignored (the divisor of "mean"). One block.
template <typename T>
__device__ void ce_total_weight(int64_t N, int64_t C, T* total, const int64_t* labels, CEOpts<T> o) {
  __shared__ T sbuf[32];
  T s = 0;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const int64_t label = labels[j];
    if (label != o.ignore_index && label_ok(label, C)) s += class_weight(o, label);
  }
  s = gg::block_sum(s, sbuf);
  if (threadIdx.x == 0) total[0] = s;
}

// reduction: 0 none, 1 sum, 2 mean (total: the divisor, on the device; null: each block sums
// it as ce_total_weight does, for a batch of few rows, one launch fewer). bad may be null.
template <typename T>
__device__ void ce_backward(int64_t N, int64_t C, int reduction, T* dz, const T* g, const T* z,
                            const int64_t* labels, CEOpts<T> o, const T* total, unsigned long long* bad) {
  __shared__ T sbuf[32];
  T divisor = 0;
  if (reduction == 2) {
    if (total) {
      divisor = total[0];
    } else {
      for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
        const int64_t label = labels[j];
        if (label != o.ignore_index && label_ok(label, C)) divisor += class_weight(o, label);
      }
      divisor = gg::block_sum_all(divisor, sbuf);
    }
  }
  for (int64_t row = blockIdx.x; row < N; row += gridDim.x) {
    const int64_t label = labels[row];
    if (label == o.ignore_index) {
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) dz[row * C + j] = T(0);
      continue;
    }
    const T* zr = z + row * C;
    T m = gg::lowest<T>();
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) m = zr[j] > m ? zr[j] : m;
    m = block_max_all(m, sbuf);
    T s = 0, wsum = 0;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
      s += gg::gg_exp(zr[j] - m);
      if (o.smoothing > T(0)) wsum += class_weight(o, j);
    }
    s = gg::block_sum_all(s, sbuf);
    if (o.smoothing > T(0)) wsum = gg::block_sum_all(wsum, sbuf);
    const bool ok = label_ok(label, C);
    if (!ok && bad && threadIdx.x == 0) atomicMin(bad, (unsigned long long)row);
    const T scale = reduction == 0 ? g[row] : (reduction == 2 ? g[0] / divisor : g[0]);
    const T inv = T(1) / s;
    const T wy = (T(1) - o.smoothing) * (ok ? class_weight(o, label) : T(0));
    const T e_c = o.smoothing / T(C);
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
      const T p = gg::gg_exp(zr[j] - m) * inv;
      T d = wy * (p - (j == label ? T(1) : T(0)));
      if (o.smoothing > T(0)) d += e_c * (wsum * p - class_weight(o, j));
      dz[row * C + j] = scale * d;
    }
  }
}

}  // namespace gg_sm

GG_DEFINE_KERNELS(GG_SOFTMAX_KERNELS)
