// Batch normalization over the channel axis of x [N, C, *] (I = product of the trailing axes,
// M = N * I values per channel; channel c's values are N runs of I elements at (n*C + c)*I).
// The same arithmetic as the CPU kernels (kernels/cpu/norm.cpp), so both agree to rounding:
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
//
// Per-channel sums run in double (one block per channel, grid-stride over channels) and leave
// per-channel coefficients (double) in a small buffer; a second, elementwise kernel applies
// them in the tensor's dtype. Layouts: dense.
#include "common.cuh"

namespace gg_bn {

template <typename T>
__device__ __forceinline__ double at(const T* p, int64_t C, int64_t I, int64_t c, int64_t j) {
  const int64_t n = j / I, i = j - n * I;
  return (double)p[(n * C + c) * I + i];
}

// coef[2c] = scale, coef[2c+1] = shift
template <typename T>
__device__ void train_stats(int64_t N, int64_t C, int64_t I, double eps, const T* x, const T* gamma, const T* beta,
                            T* mean_out, T* var_out, double* coef) {
  __shared__ double sbuf[32];
  const int64_t M = N * I;
  const double inv_m = M > 0 ? 1.0 / (double)M : 0.0;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    double s = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) s += at(x, C, I, c, j);
    const double mean = gg::block_sum_all(s, sbuf) * inv_m;
    double ds = 0, sq = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
      const double d = at(x, C, I, c, j) - mean;
      ds += d;
      sq += d * d;
    }
    ds = gg::block_sum(ds, sbuf);
    sq = gg::block_sum(sq, sbuf);
    if (threadIdx.x == 0) {
      double var = (sq - ds * ds * inv_m) * inv_m;
      var = var > 0 ? var : 0;
      const double scale = (double)gamma[c] / sqrt(var + eps);
      coef[2 * c] = scale;
      coef[2 * c + 1] = (double)beta[c] - mean * scale;
      mean_out[c] = (T)mean;
      var_out[c] = (T)var;
    }
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
__device__ void affine(int64_t n, int64_t C, int64_t I, int relu, T* y, const T* x, const double* coef) {
  GG_FOR(e, n) {
    const int64_t c = (e / I) % C;
    const T v = x[e] * (T)coef[2 * c] + (T)coef[2 * c + 1];
    y[e] = (relu && !(v > T(0))) ? T(0) : v;
  }
}

// mode 0: training backward (coef = a, b, k - b*mean; gmean/gvar optional)
// mode 1: inference backward (coef = a, 0, 0; writes drm, drv)
template <typename T>
__device__ void backward_sums(int mode, int64_t N, int64_t C, int64_t I, double eps, const T* g, const T* x,
                              const T* gamma, const T* center, const T* var, const T* gmean, const T* gvar,
                              T* dgamma, T* dbeta, T* drm, T* drv, double* coef) {
  __shared__ double sbuf[32];
  const int64_t M = N * I;
  const double m = (double)M;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    const double mu = (double)center[c];
    const double invstd = 1.0 / sqrt((double)var[c] + eps);
    double sg = 0, sgd = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
      const double gv = at(g, C, I, c, j);
      sg += gv;
      sgd += gv * (at(x, C, I, c, j) - mu);
    }
    sg = gg::block_sum(sg, sbuf);
    sgd = gg::block_sum(sgd, sbuf);
    if (threadIdx.x == 0) {
      dbeta[c] = (T)sg;
      dgamma[c] = (T)(invstd * sgd);
      const double a = (double)gamma[c] * invstd;
      double b = 0, k = 0;
      if (mode == 0) {
        if (M > 0) {
          b = -(double)gamma[c] * invstd * invstd * invstd * sgd / m;
          k = -a * sg / m;
          if (gmean) k += (double)gmean[c] / m;
          if (gvar) b += 2.0 * (double)gvar[c] / m;
        }
      } else {
        drm[c] = (T)(-a * sg);
        drv[c] = (T)(-0.5 * a * invstd * invstd * sgd);
      }
      coef[3 * c] = a;
      coef[3 * c + 1] = b;
      coef[3 * c + 2] = k - b * mu;
    }
  }
}

template <typename T>
__device__ void backward_dx(int64_t n, int64_t C, int64_t I, T* dx, const T* g, const T* x, const double* coef) {
  GG_FOR(e, n) {
    const int64_t c = (e / I) % C;
    dx[e] = (T)coef[3 * c] * g[e] + (T)coef[3 * c + 1] * x[e] + (T)coef[3 * c + 2];
  }
}

// Reads the old statistics from rm/rv and writes the new ones to rm_out/rv_out (the same
// buffers when the op runs in place).
template <typename T>
__device__ void update_stats(int64_t C, double momentum, double count, T* rm_out, T* rv_out, const T* rm,
                             const T* rv, const T* mean, const T* var) {
  const double unbias = count / (count - 1.0);
  GG_FOR(c, C) {
    rm_out[c] = (T)((1.0 - momentum) * (double)rm[c] + momentum * (double)mean[c]);
    rv_out[c] = (T)((1.0 - momentum) * (double)rv[c] + momentum * (double)var[c] * unbias);
  }
}

}  // namespace gg_bn

#define GG_BN(suffix, T)                                                                              \
  GG_KERNEL void gg_bn_train_stats_##suffix(int64_t N, int64_t C, int64_t I, double eps, const T* x,    \
                                            const T* gamma, const T* beta, T* mean, T* var, double* coef) { \
    gg_bn::train_stats<T>(N, C, I, eps, x, gamma, beta, mean, var, coef);                             \
  }                                                                                                   \
  GG_KERNEL void gg_bn_inference_coef_##suffix(int64_t C, double eps, const T* gamma, const T* beta,    \
                                               const T* rm, const T* rv, double* coef) {              \
    gg_bn::inference_coef<T>(C, eps, gamma, beta, rm, rv, coef);                                      \
  }                                                                                                   \
  GG_KERNEL void gg_bn_affine_##suffix(int64_t n, int64_t C, int64_t I, int relu, T* y, const T* x,     \
                                       const double* coef) {                                         \
    gg_bn::affine<T>(n, C, I, relu, y, x, coef);                                                      \
  }                                                                                                   \
  GG_KERNEL void gg_bn_backward_sums_##suffix(int mode, int64_t N, int64_t C, int64_t I, double eps,    \
                                              const T* g, const T* x, const T* gamma, const T* center, \
                                              const T* var, const T* gmean, const T* gvar, T* dgamma, \
                                              T* dbeta, T* drm, T* drv, double* coef) {               \
    gg_bn::backward_sums<T>(mode, N, C, I, eps, g, x, gamma, center, var, gmean, gvar, dgamma, dbeta, drm, drv, \
                            coef);                                                                    \
  }                                                                                                   \
  GG_KERNEL void gg_bn_backward_dx_##suffix(int64_t n, int64_t C, int64_t I, T* dx, const T* g, const T* x, \
                                            const double* coef) {                                    \
    gg_bn::backward_dx<T>(n, C, I, dx, g, x, coef);                                                   \
  }                                                                                                   \
  GG_KERNEL void gg_bn_update_stats_##suffix(int64_t C, double momentum, double count, T* rm_out,        \
                                             T* rv_out, const T* rm, const T* rv, const T* mean,     \
                                             const T* var) {                                         \
    gg_bn::update_stats<T>(C, momentum, count, rm_out, rv_out, rm, rv, mean, var);                   \
  }
GG_BN(f32, float)
GG_BN(f64, double)
