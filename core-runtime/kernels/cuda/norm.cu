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
#include "common.cuh"
#include "norm.h"

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

// One block per channel, the whole op in one launch (norm.cpp's channel_per_block: channels
// of few values, where the three launches of the partition path were most of the time: about
// 8 us of a SimpleCNN layer's forward on a GPU machine). The statistics are partial_stats' with
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

// float32 with I % 4 == 0 and 16-byte aligned tensors (norm.cpp's vectorized_channels): the
// same two kernels reading and writing four consecutive values of a channel at a time, so a
// thread has four times the bytes in flight (the block's one multiprocessor was latency-bound:
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
