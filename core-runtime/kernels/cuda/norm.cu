// Batch normalization over the channel axis of x [N, C, *] (I = product of the trailing axes;
// M = N * I values per channel), biased variance:
//
//   mean[c] = sum_{n,i} x[n,c,i] / M          var[c] = sum_{n,i} (x[n,c,i] - mean[c])^2 / M
//   train / inference:  y = (x - mean[c]) * rsqrt(var[c] + eps) * gamma[c] + beta[c]
//   backward (xhat = (x - mean) * invstd, invstd = rsqrt(var + eps)):
//     dbeta[c]  = sum g            dgamma[c] = sum g * xhat
//     dx        = gamma[c] * invstd * (g - dbeta[c] / M - xhat * dgamma[c] / M)
//   running statistics (in place): rm = (1 - m) rm + m mean,
//                                  rv = (1 - m) rv + m var * count / (count - 1)   (unbiased)
//
// Per-channel sums: one block per channel (grid-stride over channels), two passes for the
// variance so no catastrophic cancellation. Elementwise parts: one thread per element.
// Layouts: dense.
#include "common.cuh"

namespace gg_bn {

template <typename T>
__device__ __forceinline__ T load_nci(const T* x, int64_t C, int64_t I, int64_t c, int64_t j) {
  const int64_t n = j / I, i = j - n * I;
  return x[(n * C + c) * I + i];
}

template <typename T>
__device__ void stats(int64_t N, int64_t C, int64_t I, const T* x, T* mean, T* var) {
  __shared__ T sbuf[32];
  const int64_t M = N * I;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    T s = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) s += load_nci(x, C, I, c, j);
    const T mu = gg::block_sum_all(s, sbuf) / T(M);
    T q = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
      const T d = load_nci(x, C, I, c, j) - mu;
      q += d * d;
    }
    q = gg::block_sum(q, sbuf);
    if (threadIdx.x == 0) {
      mean[c] = mu;
      var[c] = q / T(M);
    }
  }
}

template <typename T>
__device__ __forceinline__ T rsqrt_t(T v) { return T(1) / gg::gg_sqrt(v); }

template <typename T>
__device__ void normalize(int64_t n, int64_t C, int64_t I, double eps, T* y, const T* x, const T* gamma,
                          const T* beta, const T* mean, const T* var) {
  GG_FOR(e, n) {
    const int64_t c = (e / I) % C;
    y[e] = (x[e] - mean[c]) * rsqrt_t(var[c] + T(eps)) * gamma[c] + beta[c];
  }
}

template <typename T>
__device__ void backward_sums(int64_t N, int64_t C, int64_t I, double eps, const T* g, const T* x,
                              const T* mean, const T* var, T* dgamma, T* dbeta) {
  __shared__ T sbuf[32];
  const int64_t M = N * I;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    const T mu = mean[c], inv = rsqrt_t(var[c] + T(eps));
    T sg = 0, sgx = 0;
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
      const T gv = load_nci(g, C, I, c, j);
      sg += gv;
      sgx += gv * (load_nci(x, C, I, c, j) - mu) * inv;
    }
    sg = gg::block_sum(sg, sbuf);
    sgx = gg::block_sum(sgx, sbuf);
    if (threadIdx.x == 0) {
      dbeta[c] = sg;
      dgamma[c] = sgx;
    }
  }
}

template <typename T>
__device__ void backward_dx(int64_t n, int64_t C, int64_t I, int64_t M, double eps, T* dx, const T* g,
                            const T* x, const T* gamma, const T* mean, const T* var, const T* dgamma,
                            const T* dbeta) {
  GG_FOR(e, n) {
    const int64_t c = (e / I) % C;
    const T inv = rsqrt_t(var[c] + T(eps));
    const T xhat = (x[e] - mean[c]) * inv;
    dx[e] = gamma[c] * inv * (g[e] - dbeta[c] / T(M) - xhat * dgamma[c] / T(M));
  }
}

// Reads the old statistics from rm/rv and writes the new ones to rm_out/rv_out (the same
// buffers when the op runs in place).
template <typename T>
__device__ void update_stats(int64_t C, double momentum, double count, T* rm_out, T* rv_out, const T* rm,
                             const T* rv, const T* mean, const T* var) {
  const T m = T(momentum);
  const T unbias = count > 1 ? T(count / (count - 1)) : T(1);
  GG_FOR(c, C) {
    rm_out[c] = (T(1) - m) * rm[c] + m * mean[c];
    rv_out[c] = (T(1) - m) * rv[c] + m * var[c] * unbias;
  }
}

}  // namespace gg_bn

#define GG_BN(suffix, T)                                                                             \
  GG_KERNEL void gg_bn_stats_##suffix(int64_t N, int64_t C, int64_t I, const T* x, T* mean, T* var) { \
    gg_bn::stats<T>(N, C, I, x, mean, var);                                                          \
  }                                                                                                  \
  GG_KERNEL void gg_bn_normalize_##suffix(int64_t n, int64_t C, int64_t I, double eps, T* y, const T* x, \
                                          const T* gamma, const T* beta, const T* mean, const T* var) { \
    gg_bn::normalize<T>(n, C, I, eps, y, x, gamma, beta, mean, var);                                 \
  }                                                                                                  \
  GG_KERNEL void gg_bn_backward_sums_##suffix(int64_t N, int64_t C, int64_t I, double eps, const T* g,  \
                                              const T* x, const T* mean, const T* var, T* dgamma,   \
                                              T* dbeta) {                                            \
    gg_bn::backward_sums<T>(N, C, I, eps, g, x, mean, var, dgamma, dbeta);                          \
  }                                                                                                  \
  GG_KERNEL void gg_bn_backward_dx_##suffix(int64_t n, int64_t C, int64_t I, int64_t M, double eps, T* dx, \
                                            const T* g, const T* x, const T* gamma, const T* mean,   \
                                            const T* var, const T* dgamma, const T* dbeta) {         \
    gg_bn::backward_dx<T>(n, C, I, M, eps, dx, g, x, gamma, mean, var, dgamma, dbeta);              \
  }                                                                                                  \
  GG_KERNEL void gg_bn_update_stats_##suffix(int64_t C, double momentum, double count, T* rm_out,        \
                                             T* rv_out, const T* rm, const T* rv, const T* mean,     \
                                             const T* var) {                                         \
    gg_bn::update_stats<T>(C, momentum, count, rm_out, rv_out, rm, rv, mean, var);                   \
  }
GG_BN(f32, float)
GG_BN(f64, double)
