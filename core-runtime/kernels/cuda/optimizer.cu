// Optimizer updates on dense parameter and state buffers. Each kernel reads the old values
// from the input pointers and writes the new ones to the output pointers, which are the same
// buffers when the op updates in place (the usual case) and fresh ones otherwise. lr (and Adam's step) are
// one-element device tensors, read by every thread, so changing them never changes the plan.
// With d = g + weight_decay * p:
//
//   SGD:           p -= lr * d
//   SGD momentum:  buf = momentum * buf + d;  p -= lr * (nesterov ? d + momentum * buf : buf)
//   Adam:          m = b1 m + (1 - b1) d;  v = b2 v + (1 - b2) d^2;
//                  p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),  t = step
#include "common.cuh"

namespace gg_opt {

__device__ __forceinline__ double load_scalar(const void* p, int dtype) {
  switch (dtype) {
    case GG_F32: return *(const float*)p;
    case GG_F64: return *(const double*)p;
    case GG_I64: return (double)*(const int64_t*)p;
    default: return *(const unsigned char*)p;
  }
}

template <typename T>
__device__ void sgd(int64_t n, double wd, T* p_out, const T* p, const T* g, const void* lr, int lr_dtype) {
  const T a = T(load_scalar(lr, lr_dtype));
  GG_FOR(i, n) p_out[i] = p[i] - a * (g[i] + T(wd) * p[i]);
}

template <typename T>
__device__ void sgd_momentum(int64_t n, double momentum, double wd, int nesterov, T* p_out, T* buf_out,
                             const T* p, const T* buf, const T* g, const void* lr, int lr_dtype) {
  const T a = T(load_scalar(lr, lr_dtype)), mu = T(momentum);
  GG_FOR(i, n) {
    const T pi = p[i];
    const T d = g[i] + T(wd) * pi;
    const T b = mu * buf[i] + d;
    buf_out[i] = b;
    p_out[i] = pi - a * (nesterov ? d + mu * b : b);
  }
}

template <typename T>
__device__ void adam(int64_t n, double b1, double b2, double eps, double wd, T* p_out, T* m_out, T* v_out,
                     const T* p, const T* m, const T* v, const T* g, const void* lr, int lr_dtype,
                     const void* step, int step_dtype) {
  const double t = load_scalar(step, step_dtype);
  const T a = T(load_scalar(lr, lr_dtype));
  const T c1 = T(1.0 - pow(b1, t)), c2 = T(1.0 - pow(b2, t));
  GG_FOR(i, n) {
    const T pi = p[i];
    const T d = g[i] + T(wd) * pi;
    const T mi = T(b1) * m[i] + (T(1) - T(b1)) * d;
    const T vi = T(b2) * v[i] + (T(1) - T(b2)) * d * d;
    m_out[i] = mi;
    v_out[i] = vi;
    p_out[i] = pi - a * (mi / c1) / (gg::gg_sqrt(vi / c2) + T(eps));
  }
}

}  // namespace gg_opt

#define GG_OPT(suffix, T)                                                                             \
  GG_KERNEL void gg_sgd_##suffix(int64_t n, double wd, T* p_out, const T* p, const T* g, const void* lr,   \
                                 int lr_dtype) {                                                      \
    gg_opt::sgd<T>(n, wd, p_out, p, g, lr, lr_dtype);                                                 \
  }                                                                                                   \
  GG_KERNEL void gg_sgd_momentum_##suffix(int64_t n, double momentum, double wd, int nesterov, T* p_out,    \
                                          T* buf_out, const T* p, const T* buf, const T* g, const void* lr, \
                                          int lr_dtype) {                                            \
    gg_opt::sgd_momentum<T>(n, momentum, wd, nesterov, p_out, buf_out, p, buf, g, lr, lr_dtype);      \
  }                                                                                                   \
  GG_KERNEL void gg_adam_##suffix(int64_t n, double b1, double b2, double eps, double wd, T* p_out, T* m_out, \
                                  T* v_out, const T* p, const T* m, const T* v, const T* g, const void* lr, \
                                  int lr_dtype, const void* step, int step_dtype) {                  \
    gg_opt::adam<T>(n, b1, b2, eps, wd, p_out, m_out, v_out, p, m, v, g, lr, lr_dtype, step, step_dtype); \
  }
GG_OPT(f32, float)
GG_OPT(f64, double)
