// Optimizer updates, elementwise, with the CPU kernels' arithmetic (kernels/cpu/optimizer.cpp,
// itself PyTorch's order of operations). Parameters and state are dense; the gradient may have
// any strides (GGIter operand 1, iterated in the parameter's row-major order). Each kernel
// reads the old values through the input pointers and writes the outputs, which are the same
// buffers when the op updates in place. lr, momentum, beta1 and step are one-element device
// tensors read by every thread, so changing them never changes a plan. With d = g + wd * p:
//
//   SGD:           p = p - lr * d
//   SGD momentum:  buf = momentum * buf + (1 - dampening) * d;
//                  p = p - lr * (nesterov ? d + momentum * buf : buf)
//   Adam:          t = step + 1; AdamW (decoupled): p = p (1 - lr wd), d = g;
//                  m = b1 m + (1 - b1) d; v = b2 v + (1 - b2) d^2;
//                  AMSGrad: v_max = max(v_max, v), used in place of v below;
//                  p = p - (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps); step = t
//                  (step is written by gg_adam_step after the update, so every thread of the
//                  update reads the old value)
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
__device__ __forceinline__ T grad_at(const GGIter& it, const T* g, int64_t i) {
  if (it.rank == 1 && it.stride[1][0] == 1) return g[i];
  int64_t off[2];
  gg::iter_offsets<2>(it, i, off);
  return g[off[1]];
}

template <typename T>
__device__ void sgd(int64_t n, GGIter it, double wd, T* p_out, const T* p, const T* g, const void* lr, int lr_dtype) {
  const T a = (T)load_scalar(lr, lr_dtype), w = (T)wd;
  GG_FOR(i, n) {
    const T pi = p[i];
    p_out[i] = pi - a * (grad_at(it, g, i) + w * pi);
  }
}

template <typename T>
__device__ void sgd_momentum(int64_t n, GGIter it, double dampening, double wd, int nesterov, T* p_out, T* buf_out,
                             const T* p, const T* buf, const T* g, const void* lr, int lr_dtype, const T* momentum) {
  const T a = (T)load_scalar(lr, lr_dtype), mu = *momentum, w = (T)wd, keep = (T)(1.0 - dampening);
  GG_FOR(i, n) {
    const T pi = p[i];
    const T d = grad_at(it, g, i) + w * pi;
    const T b = mu * buf[i] + keep * d;
    buf_out[i] = b;
    p_out[i] = pi - a * (nesterov ? d + mu * b : b);
  }
}

// v_max / v_max_out are null unless AMSGrad.
template <typename T>
__device__ void adam(int64_t n, GGIter it, double b2, double eps, double wd, int decoupled, T* p_out, T* m_out,
                     T* v_out, T* v_max_out, const T* p, const T* m, const T* v, const T* v_max, const T* g,
                     const void* lr, int lr_dtype, const T* beta1, const int64_t* step) {
  const double t = (double)(*step + 1);
  const double lr_d = load_scalar(lr, lr_dtype), b1 = (double)*beta1;
  const T step_size = (T)(lr_d / (1.0 - pow(b1, t)));
  const T bc2_sqrt = (T)sqrt(1.0 - pow(b2, t));
  const T tb1 = (T)b1, tb2 = (T)b2, one_b1 = (T)(1.0 - b1), one_b2 = (T)(1.0 - b2), te = (T)eps;
  const T w = decoupled ? T(0) : (T)wd, shrink = (T)(1.0 - lr_d * (decoupled ? wd : 0.0));
  GG_FOR(i, n) {
    const T pi = decoupled ? p[i] * shrink : p[i];
    const T d = grad_at(it, g, i) + w * pi;
    const T mi = tb1 * m[i] + one_b1 * d;
    const T vi = tb2 * v[i] + one_b2 * d * d;
    m_out[i] = mi;
    v_out[i] = vi;
    T denom_v = vi;
    if (v_max != nullptr) {
      denom_v = v_max[i] > vi ? v_max[i] : vi;
      v_max_out[i] = denom_v;
    }
    p_out[i] = pi - step_size * mi / (gg::gg_sqrt(denom_v) / bc2_sqrt + te);
  }
}

}  // namespace gg_opt

#define GG_OPT(suffix, T)                                                                             \
  GG_KERNEL void gg_sgd_##suffix(int64_t n, GGIter it, double wd, T* p_out, const T* p, const T* g,    \
                                 const void* lr, int lr_dtype) {                                     \
    gg_opt::sgd<T>(n, it, wd, p_out, p, g, lr, lr_dtype);                                             \
  }                                                                                                   \
  GG_KERNEL void gg_sgd_momentum_##suffix(int64_t n, GGIter it, double dampening, double wd, int nesterov, \
                                          T* p_out, T* buf_out, const T* p, const T* buf, const T* g,  \
                                          const void* lr, int lr_dtype, const T* momentum) {           \
    gg_opt::sgd_momentum<T>(n, it, dampening, wd, nesterov, p_out, buf_out, p, buf, g, lr, lr_dtype,   \
                            momentum);                                                                \
  }                                                                                                   \
  GG_KERNEL void gg_adam_##suffix(int64_t n, GGIter it, double b2, double eps, double wd, int decoupled,      \
                                  T* p_out, T* m_out, T* v_out, T* v_max_out, const T* p, const T* m,  \
                                  const T* v, const T* v_max, const T* g, const void* lr, int lr_dtype, \
                                  const T* beta1, const int64_t* step) {                              \
    gg_opt::adam<T>(n, it, b2, eps, wd, decoupled, p_out, m_out, v_out, v_max_out, p, m, v, v_max, g, lr,   \
                    lr_dtype, beta1, step);                                                           \
  }
GG_OPT(f32, float)
GG_OPT(f64, double)

// step_out = step + 1, after the update kernel has read step (same stream, so ordered).
GG_KERNEL void gg_adam_step(int64_t* step_out, const int64_t* step) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *step_out = *step + 1;
}
