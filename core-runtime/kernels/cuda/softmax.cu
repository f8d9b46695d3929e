// The softmax family on CUDA (families/softmax.def; the rules: autodiff-engine/src/ops/softmax.cpp),
// in one file: the kernels' rows, their device code and their launchers. nvcc and NVRTC read the
// rows and the device part; the C++ compiler reads the rows and the host part (GG_CUDA_HOST;
// docs/architecture.md, "One CUDA file per family"). The rows' columns: kernel_interface.h.
//
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
//
// The launchers of softmax, log-softmax, their backwards and cross-entropy: a label outside
// [0, C) is found on the device (the first bad row is recorded in a flag word) and raised by the
// launcher after the kernel, naming the row and the label.
#include "kernel_interface.h"
#include "params.h"

// The kernels' rows: mode 0 softmax, 1 log-softmax; the tensor around the axis is [outer (rows),
// D, inner]. Cross-entropy: labels int64, weight null when absent, reduction the CEReduction code
// (families/softmax.h), bad the word where the first out-of-range label's row is recorded (null:
// none checked).
#define GG_SOFTMAX_KERNELS(K)                                                                                \
  K(gg_softmax_rows, Float, GG_NO_BOUNDS, (int64_t rows, int64_t D, int mode, T* y, const T* x),              \
    gg_sm::forward_rows<T>(rows, D, mode, y, x))                                                              \
  K(gg_softmax_cols, Float, GG_NO_BOUNDS, (int64_t outer, int64_t D, int64_t inner, int mode, T* y, const T* x), \
    gg_sm::forward_cols<T>(outer, D, inner, mode, y, x))                                                      \
  K(gg_softmax_bwd_rows, Float, GG_NO_BOUNDS, (int64_t rows, int64_t D, int mode, T* dx, const T* g, const T* y), \
    gg_sm::backward_rows<T>(rows, D, mode, dx, g, y))                                                         \
  K(gg_softmax_bwd_cols, Float, GG_NO_BOUNDS,                                                                 \
    (int64_t outer, int64_t D, int64_t inner, int mode, T* dx, const T* g, const T* y),                       \
    gg_sm::backward_cols<T>(outer, D, inner, mode, dx, g, y))                                                 \
  K(gg_ce_rows, Float, GG_NO_BOUNDS,                                                                          \
    (int64_t N, int64_t C, T* loss, T* wrow, const T* z, const int64_t* labels, const T* weight,              \
     int64_t ignore_index, T smoothing, unsigned long long* bad),                                             \
    gg_sm::ce_rows<T>(N, C, loss, wrow, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, bad))   \
  K(gg_ce_reduced, Float, GG_NO_BOUNDS,                                                                       \
    (int64_t N, int64_t C, T scale, int mean, T* out, const T* z, const int64_t* labels, const T* weight,     \
     int64_t ignore_index, T smoothing, unsigned long long* bad),                                             \
    gg_sm::ce_reduced<T>(N, C, scale, mean, out, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, bad)) \
  K(gg_sum_all, Float, GG_NO_BOUNDS, (int64_t n, T scale, T* out, const T* v, const T* w),                   \
    gg_sm::sum_all<T>(n, scale, out, v, w))                                                                   \
  K(gg_ce_total_weight, Float, GG_NO_BOUNDS,                                                                  \
    (int64_t N, int64_t C, T* total, const int64_t* labels, const T* weight, int64_t ignore_index),           \
    gg_sm::ce_total_weight<T>(N, C, total, labels, gg_sm::CEOpts<T>{weight, ignore_index, T(0)}))             \
  K(gg_ce_backward, Float, GG_NO_BOUNDS,                                                                      \
    (int64_t N, int64_t C, int reduction, T* dz, const T* g, const T* z, const int64_t* labels, const T* weight, \
     int64_t ignore_index, T smoothing, const T* total, unsigned long long* bad),                             \
    gg_sm::ce_backward<T>(N, C, reduction, dz, g, z, labels, gg_sm::CEOpts<T>{weight, ignore_index, smoothing}, \
                          total, bad))

GG_DECLARE_KERNELS(GG_SOFTMAX_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "common.cuh"

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
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launchers ------------------------------------------------------------------
#include <algorithm>
#include <limits>

#include "cuda/launch.h"
#include "glassgrad/autodiff/errors.h"
#include "glassgrad/autodiff/families/softmax.h"
#include "glassgrad/runtime/device_hooks.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_SOFTMAX_KERNELS)

namespace {

// mode 0: softmax, 1: log-softmax
template <int MODE>
void forward(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  if (y.numel() == 0) return;
  const SoftmaxAxis a = SoftmaxAxis::from(x.shape(), c.attrs);
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "Softmax" : "LogSoftmax", &c};
  const int mode = MODE;
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.inner == 1) {
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_softmax_rows<T>>(s, stream_of(s, &c), grid, Dim3{pow2_block(a.d, 32, 256)}, site, a.outer,
                                          a.d, mode, ptr<T>(y), ptr<const T>(x));
    } else {
      launch<kernels::gg_softmax_cols<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, a.outer * a.inner, 256)},
                                          Dim3{256}, site, a.outer, a.d, a.inner, mode, ptr<T>(y), ptr<const T>(x));
    }
  });
}

// inputs grad, y (the forward output)
template <int MODE>
void backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& y = c.inputs[1];
  const Tensor& dx = c.outputs[0];
  if (dx.numel() == 0) return;
  const SoftmaxAxis a = SoftmaxAxis::from(y.shape(), c.attrs);
  DeviceState& s = state_of(c);
  LaunchSite site{MODE == 0 ? "SoftmaxBackward" : "LogSoftmaxBackward", &c};
  const int mode = MODE;
  dispatch_float(y.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.inner == 1) {
      const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(a.outer, int64_t(s.info.multiprocessors) * 32))};
      launch<kernels::gg_softmax_bwd_rows<T>>(s, stream_of(s, &c), grid, Dim3{pow2_block(a.d, 32, 256)}, site,
                                              a.outer, a.d, mode, ptr<T>(dx), ptr<const T>(g), ptr<const T>(y));
    } else {
      launch<kernels::gg_softmax_bwd_cols<T>>(s, stream_of(s, &c), Dim3{blocks_for(s, a.outer * a.inner, 256)},
                                              Dim3{256}, site, a.outer, a.d, a.inner, mode, ptr<T>(dx),
                                              ptr<const T>(g), ptr<const T>(y));
    }
  });
}

int reduction_code(const KernelContext& c) { return static_cast<int>(SoftmaxAttrs::from(c.attrs).reduction); }

// A one-word device flag, all bits set until a kernel records a bad row (atomicMin keeps the
// first).
Tensor make_flag(const Device& d) {
  Tensor f = Tensor::empty({1}, DType::Int64, d, "label check");
  fill_tensor(f, -1.0);  // all bits set
  return f;
}

// The error of a label out of range at `row` of `labels` (logits `logits`, C classes), named by
// node `meta` of op `op` (CrossEntropy's, in the forward and the backward alike).
[[noreturn]] void throw_bad_label(const NodeMeta& meta, const char* op, int64_t row, const std::string& logits,
                                  const Tensor& labels, int64_t C, int64_t ignore_index) {
  const int64_t label = labels.select(0, row).to(Device::cpu()).data<int64_t>()[0];
  const std::string where = node_where(op, meta.scope);
  const int64_t n = labels.numel();
  ErrorMessage m(where + ": label " + std::to_string(label) + " at position " + std::to_string(row) +
                 " is out of range for " + std::to_string(C) + " classes");
  m.detail("labels must be in [0, " + std::to_string(C) + "); labels " + labels.info().str() + " (" +
           std::to_string(n) + " values), logits " + logits);
  if (label == C) m.cause("labels counted from 1 instead of 0, or a classifier with one output too few");
  else if (label < 0)
    m.cause("a negative label (e.g. -1 used to mark unlabeled samples; ignore_index=" + std::to_string(ignore_index) +
            " marks the labels to skip)");
  else m.cause("the classifier has fewer outputs than the data set has classes");
  m.fix("give the last layer max(label) + 1 outputs, or shift the labels to start at 0 (y - y.min())");
  throw IndexError(m.str());
}

void check_labels(const KernelContext& c, const char* op, const Tensor& flag, const Tensor& logits,
                  const Tensor& labels, int64_t C, int64_t ignore_index) {
  const Tensor host = flag.to(Device::cpu());  // synchronizes the stream
  const int64_t row = host.data<int64_t>()[0];
  if (row == -1) return;
  throw_bad_label(c.meta, op, row, logits.info().str(), labels, C, ignore_index);
}

// Where the backward records a bad label. The forward op checks the labels where it runs, but a
// backward whose loss value is never computed (loss.backward() without reading the loss) runs
// without it, where PyTorch's forward raised: the backward records the first bad row too, in a
// deferred check (cuda.h), so it waits for no device, and the forward's error comes at the next
// synchronization. It keeps the labels (not the logits) until then. While a graph is captured,
// the executor's error word takes it, as the forward's.
unsigned long long* backward_label_word(const KernelContext& c, const Tensor& logits, const Tensor& labels, int64_t C,
                                        int64_t ignore_index) {
  if (capturing() && c.error_word != nullptr) return static_cast<unsigned long long*>(c.error_word);
  const NodeMeta meta = c.meta;
  const std::string info = logits.info().str();
  return static_cast<unsigned long long*>(
      deferred_check_word(logits.device().index, [meta, info, labels, C, ignore_index](int64_t row) {
        throw_bad_label(meta, "CrossEntropy", row, info, labels, C, ignore_index);
      }));
}

// The cross-entropy options: class weights (input wi, or null), ignore_index, label_smoothing.
struct CEArgs {
  const void* weight;
  int64_t ignore_index;
  double smoothing;
};
CEArgs ce_args(const KernelContext& c, size_t wi) {
  const SoftmaxAttrs a = SoftmaxAttrs::from(c.attrs);
  return CEArgs{c.inputs.size() > wi ? c.inputs[wi].data_ptr() : nullptr, a.ignore_index, a.label_smoothing};
}

// inputs logits [N, C], labels [N] int64, weight [C]?; output loss ([] or [N])
void cross_entropy(const KernelContext& c) {
  const Tensor& z = c.inputs[0];
  const Tensor& labels = c.inputs[1];
  const Tensor& out = c.outputs[0];
  const int64_t N = z.shape()[0], C = z.rank() > 1 ? z.shape()[1] : 1;
  const int red = reduction_code(c);
  const CEArgs o = ce_args(c, 2);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"CrossEntropy", &c};
  if (N == 0) {
    if (red != 0) fill_tensor(out, red == 2 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    return;
  }
  // While a CUDA graph is captured, the executor's error word (checked at synchronization)
  // replaces the per-call flag that a host read would check now.
  const bool deferred = capturing() && c.error_word != nullptr;
  const Tensor flag = deferred ? Tensor() : make_flag(z.device());
  void* flag_ptr = deferred ? c.error_word : flag.data_ptr();
  unsigned long long* bad = static_cast<unsigned long long*>(flag_ptr);
  dispatch_float(z.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* weight = static_cast<const T*>(o.weight);
    const T smoothing = static_cast<T>(o.smoothing);
    if (red != 0 && N <= kCEReducedRows && C <= 32) {  // one block, a warp a row: one launch, not two
      const unsigned threads = static_cast<unsigned>(std::min<int64_t>(1024, N * 32));
      launch<kernels::gg_ce_reduced<T>>(s, st, Dim3{1}, Dim3{threads}, site, N, C, T(1), red == 2 ? 1 : 0, ptr<T>(out),
                                        ptr<const T>(z), ptr<const int64_t>(labels), weight, o.ignore_index, smoothing,
                                        bad);
      return;
    }
    const Tensor rows = red == 0 ? out : Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy rows");
    const Tensor wrows = red == 2 ? Tensor::empty({N}, z.dtype(), z.device(), "cross-entropy row weights") : Tensor();
    T* wrow_ptr = red == 2 ? ptr<T>(wrows) : nullptr;
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
    const Dim3 block{pow2_block(C, 32, 256)};
    launch<kernels::gg_ce_rows<T>>(s, st, grid, block, site, N, C, ptr<T>(rows), wrow_ptr, ptr<const T>(z),
                                   ptr<const int64_t>(labels), weight, o.ignore_index, smoothing, bad);
    if (red != 0) {  // sum, or sum / sum of the rows' weights (mean)
      const T* w = red == 2 ? ptr<const T>(wrows) : nullptr;
      launch<kernels::gg_sum_all<T>>(s, st, Dim3{1}, Dim3{1024}, site, N, T(1), ptr<T>(out), ptr<const T>(rows), w);
    }
  });
  if (!deferred) check_labels(c, "CrossEntropy", flag, z, labels, C, o.ignore_index);
}

// inputs g, logits, labels, weight?; output dlogits. A bad label is recorded in a deferred check
// (backward_label_word), which needs no launch to fill and no wait. A batch of at most
// kBlockTotalRows rows has each block sum the "mean" divisor itself: one launch fewer than a
// separate total.
constexpr int64_t kBlockTotalRows = 256;
void cross_entropy_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& z = c.inputs[1];
  const Tensor& labels = c.inputs[2];
  const Tensor& dz = c.outputs[0];
  if (dz.numel() == 0) return;
  const int64_t N = z.shape()[0], C = z.rank() > 1 ? z.shape()[1] : 1;
  const int red = reduction_code(c);
  const CEArgs o = ce_args(c, 3);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"CrossEntropyBackward", &c};
  unsigned long long* const bad = backward_label_word(c, z, labels, C, o.ignore_index);
  // "mean" divides by sum_n w_y over the rows not ignored, computed on the device first.
  const bool separate_total = red == 2 && N > kBlockTotalRows;
  const Tensor total = separate_total ? Tensor::empty({1}, z.dtype(), z.device(), "cross-entropy total weight") : Tensor();
  dispatch_float(z.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* weight = static_cast<const T*>(o.weight);
    const T* total_ptr = separate_total ? ptr<const T>(total) : nullptr;
    if (separate_total) {
      launch<kernels::gg_ce_total_weight<T>>(s, st, Dim3{1}, Dim3{1024}, site, N, C, ptr<T>(total),
                                             ptr<const int64_t>(labels), weight, o.ignore_index);
    }
    const Dim3 grid{static_cast<unsigned>(std::min<int64_t>(N, int64_t(s.info.multiprocessors) * 32))};
    const Dim3 block{pow2_block(C, 32, 256)};
    launch<kernels::gg_ce_backward<T>>(s, st, grid, block, site, N, C, red, ptr<T>(dz), ptr<const T>(g),
                                       ptr<const T>(z), ptr<const int64_t>(labels), weight, o.ignore_index,
                                       static_cast<T>(o.smoothing), total_ptr, bad);
  });
}

// The row symbols of families/softmax.def.
constexpr KernelFn softmax = forward<0>;
constexpr KernelFn log_softmax = forward<1>;
constexpr KernelFn softmax_backward = backward<0>;
constexpr KernelFn log_softmax_backward = backward<1>;

}  // namespace

void add_softmax_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/softmax.def"
}

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
