// The norm family on CUDA (families/norm.def; the rules: autodiff-engine/src/ops/norm.cpp), in one
// file: the kernels' rows, their device code and their launchers. nvcc and NVRTC read the rows
// and the device part; the C++ compiler reads the rows and the host part (GG_CUDA_HOST;
// docs/architecture.md, "One CUDA file per family"). The rows' columns: kernel_interface.h;
// GGBatchNorm, GGRunningUpdate: params.h. In the rows, relu: the fused ReLU (fusion.h); gmean,
// gvar: the optional gradients of the training outputs mean and var (null when absent); part,
// coef: double scratch (below).
//
// Batch normalization over the channel axis of x [N, C, *] (I = product of the trailing axes,
// M = N * I values per channel; channel c's values are N runs of I elements at (n*C + c)*I).
// The same formulas as the CPU kernels (kernels/cpu/norm.cpp), which agree to rounding; the
// statistics are summed differently (below: partitions, each one pass over values shifted by
// its first value, merged exactly), in double as on the CPU:
//
//   train:      mean = sum(x)/M; with d = x - mean: var = max(0, (sum d^2 - (sum d)^2/M)/M)
//               (corrected two-pass), scale = gamma/sqrt(var + eps), shift = beta - mean*scale,
//               y = x*scale + shift
//   inference:  the same affine map from the running statistics
//   activation "relu" (set by the fusion pass): y = max(x*scale + shift, 0), in the same pass
//   backward:   invstd = 1/sqrt(var + eps), sg = sum g, sgd = sum g*(x - mean):
//               dbeta = sg, dgamma = invstd*sgd,
//               dx = a*g + b*x + (k - b*mean), a = gamma*invstd, b = -gamma*invstd^3*sgd/M
//               (+ 2*grad_var/M), k = -a*sg/M (+ grad_mean/M)
//   inference backward: dx = a*g, dgamma = invstd*sgd, dbeta = sg (deviations from running_mean),
//               drunning_mean = -a*sg, drunning_var = -a*invstd^2*sgd/2
//   update:     rm = (1-m) rm + m mean; rv = (1-m) rv + m var count/(count-1)
//               (BatchNormUpdateStats; BatchNorm2DTrainUpdate does it, and its counter's
//               increment, in the training kernels where they write mean and var)
//
// Per-channel sums run in double in two stages: blocks (q, c) reduce partition q of channel c
// (P partitions of `chunk` values; the statistics as count, mean and M2 = sum (x - mean)^2 of
// the partition, the backward sums as plain sums) into a small buffer; then, in training, blocks
// (q, c) again: each merges its channel's partitions in one warp (lanes over partitions, then a
// fixed shuffle tree; Chan, Golub and LeVeque 1979 for mean and M2:
// delta = mean_b - mean_a, M2 = M2_a + M2_b + delta^2 n_a n_b / n), computes the channel's
// coefficients (double) and applies them to partition q in the tensor's dtype (train_apply,
// backward_apply: two launches a direction). Every block of a channel merges the same partials
// in the same order, so they agree. (Measured on a GPU machine and dropped earlier: an
// elementwise pass over all channels merging every channel's partitions in every block's
// prologue, 31 us a SimpleCNN step; here a block merges its own channel's only.) The inference
// backward merges in a warp per channel (backward_sums) and applies with an elementwise kernel.
// Channels of few values take one block per channel instead (train_channel, backward_channel:
// statistics, coefficients and the elementwise pass in one launch). The path and the partition
// count depend on the shape only, so the sums have one order on every GPU.
//
// Group normalization (the same formulas as the CPU kernels, kernels/cpu/norm.cpp): a block per
// (sample, group) at a time (grid-stride over them), its S = C/G * I values contiguous:
//   forward:   mean, then the corrected two-pass variance (as train above), in double;
//              rstd = 1/sqrt(var + eps); y = (x - mean)*scale + b[c] per channel, scale =
//              rstd*w[c] (mean and scale rounded to T)
//   backward:  per channel of the group, sg = sum g and sgd = sum g*(x - mean) (block sums,
//              written to part[n, c] as sg and rstd*sgd); the group's S1 = sum w*sg and
//              S2 = sum w*sgd; dx = a*g + b*(x - mean) + k, a = rstd*w[c], b = -rstd^3*S2/S,
//              k = -rstd*S1/S; then param_grads: dbias[c] = sum_n sg, dweight[c] = sum_n rstd*sgd
//              over n in order (a thread per channel), deterministic.
// Layouts: dense; 32-bit indices.
//
// The launchers of batch and group normalization for the ops of families/norm.def:
// BatchNorm2DTrain, BatchNorm2DTrainUpdate (the same kernels, which then also write the running
// statistics and the counter), BatchNorm2DBackward, BatchNorm2DInference,
// BatchNorm2DInferenceBackward, BatchNormUpdateStats, GroupNorm, GroupNormBackward. x is
// [N, C, *]: channel axis 1, I = product of the axes after it (the family's geometry,
// families/norm.h). Per-channel coefficients (double) live in a small temporary device buffer.
#include "kernel_interface.h"
#include "params.h"

// Group normalization of x [N, C, I] in G groups of cg = C / G channels: the S = cg * I values
// of sample n's group k are contiguous at (n*C + k*cg)*I. 32-bit indices (the launcher refuses
// 2^31 elements or more).
struct GGGroupNorm {
  int32_t N, C, I, G, cg, pad_;
  double eps;
};

#define GG_NORM_KERNELS(K)                                                                                   \
  K(gg_bn_partial_stats, Float, GG_NO_BOUNDS, (GGBatchNorm p, const T* x, double* part),                    \
    gg_bn::partial_stats<T>(p, x, part))                                                                     \
  K(gg_bn_train_apply, Float, GG_NO_BOUNDS,                                                                  \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var, const double* part),                                                                   \
    gg_bn::train_apply<T>(p, eps, u, relu, x, gamma, beta, y, mean, var, part))                              \
  K(gg_bn_backward_apply, Float, GG_NO_BOUNDS,                                                               \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta, const double* part),                         \
    gg_bn::backward_apply<T>(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta, part))        \
  K(gg_bn_inference_coef, Float, GG_NO_BOUNDS,                                                               \
    (int64_t C, double eps, const T* gamma, const T* beta, const T* rm, const T* rv, double* coef),          \
    gg_bn::inference_coef<T>(C, eps, gamma, beta, rm, rv, coef))                                             \
  K(gg_bn_affine, Float, GG_NO_BOUNDS, (GGBatchNorm p, int n, int relu, T* y, const T* x, const double* coef), \
    gg_bn::affine<T>(p, n, relu, y, x, coef))                                                                \
  K(gg_bn_partial_sums, Float, GG_NO_BOUNDS,                                                                 \
    (GGBatchNorm p, const T* g, const T* x, const T* center, double* part),                                  \
    gg_bn::partial_sums<T>(p, g, x, center, part))                                                           \
  K(gg_bn_backward_sums, Float, GG_NO_BOUNDS,                                                                \
    (int mode, GGBatchNorm p, double eps, const T* gamma, const T* center, const T* var, const T* gmean,     \
     const T* gvar, T* dgamma, T* dbeta, T* drm, T* drv, double* coef, const double* part),                  \
    gg_bn::backward_sums<T>(mode, p, eps, gamma, center, var, gmean, gvar, dgamma, dbeta, drm, drv, coef, part)) \
  K(gg_bn_backward_dx, Float, GG_NO_BOUNDS, (GGBatchNorm p, int n, T* dx, const T* g, const T* x, const double* coef), \
    gg_bn::backward_dx<T>(p, n, dx, g, x, coef))                                                             \
  K(gg_bn_train_channel, Float, GG_BOUNDS(1024),                                                             \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var),                                                                                       \
    gg_bn::train_channel<T>(p, eps, u, relu, x, gamma, beta, y, mean, var))                                  \
  K(gg_bn_backward_channel, Float, GG_BOUNDS(1024),                                                          \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta),                                             \
    gg_bn::backward_channel<T>(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta))            \
  K(gg_bn_update_stats, Float, GG_NO_BOUNDS,                                                                 \
    (int64_t C, double momentum, double count, T* rm_out, T* rv_out, const T* rm, const T* rv, const T* mean, \
     const T* var),                                                                                          \
    gg_bn::update_stats<T>(C, momentum, count, rm_out, rv_out, rm, rv, mean, var))                           \
  K(gg_bn_train_channel_vec, F32, GG_BOUNDS(1024),                                                           \
    (GGBatchNorm p, double eps, GGRunningUpdate u, int relu, const T* x, const T* gamma, const T* beta, T* y, \
     T* mean, T* var),                                                                                       \
    gg_bn::train_channel_vec(p, eps, u, relu, x, gamma, beta, y, mean, var))                                 \
  K(gg_bn_backward_channel_vec, F32, GG_BOUNDS(1024),                                                        \
    (GGBatchNorm p, double eps, const T* g, const T* x, const T* gamma, const T* center, const T* var,       \
     const T* gmean, const T* gvar, T* dx, T* dgamma, T* dbeta),                                             \
    gg_bn::backward_channel_vec(p, eps, g, x, gamma, center, var, gmean, gvar, dx, dgamma, dbeta))            \
  K(gg_gn_forward, Float, GG_BOUNDS(256),                                                                    \
    (GGGroupNorm p, const T* x, const T* w, const T* b, T* y, T* mean, T* rstd),                             \
    gg_gn::forward<T>(p, x, w, b, y, mean, rstd))                                                            \
  K(gg_gn_backward, Float, GG_BOUNDS(256),                                                                   \
    (GGGroupNorm p, const T* g, const T* x, const T* mean, const T* rstd, const T* w, T* dx, double* part),  \
    gg_gn::backward<T>(p, g, x, mean, rstd, w, dx, part))                                                    \
  K(gg_gn_param_grads, Float, GG_NO_BOUNDS, (GGGroupNorm p, const double* part, T* dw, T* db),               \
    gg_gn::param_grads<T>(p, part, dw, db))

GG_DECLARE_KERNELS(GG_NORM_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "common.cuh"

namespace gg_bn {

// The element of x holding channel c's j-th value.
__device__ __forceinline__ int element(const GGBatchNorm& p, int c, int j) {
  return gg::channel_value(p.C, p.I, p.div_I, c, j);
}

template <typename T>
__device__ __forceinline__ double at(const GGBatchNorm& p, const T* x, int c, int j) {
  return (double)x[element(p, c, j)];
}

__device__ __forceinline__ int channel_of(const GGBatchNorm& p, int e) {
  const int q = gg::fast_div(p.div_I, e);
  return q - gg::fast_div(p.div_C, q) * p.C;
}

// part[(c * P + q) * 3 + {0, 1, 2}] = count, mean, M2 of values [q*chunk, (q+1)*chunk) of channel c.
// grid: x = partitions, y = channels (grid-stride on both).
template <typename T>
__device__ void partial_stats(const GGBatchNorm& p, const T* x, double* part) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I;
  for (int c = blockIdx.y; c < p.C; c += gridDim.y)
    for (int q = blockIdx.x; q < p.P; q += gridDim.x) {
      const int j0 = q * p.chunk, j1 = min(M, j0 + p.chunk);
      const int cnt = j1 > j0 ? j1 - j0 : 0;
      // One pass over shifted values (the partition's first value as the shift; sums in
      // double): mean = shift + s1/n, M2 = s2 - s1^2/n.
      const double shift = cnt ? at(p, x, c, j0) : 0.0;
      double ds = 0, sq = 0;
      auto add = [&](double v) {
        const double d = v - shift;
        ds += d;
        sq += d * d;
      };
      // Four loads in flight before their additions, which keep the plain loop's order.
      const int step = blockDim.x;
      int j = j0 + threadIdx.x;
      for (; j + 3 * step < j1; j += 4 * step) {
        const double v0 = at(p, x, c, j), v1 = at(p, x, c, j + step);
        const double v2 = at(p, x, c, j + 2 * step), v3 = at(p, x, c, j + 3 * step);
        add(v0);
        add(v1);
        add(v2);
        add(v3);
      }
      for (; j < j1; j += step) add(at(p, x, c, j));
      ds = gg::block_sum(ds, sbuf);
      sq = gg::block_sum(sq, sbuf);
      const double mean = shift;  // of the partition: shift + s1/n below
      if (threadIdx.x == 0) {
        double* o = part + ((int64_t)c * p.P + q) * 3;
        o[0] = cnt;
        o[1] = cnt ? mean + ds / cnt : 0.0;
        o[2] = cnt ? sq - ds * ds / cnt : 0.0;
      }
    }
}

// (count, mean, M2) of two disjoint sets -> of their union (Chan et al.).
struct Moments {
  double n, mean, m2;
};
__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
  const double n = a.n + b.n;
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  const double delta = b.mean - a.mean;
  return Moments{n, a.mean + delta * b.n / n, a.m2 + b.m2 + delta * delta * a.n * b.n / n};
}

// Channels handled one per warp: lane l merges partitions l, l + 32, ... in order, then the
// lanes merge in a fixed shuffle tree, so the result does not depend on timing.
#define GG_BN_WARP_PER_CHANNEL(c, C)                                                            \
  for (int64_t c = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; c < (C);              \
       c += (int64_t)gridDim.x * (blockDim.x / 32))

// The training backward's per-channel coefficients from the sums sg = sum g and
// sgd = sum g*(x - mean) (the formulas at the top): dx = a*g + b*x + (k - b*mean). gmean and
// gvar (the gradients reaching the batch statistics) may be null.
struct TrainingBackward {
  double a, b, k;
};
template <typename T>
__device__ __forceinline__ TrainingBackward training_backward(double gamma, double invstd, double sg, double sgd,
                                                              double m, const T* gmean, const T* gvar, int64_t c) {
  TrainingBackward r{gamma * invstd, 0, 0};
  if (m > 0) {
    r.b = -gamma * invstd * invstd * invstd * sgd / m;
    r.k = -r.a * sg / m;
    if (gmean) r.k += (double)gmean[c] / m;
    if (gvar) r.b += 2.0 * (double)gvar[c] / m;
  }
  return r;
}

// Channel c's training backward from its sums sg, sgd over m values: writes dbeta and dgamma
// when `write` (one thread of those that call it), and returns dx's coefficients with the mean
// folded in: dx = a*g + b*x + k. backward_apply's, backward_channel's and
// backward_channel_vec's tail.
template <typename T>
__device__ __forceinline__ TrainingBackward channel_backward(double eps, double m, double sg, double sgd, int c,
                                                             const T* gamma, const T* center, const T* var,
                                                             const T* gmean, const T* gvar, bool write, T* dgamma,
                                                             T* dbeta) {
  const double invstd = 1.0 / sqrt((double)var[c] + eps);
  if (write) {
    dbeta[c] = (T)sg;
    dgamma[c] = (T)(invstd * sgd);
  }
  TrainingBackward t = training_backward((double)gamma[c], invstd, sg, sgd, m, gmean, gvar, c);
  t.k -= t.b * (double)center[c];
  return t;
}

// A channel's statistics from one partition of all its M values (sums of d = x - shift:
// ds, sq = sum d^2) and its affine map y = x*scale + shift: partial_stats' and train_apply's
// arithmetic for P = 1.
struct ChannelAffine {
  double mean, var, scale, shift;
};
__device__ __forceinline__ ChannelAffine channel_affine(double shift, double ds, double sq, int M, double gamma,
                                                        double beta, double eps) {
  ChannelAffine r;
  r.mean = M ? shift + ds / M : 0.0;
  const double var = M ? (sq - ds * ds / M) / M : 0.0;
  r.var = var > 0 ? var : 0;
  r.scale = gamma / sqrt(r.var + eps);
  r.shift = beta - r.mean * r.scale;
  return r;
}

// The running statistics' update of channel c from the batch's mean and var as stored in T:
// BatchNormUpdateStats' arithmetic, and BatchNorm2DTrainUpdate's (one function: same numbers).
template <typename T>
__device__ __forceinline__ void running_update(double momentum, double unbias, T* rm_out, T* rv_out, const T* rm,
                                               const T* rv, int64_t c, T mean, T var) {
  rm_out[c] = (T)((1.0 - momentum) * (double)rm[c] + momentum * (double)mean);
  rv_out[c] = (T)((1.0 - momentum) * (double)rv[c] + momentum * (double)var * unbias);
}

// Where a training kernel writes channel c's mean and var (once): BatchNorm2DTrainUpdate's
// state writes, nothing for BatchNorm2DTrain (u.rm null).
template <typename T>
__device__ __forceinline__ void write_statistics(const GGRunningUpdate& u, int c, T mean, T var, T* mean_out,
                                                 T* var_out) {
  mean_out[c] = mean;
  var_out[c] = var;
  if (!u.rm) return;
  T* rm = static_cast<T*>(u.rm);
  T* rv = static_cast<T*>(u.rv);
  running_update(u.momentum, u.unbias, rm, rv, rm, rv, c, mean, var);
  if (c == 0) *u.counter += u.add;
}

// Channel c's (count, mean, M2) from its partitions (partial_stats' part), in the calling warp:
// lane l merges partitions l, l + 32, ... in order, then the lanes merge in a fixed shuffle tree,
// so the result (valid in lane 0) does not depend on timing.
__device__ __forceinline__ Moments channel_moments(const GGBatchNorm& p, int c, const double* part) {
  const int lane = threadIdx.x & 31;
  Moments m{0, 0, 0};
  for (int q = lane; q < p.P; q += 32) {
    const double* o = part + ((int64_t)c * p.P + q) * 3;
    m = merge(m, Moments{o[0], o[1], o[2]});
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const Moments other{__shfl_down_sync(0xffffffffu, m.n, off), __shfl_down_sync(0xffffffffu, m.mean, off),
                        __shfl_down_sync(0xffffffffu, m.m2, off)};
    m = merge(m, other);
  }
  return m;
}

// The elementwise passes over channel c's values [jb, je), the calling block's threads taking
// j = jb + threadIdx.x, + blockDim.x, ...: each thread loads BATCH values before it stores any
// (a loop that loads and stores one at a time cannot overlap the loads; y may be x, dx may be g,
// since each element is loaded and stored by one thread).
//   affine_range: y = x*ts + tb (affine()'s arithmetic), then the ReLU when relu
//   dx_range:     dx = ta*g + tb*x + tk (backward_dx's arithmetic)
template <int BATCH, typename T>
__device__ __forceinline__ void affine_range(const GGBatchNorm& p, int c, int jb, int je, int relu, T ts, T tb,
                                             const T* x, T* y) {
  for (int j0 = jb + threadIdx.x; j0 < je; j0 += BATCH * blockDim.x) {
    int e[BATCH];
    T v[BATCH];
#pragma unroll
    for (int k = 0; k < BATCH; ++k) {
      const int j = j0 + k * blockDim.x;
      e[k] = j < je ? element(p, c, j) : -1;
      v[k] = j < je ? x[e[k]] : T(0);
    }
#pragma unroll
    for (int k = 0; k < BATCH; ++k) {
      if (e[k] < 0) continue;
      const T r = v[k] * ts + tb;
      y[e[k]] = (relu && !(r > T(0))) ? T(0) : r;
    }
  }
}
template <int BATCH, typename T>
__device__ __forceinline__ void dx_range(const GGBatchNorm& p, int c, int jb, int je, T ta, T tb, T tk, const T* g,
                                         const T* x, T* dx) {
  for (int j0 = jb + threadIdx.x; j0 < je; j0 += BATCH * blockDim.x) {
    int e[BATCH];
    T gv[BATCH], xv[BATCH];
#pragma unroll
    for (int k = 0; k < BATCH; ++k) {
      const int j = j0 + k * blockDim.x;
      e[k] = j < je ? element(p, c, j) : -1;
      gv[k] = j < je ? g[e[k]] : T(0);
      xv[k] = j < je ? x[e[k]] : T(0);
    }
#pragma unroll
    for (int k = 0; k < BATCH; ++k)
      if (e[k] >= 0) dx[e[k]] = ta * gv[k] + tb * xv[k] + tk;
  }
}

// The apply kernels' batch (a partition's few values a thread).
constexpr int kApplyBatch = 4;

// The training forward's second and last launch on the partition path (after partial_stats):
// block (q, c) merges channel c's partitions in its first warp (channel_moments), computes
// scale and shift, and applies affine()'s map (and the ReLU) to partition q of the channel.
// Block (0, c) writes mean, var and BatchNorm2DTrainUpdate's state. Every block of a channel
// computes the same coefficients from the same partials, so the output is one function of x.
// Each element is read and written by one thread, which loads its batch before it stores: y may
// be x.
template <typename T>
__device__ void train_apply(const GGBatchNorm& p, double eps, const GGRunningUpdate& u, int relu, const T* x,
                            const T* gamma, const T* beta, T* y, T* mean_out, T* var_out, const double* part) {
  __shared__ double coef[2];
  const int M = p.N * p.I;
  for (int c = blockIdx.y; c < p.C; c += gridDim.y) {
    if (threadIdx.x < 32) {
      const Moments m = channel_moments(p, c, part);
      if (threadIdx.x == 0) {
        double var = m.n > 0 ? m.m2 / m.n : 0.0;
        var = var > 0 ? var : 0;
        const double scale = (double)gamma[c] / sqrt(var + eps);
        coef[0] = scale;
        coef[1] = (double)beta[c] - m.mean * scale;
        if (blockIdx.x == 0) write_statistics(u, c, (T)m.mean, (T)var, mean_out, var_out);
      }
    }
    __syncthreads();
    const T ts = (T)coef[0], tb = (T)coef[1];
    for (int q = blockIdx.x; q < p.P; q += gridDim.x)
      affine_range<kApplyBatch>(p, c, q * p.chunk, min(M, (q + 1) * p.chunk), relu, ts, tb, x, y);
    __syncthreads();  // coef is rewritten for the block's next channel
  }
}

template <typename T>
__device__ void inference_coef(int64_t C, double eps, const T* gamma, const T* beta, const T* rm, const T* rv,
                               double* coef) {
  GG_FOR(c, C) {
    const double scale = (double)gamma[c] / sqrt((double)rv[c] + eps);
    coef[2 * c] = scale;
    coef[2 * c + 1] = (double)beta[c] - (double)rm[c] * scale;
  }
}

template <typename T>
__device__ void affine(const GGBatchNorm& p, int n, int relu, T* y, const T* x, const double* coef) {
  GG_FOR(e, n) {
    const int c = channel_of(p, (int)e);
    const T v = x[e] * (T)coef[2 * c] + (T)coef[2 * c + 1];
    y[e] = (relu && !(v > T(0))) ? T(0) : v;
  }
}

// part[(c * P + q) * 2 + {0, 1}] = sum g, sum g * (x - center[c]) over partition q of channel c.
template <typename T>
__device__ void partial_sums(const GGBatchNorm& p, const T* g, const T* x, const T* center, double* part) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I;
  for (int c = blockIdx.y; c < p.C; c += gridDim.y)
    for (int q = blockIdx.x; q < p.P; q += gridDim.x) {
      const int j0 = q * p.chunk, j1 = min(M, j0 + p.chunk);
      const double mu = (double)center[c];
      double sg = 0, sgd = 0;
      auto add = [&](double gv, double xv) {
        sg += gv;
        sgd += gv * (xv - mu);
      };
      // Four pairs of loads in flight before their additions, which keep the plain loop's order.
      const int step = blockDim.x;
      int j = j0 + threadIdx.x;
      for (; j + 3 * step < j1; j += 4 * step) {
        double gv[4], xv[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int e = element(p, c, j + u * step);
          gv[u] = (double)g[e];
          xv[u] = (double)x[e];
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) add(gv[u], xv[u]);
      }
      for (; j < j1; j += step) {
        const int e = element(p, c, j);
        add((double)g[e], (double)x[e]);
      }
      sg = gg::block_sum(sg, sbuf);
      sgd = gg::block_sum(sgd, sbuf);
      if (threadIdx.x == 0) {
        part[((int64_t)c * p.P + q) * 2] = sg;
        part[((int64_t)c * p.P + q) * 2 + 1] = sgd;
      }
    }
}

// Channel c's backward sums sg, sgd from its partitions (partial_sums' part), in the calling
// warp: lanes over partitions in order, then a fixed shuffle tree; valid in lane 0.
__device__ __forceinline__ void channel_grad_sums(const GGBatchNorm& p, int c, const double* part, double& sg,
                                                  double& sgd) {
  const int lane = threadIdx.x & 31;
  sg = 0;
  sgd = 0;
  for (int q = lane; q < p.P; q += 32) {
    sg += part[((int64_t)c * p.P + q) * 2];
    sgd += part[((int64_t)c * p.P + q) * 2 + 1];
  }
  sg = gg::warp_sum(sg);
  sgd = gg::warp_sum(sgd);
}

// The training backward's second and last launch on the partition path (after partial_sums):
// block (q, c) merges channel c's sums in its first warp, computes backward_sums' mode-0
// coefficients, and applies backward_dx's arithmetic to partition q; block (0, c) writes dgamma
// and dbeta. dx may be g.
template <typename T>
__device__ void backward_apply(const GGBatchNorm& p, double eps, const T* g, const T* x, const T* gamma,
                               const T* center, const T* var, const T* gmean, const T* gvar, T* dx, T* dgamma,
                               T* dbeta, const double* part) {
  __shared__ double coef[3];
  const int M = p.N * p.I;
  const double m = (double)p.N * p.I;
  for (int c = blockIdx.y; c < p.C; c += gridDim.y) {
    if (threadIdx.x < 32) {
      double sg, sgd;
      channel_grad_sums(p, c, part, sg, sgd);
      if (threadIdx.x == 0) {
        const TrainingBackward t =
            channel_backward(eps, m, sg, sgd, c, gamma, center, var, gmean, gvar, blockIdx.x == 0, dgamma, dbeta);
        coef[0] = t.a;
        coef[1] = t.b;
        coef[2] = t.k;
      }
    }
    __syncthreads();
    const T ta = (T)coef[0], tb = (T)coef[1], tk = (T)coef[2];
    for (int q = blockIdx.x; q < p.P; q += gridDim.x)
      dx_range<kApplyBatch>(p, c, q * p.chunk, min(M, (q + 1) * p.chunk), ta, tb, tk, g, x, dx);
    __syncthreads();
  }
}

// mode 0: training backward (coef = a, b, k - b*mean; gmean/gvar optional)
// mode 1: inference backward (coef = a, 0, 0; writes drm, drv)
template <typename T>
__device__ void backward_sums(int mode, const GGBatchNorm& p, double eps, const T* gamma, const T* center, const T* var,
                              const T* gmean, const T* gvar, T* dgamma, T* dbeta, T* drm, T* drv, double* coef,
                              const double* part) {
  const double m = (double)p.N * p.I;
  const int lane = threadIdx.x & 31;
  GG_BN_WARP_PER_CHANNEL(c, p.C) {
    double sg, sgd;
    channel_grad_sums(p, (int)c, part, sg, sgd);
    if (lane != 0) continue;
    const double mu = (double)center[c];
    const double invstd = 1.0 / sqrt((double)var[c] + eps);
    dbeta[c] = (T)sg;
    dgamma[c] = (T)(invstd * sgd);
    const double a = (double)gamma[c] * invstd;
    double b = 0, k = 0;
    if (mode == 0) {
      const TrainingBackward t = training_backward((double)gamma[c], invstd, sg, sgd, m, gmean, gvar, c);
      b = t.b;
      k = t.k;
    } else {
      drm[c] = (T)(-a * sg);
      drv[c] = (T)(-0.5 * a * invstd * invstd * sgd);
    }
    coef[3 * c] = a;
    coef[3 * c + 1] = b;
    coef[3 * c + 2] = k - b * mu;
  }
}

template <typename T>
__device__ void backward_dx(const GGBatchNorm& p, int n, T* dx, const T* g, const T* x, const double* coef) {
  GG_FOR(e, n) {
    const int c = channel_of(p, (int)e);
    dx[e] = (T)coef[3 * c] * g[e] + (T)coef[3 * c + 1] * x[e] + (T)coef[3 * c + 2];
  }
}

// One block per channel, the whole op in one launch (the launchers' channel_per_block, below:
// channels of few values, where the three launches of the partition path were most of the time:
// about 8 us of a SimpleCNN layer's forward on a GPU machine). The statistics are partial_stats' with
// one partition (P = 1: one pass over values shifted by the channel's first value, summed in
// double over the block) and train_apply's finishing of that one partition (merging with empty
// partitions changes nothing); then the same block applies the affine map (and the ReLU) to
// its channel, with affine()'s arithmetic. With one multiprocessor doing a whole channel, the
// time is memory latency: each thread loads kChannelBatch values before it uses any (the sums
// still add them in the plain loop's order), and in the elementwise pass before it stores any,
// so the loads of a batch are in flight together (a loop that loads and stores one element
// at a time cannot overlap them: y may be x). The block reads all of its channel before it
// writes any of it, so y may be x.
constexpr int kChannelBatch = 8;

template <typename T>
__device__ void train_channel(const GGBatchNorm& p, double eps, const GGRunningUpdate& ru, int relu, const T* x,
                              const T* gamma, const T* beta, T* y, T* mean_out, T* var_out) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I;
  const int step = blockDim.x;
  for (int c = blockIdx.x; c < p.C; c += gridDim.x) {
    const double shift = M ? at(p, x, c, 0) : 0.0;
    double ds = 0, sq = 0;
    for (int j0 = threadIdx.x; j0 < M; j0 += kChannelBatch * step) {
      T v[kChannelBatch];
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        const int j = j0 + u * step;
        v[u] = j < M ? x[element(p, c, j)] : T(0);
      }
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        if (j0 + u * step < M) {
          const double d = (double)v[u] - shift;
          ds += d;
          sq += d * d;
        }
      }
    }
    ds = gg::block_sum_all(ds, sbuf);
    sq = gg::block_sum_all(sq, sbuf);
    const ChannelAffine st = channel_affine(shift, ds, sq, M, (double)gamma[c], (double)beta[c], eps);
    const T ts = (T)st.scale, tb = (T)st.shift;
    if (threadIdx.x == 0) write_statistics(ru, c, (T)st.mean, (T)st.var, mean_out, var_out);
    affine_range<kChannelBatch>(p, c, 0, M, relu, ts, tb, x, y);
  }
}

// The training backward (backward_sums' mode 0) the same way: partial_sums with one partition,
// the coefficients, then backward_dx's arithmetic over the block's channel. dx may be g.
template <typename T>
__device__ void backward_channel(const GGBatchNorm& p, double eps, const T* g, const T* x, const T* gamma,
                                 const T* center, const T* var, const T* gmean, const T* gvar, T* dx, T* dgamma,
                                 T* dbeta) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I;
  const double m = (double)p.N * p.I;
  const int step = blockDim.x;
  for (int c = blockIdx.x; c < p.C; c += gridDim.x) {
    const double mu = (double)center[c];
    double sg = 0, sgd = 0;
    for (int j0 = threadIdx.x; j0 < M; j0 += kChannelBatch * step) {
      T gv[kChannelBatch], xv[kChannelBatch];
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        const int j = j0 + u * step;
        const int e = j < M ? element(p, c, j) : 0;
        gv[u] = j < M ? g[e] : T(0);
        xv[u] = j < M ? x[e] : T(0);
      }
#pragma unroll
      for (int u = 0; u < kChannelBatch; ++u) {
        if (j0 + u * step < M) {
          sg += (double)gv[u];
          sgd += (double)gv[u] * ((double)xv[u] - mu);
        }
      }
    }
    sg = gg::block_sum_all(sg, sbuf);
    sgd = gg::block_sum_all(sgd, sbuf);
    const TrainingBackward t =
        channel_backward(eps, m, sg, sgd, c, gamma, center, var, gmean, gvar, threadIdx.x == 0, dgamma, dbeta);
    const T ta = (T)t.a, tb = (T)t.b, tk = (T)t.k;
    dx_range<kChannelBatch>(p, c, 0, M, ta, tb, tk, g, x, dx);
  }
}

// float32 with I % 4 == 0 and 16-byte aligned tensors (the launchers' vectorized_channels,
// below): the same two kernels reading and writing four consecutive values of a channel at a
// time, so a thread has four times the bytes in flight (the block's one multiprocessor was latency-bound:
// SimpleCNN's first layer has 16 channels of 21632 values). A thread adds its values in the
// order j = 4*j4 + (0, 1, 2, 3) for j4 = its first group, + blockDim, ...
__device__ __forceinline__ int group4(const GGBatchNorm& p, int c, int j4) {
  return gg::channel_value(p.C, p.I >> 2, p.div_I4, c, j4);
}

constexpr int kVecBatch = 4;

__device__ void train_channel_vec(const GGBatchNorm& p, double eps, const GGRunningUpdate& ru, int relu,
                                  const float* x, const float* gamma, const float* beta, float* y, float* mean_out,
                                  float* var_out) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I, M4 = M >> 2;
  const int step = blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int c = blockIdx.x; c < p.C; c += gridDim.x) {
    const double shift = M ? at(p, x, c, 0) : 0.0;
    double ds = 0, sq = 0;
    auto add = [&](float v) {
      const double d = (double)v - shift;
      ds += d;
      sq += d * d;
    };
    for (int j0 = threadIdx.x; j0 < M4; j0 += kVecBatch * step) {
      float4 v[kVecBatch];
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        const int j = j0 + u * step;
        v[u] = j < M4 ? x4[group4(p, c, j)] : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        if (j0 + u * step < M4) {
          add(v[u].x);
          add(v[u].y);
          add(v[u].z);
          add(v[u].w);
        }
      }
    }
    ds = gg::block_sum_all(ds, sbuf);
    sq = gg::block_sum_all(sq, sbuf);
    const ChannelAffine st = channel_affine(shift, ds, sq, M, (double)gamma[c], (double)beta[c], eps);
    const float ts = (float)st.scale, tb = (float)st.shift;
    if (threadIdx.x == 0) write_statistics(ru, c, (float)st.mean, (float)st.var, mean_out, var_out);
    auto f = [&](float v) {
      const float r = v * ts + tb;
      return (relu && !(r > 0.f)) ? 0.f : r;
    };
    for (int j0 = threadIdx.x; j0 < M4; j0 += kVecBatch * step) {
      int e[kVecBatch];
      float4 v[kVecBatch];
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        const int j = j0 + u * step;
        e[u] = j < M4 ? group4(p, c, j) : -1;
        v[u] = j < M4 ? x4[e[u]] : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u)
        if (e[u] >= 0) y4[e[u]] = make_float4(f(v[u].x), f(v[u].y), f(v[u].z), f(v[u].w));
    }
  }
}

__device__ void backward_channel_vec(const GGBatchNorm& p, double eps, const float* g, const float* x,
                                     const float* gamma, const float* center, const float* var, const float* gmean,
                                     const float* gvar, float* dx, float* dgamma, float* dbeta) {
  __shared__ double sbuf[32];
  const int M = p.N * p.I, M4 = M >> 2;
  const double m = (double)p.N * p.I;
  const int step = blockDim.x;
  const float4* g4 = reinterpret_cast<const float4*>(g);
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* dx4 = reinterpret_cast<float4*>(dx);
  for (int c = blockIdx.x; c < p.C; c += gridDim.x) {
    const double mu = (double)center[c];
    double sg = 0, sgd = 0;
    auto add = [&](float gv, float xv) {
      sg += (double)gv;
      sgd += (double)gv * ((double)xv - mu);
    };
    for (int j0 = threadIdx.x; j0 < M4; j0 += kVecBatch * step) {
      float4 gv[kVecBatch], xv[kVecBatch];
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        const int j = j0 + u * step;
        const int e = j < M4 ? group4(p, c, j) : 0;
        gv[u] = j < M4 ? g4[e] : make_float4(0.f, 0.f, 0.f, 0.f);
        xv[u] = j < M4 ? x4[e] : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        if (j0 + u * step < M4) {
          add(gv[u].x, xv[u].x);
          add(gv[u].y, xv[u].y);
          add(gv[u].z, xv[u].z);
          add(gv[u].w, xv[u].w);
        }
      }
    }
    sg = gg::block_sum_all(sg, sbuf);
    sgd = gg::block_sum_all(sgd, sbuf);
    const TrainingBackward t =
        channel_backward(eps, m, sg, sgd, c, gamma, center, var, gmean, gvar, threadIdx.x == 0, dgamma, dbeta);
    const float ta = (float)t.a, tb = (float)t.b, tk = (float)t.k;
    for (int j0 = threadIdx.x; j0 < M4; j0 += kVecBatch * step) {
      int e[kVecBatch];
      float4 gv[kVecBatch], xv[kVecBatch];
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u) {
        const int j = j0 + u * step;
        e[u] = j < M4 ? group4(p, c, j) : -1;
        gv[u] = j < M4 ? g4[e[u]] : make_float4(0.f, 0.f, 0.f, 0.f);
        xv[u] = j < M4 ? x4[e[u]] : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int u = 0; u < kVecBatch; ++u)
        if (e[u] >= 0)
          dx4[e[u]] = make_float4(ta * gv[u].x + tb * xv[u].x + tk, ta * gv[u].y + tb * xv[u].y + tk,
                                  ta * gv[u].z + tb * xv[u].z + tk, ta * gv[u].w + tb * xv[u].w + tk);
    }
  }
}

// Reads the old statistics from rm/rv and writes the new ones to rm_out/rv_out (the same
// buffers when the op runs in place).
template <typename T>
__device__ void update_stats(int64_t C, double momentum, double count, T* rm_out, T* rv_out, const T* rm,
                             const T* rv, const T* mean, const T* var) {
  const double unbias = count / (count - 1.0);
  GG_FOR(c, C) running_update(momentum, unbias, rm_out, rv_out, rm, rv, c, mean[c], var[c]);
}

}  // namespace gg_bn

namespace gg_gn {

template <typename T>
__device__ void forward(const GGGroupNorm& p, const T* x, const T* w, const T* b, T* y, T* mean_out, T* rstd_out) {
  __shared__ double scratch[32];
  const int len = p.cg * p.I;
  const double inv_len = 1.0 / (double)len;
  for (int q = blockIdx.x; q < p.N * p.G; q += gridDim.x) {  // q = n * G + k
    const int c0 = (q % p.G) * p.cg;
    const T* xq = x + q * len;
    T* yq = y + q * len;
    double s = 0;
    for (int j = threadIdx.x; j < len; j += blockDim.x) s += (double)xq[j];
    const double mean = gg::block_sum_all(s, scratch) * inv_len;
    double dsum = 0, sq = 0;
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
      const double v = (double)xq[j] - mean;
      dsum += v;
      sq += v * v;
    }
    dsum = gg::block_sum_all(dsum, scratch);
    sq = gg::block_sum_all(sq, scratch);
    const double v = (sq - dsum * dsum * inv_len) * inv_len;
    const double rstd = 1.0 / sqrt((v < 0 ? 0.0 : v) + p.eps);  // NaN stays NaN (no values)
    const T m = (T)mean;
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
      const int c = c0 + j / p.I;
      const T sc = (T)(rstd * (w ? (double)w[c] : 1.0));
      yq[j] = (xq[j] - m) * sc + (b ? b[c] : T(0));
    }
    if (threadIdx.x == 0) {
      mean_out[q] = (T)mean;
      rstd_out[q] = (T)rstd;
    }
  }
}

template <typename T>
__device__ void backward(const GGGroupNorm& p, const T* g, const T* x, const T* mean, const T* rstd, const T* w,
                         T* dx, double* part) {
  __shared__ double scratch[32];
  __shared__ double sums[2];
  const int len = p.cg * p.I;
  for (int q = blockIdx.x; q < p.N * p.G; q += gridDim.x) {  // q = n * G + k
    const int c0 = (q % p.G) * p.cg;
    const int row = (q / p.G) * p.C + c0;  // (n, c0) of part [N, C, 2]
    const double mu = (double)mean[q], r = (double)rstd[q];
    double s1 = 0, s2 = 0;  // thread 0's: sum_c w*sg, sum_c w*sgd
    for (int k = 0; k < p.cg; ++k) {
      const int off = q * len + k * p.I;
      double a = 0, dd = 0;
      for (int i = threadIdx.x; i < p.I; i += blockDim.x) {
        const double gi = (double)g[off + i];
        a += gi;
        dd += gi * ((double)x[off + i] - mu);
      }
      a = gg::block_sum(a, scratch);
      dd = gg::block_sum(dd, scratch);
      if (threadIdx.x == 0) {
        part[2 * (int64_t)(row + k)] = a;  // 2 * N * C may pass 2^31
        part[2 * (int64_t)(row + k) + 1] = dd == 0 ? 0.0 : dd * r;  // 0 for no values (rstd NaN)
        const double wc = w ? (double)w[c0 + k] : 1.0;
        s1 += wc * a;
        s2 += wc * dd;
      }
    }
    if (threadIdx.x == 0) {
      sums[0] = s1;
      sums[1] = s2;
    }
    __syncthreads();
    const double bcoef = -r * r * r * sums[1] / (double)len;
    const double kcoef = -r * sums[0] / (double)len;
    const T tb = (T)bcoef, tk = (T)kcoef, m = mean[q];
    for (int j = threadIdx.x; j < len; j += blockDim.x) {
      const int c = c0 + j / p.I;
      const T ta = (T)(r * (w ? (double)w[c] : 1.0));
      dx[q * len + j] = ta * g[q * len + j] + tb * (x[q * len + j] - m) + tk;
    }
    __syncthreads();  // sums is rewritten by the next group
  }
}

template <typename T>
__device__ void param_grads(const GGGroupNorm& p, const double* part, T* dw, T* db) {
  GG_FOR(c, p.C) {
    double sb = 0, sw = 0;
    for (int n = 0; n < p.N; ++n) {
      sb += part[2 * ((int64_t)n * p.C + c)];
      sw += part[2 * ((int64_t)n * p.C + c) + 1];
    }
    db[c] = (T)sb;
    dw[c] = (T)sw;
  }
}

}  // namespace gg_gn

GG_DEFINE_KERNELS(GG_NORM_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launchers ------------------------------------------------------------------
#include <algorithm>
#include <type_traits>

#include "cuda/launch.h"
#include "fast_div.h"
#include "glassgrad/autodiff/families/norm.h"
#include "glassgrad/autodiff/fusion.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_NORM_KERNELS)

namespace {

using NCI = NormGeometry;

// Partitions of a channel's M = N*I values: >= kPartValues values each, and at most
// kMaxBlocks blocks over all channels (one partition per channel when C alone fills the GPU).
// A function of the shape only, so the summation order is the same on every GPU.
constexpr int64_t kPartValues = 1024, kMaxBlocks = 2048;

GGBatchNorm bn_params(const NCI& d) {
  GGBatchNorm p{};
  p.N = static_cast<int32_t>(d.n);
  p.C = static_cast<int32_t>(d.c);
  p.I = static_cast<int32_t>(d.i);
  const int64_t M = d.m();
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>((M + kPartValues - 1) / kPartValues,
                                                                 std::max<int64_t>(1, kMaxBlocks / std::max<int64_t>(1, d.c))));
  p.chunk = static_cast<int32_t>(std::max<int64_t>(1, (M + parts - 1) / parts));
  p.P = static_cast<int32_t>(std::max<int64_t>(1, (M + p.chunk - 1) / p.chunk));
  p.div_I = make_fast_div(std::max<int64_t>(1, d.i));
  p.div_C = make_fast_div(std::max<int64_t>(1, d.c));
  p.div_I4 = make_fast_div(std::max<int64_t>(1, d.i / 4));
  return p;
}

// Channels of at most kForwardChannelValues (forward) or kBackwardChannelValues (backward)
// values, kChannelTotal values in all, run a block per channel that does the whole op in one
// launch (train_channel, backward_channel) instead of the partition path's two (the partitions'
// sums, then a block per partition and channel that merges its channel's and applies them): in
// a small model's step the launches, not the arithmetic, were the time (SimpleCNN's second
// BatchNorm, 32 x 3872 values). Larger ones take the partitions, which spread a channel over
// many multiprocessors. The limits differ by direction as measured on a GPU machine on
// SimpleCNN's first BatchNorm (16 channels of 21632 values): forward 6.9 us as a block per
// channel, 3.1 + 5.0 us on partitions; backward 8.6 us as a block per channel, 3.2 + 3.4 us on
// partitions. A function of the shape only, as the partitions are, so the summation order is
// the same on every GPU.
constexpr int64_t kForwardChannelValues = 32768, kBackwardChannelValues = 8192, kChannelTotal = int64_t(1) << 19;
bool channel_per_block(const NCI& d, bool backward) {
  const int64_t M = d.m();
  return M <= (backward ? kBackwardChannelValues : kForwardChannelValues) && M * d.c <= kChannelTotal;
}
Dim3 channel_grid(const NCI& d) { return Dim3{static_cast<unsigned>(std::min<int64_t>(d.c, 65535))}; }

Dim3 partition_grid(const GGBatchNorm& p) { return Dim3{static_cast<unsigned>(p.P), cap_yz(p.C)}; }
unsigned partition_block(const GGBatchNorm& p) { return pow2_block(p.chunk, 32, 256); }

// attrs "activation" = "relu" (the fusion pass's batchnorm + relu): applied in the affine pass.
int relu_of(const Attrs& a) { return fused_relu(a) ? 1 : 0; }

Tensor coef_buffer(const Tensor& x, int64_t per_channel, int64_t C) {
  return Tensor::empty({std::max<int64_t>(1, per_channel * C)}, DType::Float64, x.device(), "batchnorm coefficients");
}

// inputs x, gamma, beta; outputs y, mean, var (biased); u: BatchNorm2DTrainUpdate's state
// writes (u.rm null for BatchNorm2DTrain).
void train(const KernelContext& c, const GGRunningUpdate& u) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const char* op = u.rm ? "BatchNorm2DTrainUpdate" : "BatchNorm2DTrain";
  if (!u.rm && c.inputs.size() > 3) {  // the residual form: fused on CPU plans only (fusion.h)
    throw UnsupportedError(ErrorMessage("BatchNorm2DTrain" + (c.meta.scope.empty() ? std::string() : " '" + c.meta.scope + "'") +
                                        ": the residual input (y = bn(x) + residual) has no CUDA kernel yet")
                               .fix("run BatchNorm2DTrain and Add as two ops on CUDA (the fusion pass does so)")
                               .str());
  }
  const NCI d = NCI::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  const double eps = d.attrs.eps;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{op, &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, op);
  const GGBatchNorm p = bn_params(d);
  const int relu = relu_of(c.attrs);
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    const T* xp = ptr<const T>(x);
    const T* gamma = ptr<const T>(c.inputs[1]);
    const T* beta = ptr<const T>(c.inputs[2]);
    T* yp = ptr<T>(y);
    T* mean = ptr<T>(c.outputs[1]);
    T* var = ptr<T>(c.outputs[2]);
    if (channel_per_block(d, false)) {
      const bool vec = float4_channels(dt, d.i, {x.data_ptr(), y.data_ptr()});
      const Dim3 block{channel_block(d.m() / (vec ? 4 : 1))};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_bn_train_channel_vec<T>>(s, st, channel_grid(d), block, site, p, eps, u, relu, xp, gamma,
                                                      beta, yp, mean, var);
          return;
        }
      }
      launch<kernels::gg_bn_train_channel<T>>(s, st, channel_grid(d), block, site, p, eps, u, relu, xp, gamma, beta,
                                              yp, mean, var);
      return;
    }
    // Partitions: their statistics, then a block per (partition, channel) merges its channel's
    // and normalizes its partition.
    const Tensor part = coef_buffer(x, 3 * p.P, d.c);
    launch<kernels::gg_bn_partial_stats<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, xp,
                                            ptr<double>(part));
    launch<kernels::gg_bn_train_apply<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, eps, u, relu,
                                          xp, gamma, beta, yp, mean, var, ptr<const double>(part));
  });
}

void batch_norm_train(const KernelContext& c) { train(c, GGRunningUpdate{}); }

// inputs x, gamma, beta, running_mean, running_var, counter; outputs y, mean, var and, in place,
// running_mean, running_var, counter (attrs momentum, count, counter_add).
void batch_norm_train_update(const KernelContext& c) {
  const NormAttrs a = NormAttrs::from(c.attrs);
  const double count = static_cast<double>(a.count);
  GGRunningUpdate u{};
  u.rm = c.outputs[3].data_ptr();
  u.rv = c.outputs[4].data_ptr();
  u.counter = static_cast<int64_t*>(c.outputs[5].data_ptr());
  u.momentum = a.momentum;
  u.unbias = count / (count - 1.0);
  u.add = a.counter_add;
  train(c, u);
}

// inputs x, gamma, beta, running_mean, running_var; output y
void batch_norm_inference(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const int64_t n = x.numel();
  if (n == 0) return;
  const NCI d = NCI::from(x.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"BatchNorm2DInference", &c};
  require_int32_sizes(c, "BatchNorm2DInference");
  const GGBatchNorm p = bn_params(d);
  const Tensor coef = coef_buffer(x, 2, d.c);
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    launch<kernels::gg_bn_inference_coef<T>>(s, st, Dim3{blocks_for(s, d.c, 256)}, Dim3{256}, site, d.c, d.attrs.eps,
                                             ptr<const T>(c.inputs[1]), ptr<const T>(c.inputs[2]),
                                             ptr<const T>(c.inputs[3]), ptr<const T>(c.inputs[4]), ptr<double>(coef));
    launch<kernels::gg_bn_affine<T>>(s, st, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p, static_cast<int>(n),
                                     relu_of(c.attrs), ptr<T>(y), ptr<const T>(x), ptr<const double>(coef));
  });
}

// mode 0 (BatchNorm2DBackward): inputs g, x, gamma, mean, var[, grad_mean[, grad_var]];
//   outputs dx, dgamma, dbeta
// mode 1 (BatchNorm2DInferenceBackward): inputs g, x, gamma, running_mean, running_var;
//   outputs dx, dgamma, dbeta, drunning_mean, drunning_var
template <int MODE>
void bn_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& x = c.inputs[1];
  const NCI d = NCI::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  const double eps = d.attrs.eps;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward", &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward");
  const GGBatchNorm p = bn_params(d);
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    auto opt = [&](size_t i) -> const T* { return c.inputs.size() > i ? ptr<const T>(c.inputs[i]) : nullptr; };
    const T* gmean = MODE == 0 ? opt(5) : nullptr;
    const T* gvar = MODE == 0 ? opt(6) : nullptr;
    const T* gp = ptr<const T>(g);
    const T* xp = ptr<const T>(x);
    const T* gamma = ptr<const T>(c.inputs[2]);
    const T* center = ptr<const T>(c.inputs[3]);
    const T* var = ptr<const T>(c.inputs[4]);
    T* dx = ptr<T>(c.outputs[0]);
    T* dgamma = ptr<T>(c.outputs[1]);
    T* dbeta = ptr<T>(c.outputs[2]);
    if (MODE == 0 && channel_per_block(d, true)) {
      const bool vec = float4_channels(dt, d.i, {g.data_ptr(), x.data_ptr(), c.outputs[0].data_ptr()});
      const Dim3 block{channel_block(d.m() / (vec ? 4 : 1))};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_bn_backward_channel_vec<T>>(s, st, channel_grid(d), block, site, p, eps, gp, xp, gamma,
                                                         center, var, gmean, gvar, dx, dgamma, dbeta);
          return;
        }
      }
      launch<kernels::gg_bn_backward_channel<T>>(s, st, channel_grid(d), block, site, p, eps, gp, xp, gamma, center,
                                                 var, gmean, gvar, dx, dgamma, dbeta);
      return;
    }
    const Tensor part = coef_buffer(x, 2 * p.P, d.c);
    if (MODE == 0) {  // the sums of the partitions, then a block per (partition, channel) applies them
      launch<kernels::gg_bn_partial_sums<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, gp, xp,
                                             center, ptr<double>(part));
      launch<kernels::gg_bn_backward_apply<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, eps, gp,
                                               xp, gamma, center, var, gmean, gvar, dx, dgamma, dbeta,
                                               ptr<const double>(part));
      return;
    }
    const Tensor coef = coef_buffer(x, 3, d.c);
    T* drm = MODE == 1 ? ptr<T>(c.outputs[3]) : nullptr;
    T* drv = MODE == 1 ? ptr<T>(c.outputs[4]) : nullptr;
    const int mode = MODE;
    launch<kernels::gg_bn_partial_sums<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, gp, xp, center,
                                           ptr<double>(part));
    launch<kernels::gg_bn_backward_sums<T>>(s, st, Dim3{blocks_for(s, d.c * 32, 128)}, Dim3{128}, site, mode, p, eps,
                                            gamma, center, var, gmean, gvar, dgamma, dbeta, drm, drv, ptr<double>(coef),
                                            ptr<const double>(part));
    const int n = static_cast<int>(x.numel());
    if (n == 0) return;
    launch<kernels::gg_bn_backward_dx<T>>(s, st, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p, n, dx, gp, xp,
                                          ptr<const double>(coef));
  });
}

const KernelFn batch_norm_backward = bn_backward<0>;
const KernelFn batch_norm_inference_backward = bn_backward<1>;

// inputs rm, rv, mean, var; outputs rm, rv (in place)
void batch_norm_update_stats(const KernelContext& c) {
  const Tensor& rm = c.inputs[0];
  const int64_t C = rm.numel();
  if (C == 0) return;
  const NormAttrs a = NormAttrs::from(c.attrs);
  const OpLaunch L(c, "BatchNormUpdateStats", C);
  dispatch_float(rm.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_bn_update_stats<T>>(C, a.momentum, static_cast<double>(a.count), ptr<T>(c.outputs[0]),
                                          ptr<T>(c.outputs.size() > 1 ? c.outputs[1] : c.inputs[1]),
                                          ptr<const T>(c.inputs[0]), ptr<const T>(c.inputs[1]),
                                          ptr<const T>(c.inputs[2]), ptr<const T>(c.inputs[3]));
  });
}

GGGroupNorm gn_params(const NormGeometry& d) {
  GGGroupNorm p{};
  p.N = static_cast<int32_t>(d.n);
  p.C = static_cast<int32_t>(d.c);
  p.I = static_cast<int32_t>(d.i);
  p.G = static_cast<int32_t>(d.groups());
  p.cg = static_cast<int32_t>(d.group_channels());
  p.eps = d.attrs.eps;
  return p;
}

// A block of 256 threads per (sample, group), at most 65535 blocks (grid-stride beyond).
Dim3 group_grid(const NormGeometry& d) {
  return Dim3{static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(d.n * d.groups(), 65535)))};
}

// inputs x[, weight[, bias]]; outputs y, mean, rstd ([N, G])
void group_norm(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const NormGeometry d = NormGeometry::from(x.shape(), c.attrs);
  if (d.n * d.groups() == 0) return;
  require_int32_sizes(c, "GroupNorm");
  DeviceState& s = state_of(c);
  const LaunchSite site{"GroupNorm", &c};
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    auto opt = [&](size_t i) -> const T* { return c.inputs.size() > i ? ptr<const T>(c.inputs[i]) : nullptr; };
    launch<kernels::gg_gn_forward<T>>(s, stream_of(s, &c), group_grid(d), Dim3{256}, site, gn_params(d),
                                      ptr<const T>(x), opt(1), opt(2), ptr<T>(c.outputs[0]), ptr<T>(c.outputs[1]),
                                      ptr<T>(c.outputs[2]));
  });
}

// inputs g, x, mean, rstd[, weight]; outputs dx, dweight, dbias. The per-(sample, channel) sums
// live in a temporary device buffer [N, C, 2] (double).
void group_norm_backward(const KernelContext& c) {
  const Tensor& x = c.inputs[1];
  const NormGeometry d = NormGeometry::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  require_int32_sizes(c, "GroupNormBackward");
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const LaunchSite site{"GroupNormBackward", &c};
  const GGGroupNorm p = gn_params(d);
  const Tensor part = Tensor::empty({std::max<int64_t>(1, 2 * d.n * d.c)}, DType::Float64, x.device(), "group norm sums");
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (d.n > 0) {
      const T* w = c.inputs.size() > 4 ? ptr<const T>(c.inputs[4]) : nullptr;
      launch<kernels::gg_gn_backward<T>>(s, st, group_grid(d), Dim3{256}, site, p, ptr<const T>(c.inputs[0]),
                                         ptr<const T>(x), ptr<const T>(c.inputs[2]), ptr<const T>(c.inputs[3]), w,
                                         ptr<T>(c.outputs[0]), ptr<double>(part));
    }
    launch<kernels::gg_gn_param_grads<T>>(s, st, Dim3{blocks_for(s, d.c, 256)}, Dim3{256}, site, p,
                                          ptr<const double>(part), ptr<T>(c.outputs[1]), ptr<T>(c.outputs[2]));
  });
}

}  // namespace

// --8<-- [start:register]
void add_norm_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/norm.def"
}
// --8<-- [end:register]

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
