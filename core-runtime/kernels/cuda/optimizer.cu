// Optimizer updates, elementwise, with the CPU kernels' arithmetic (kernels/optimizer_rules.h,
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
//
// One parameter per launch (gg_sgd_*, gg_sgd_momentum_*, gg_adam_*, then gg_adam_step), or up to
// GG_OPT_MAX_TENSORS per launch (gg_*_multi_*, then gg_adam_step_multi; GGOptTable in params.h):
// the executor hands a plan's consecutive updates to one multi-tensor launch, so a step's
// optimizer costs one or two launches whatever the parameter count. Both compute every element
// with kernels/optimizer_rules.h, as the CPU kernels do: the same numbers, launch shape aside.
#include "common.cuh"
#include "optimizer.h"
#include "../optimizer_rules.h"

namespace gg_opt {

namespace rule = glassgrad::optimizer_rule;

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
  const rule::SgdScalars<T> s = rule::sgd_scalars<T>((T)load_scalar(lr, lr_dtype), T(0), wd, 0.0, false);
  GG_FOR(i, n) { p_out[i] = rule::sgd(p[i], grad_at(it, g, i), s); }
}

template <typename T>
__device__ void sgd_momentum(int64_t n, GGIter it, double dampening, double wd, int nesterov, T* p_out, T* buf_out,
                             const T* p, const T* buf, const T* g, const void* lr, int lr_dtype, const T* momentum) {
  const rule::SgdScalars<T> s =
      rule::sgd_scalars<T>((T)load_scalar(lr, lr_dtype), *momentum, wd, dampening, nesterov != 0);
  GG_FOR(i, n) {
    T b = buf[i];
    p_out[i] = rule::sgd_momentum(p[i], grad_at(it, g, i), b, s);
    buf_out[i] = b;
  }
}

// v_max / v_max_out are null unless AMSGrad.
template <typename T>
__device__ void adam(int64_t n, GGIter it, double b2, double eps, double wd, int decoupled, T* p_out, T* m_out,
                     T* v_out, T* v_max_out, const T* p, const T* m, const T* v, const T* v_max, const T* g,
                     const void* lr, int lr_dtype, const T* beta1, const int64_t* step) {
  const rule::AdamScalars<T> s = rule::adam_scalars<T>(load_scalar(lr, lr_dtype), (double)*beta1, b2, eps, wd,
                                                       decoupled != 0, (double)(*step + 1));
  GG_FOR(i, n) {
    T mi = m[i], vi = v[i], vmax = v_max != nullptr ? v_max[i] : T(0);
    p_out[i] = rule::adam(p[i], grad_at(it, g, i), mi, vi, v_max != nullptr ? &vmax : nullptr, s);
    m_out[i] = mi;
    v_out[i] = vi;
    if (v_max != nullptr) v_max_out[i] = vmax;
  }
}

// ---- multi-tensor updates (GGOptTable) ----

// The entry whose blocks include this block (entries are in block order).
__device__ __forceinline__ int entry_of_block(const GGOptTable& tab) {
  int k = 0;
  while (k + 1 < tab.count && tab.t[k + 1].first_block <= (int)blockIdx.x) ++k;
  return k;
}

template <typename T>
__device__ __forceinline__ T grad_of(const GGOptTensor& e, int64_t i) {
  const T* g = (const T*)e.g;
  if (e.cols == e.n) return g[i * e.gstride1];
  return g[(i / e.cols) * e.gstride0 + (i % e.cols) * e.gstride1];
}

// Calls f(i) for this block's elements of entry e: one chunk, threads striding through it.
template <typename F>
__device__ __forceinline__ void for_chunk(const GGOptTensor& e, F f) {
  const int64_t begin = (int64_t)((int)blockIdx.x - e.first_block) * GG_OPT_CHUNK;
  const int64_t end = begin + GG_OPT_CHUNK < e.n ? begin + GG_OPT_CHUNK : e.n;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) f(i);
}

template <typename T>
__device__ void sgd_multi(const GGOptTable& tab) {
  const GGOptTensor& e = tab.t[entry_of_block(tab)];
  const T mu = e.hyper != nullptr ? *(const T*)e.hyper : T(0);
  const rule::SgdScalars<T> s = rule::sgd_scalars<T>(*(const T*)e.lr, mu, e.a, e.b, e.flag != 0);
  T* p = (T*)e.p;
  T* buf = (T*)e.state0;
  if (buf == nullptr) {
    for_chunk(e, [&](int64_t i) { p[i] = rule::sgd(p[i], grad_of<T>(e, i), s); });
  } else {
    for_chunk(e, [&](int64_t i) {
      T b = buf[i];
      p[i] = rule::sgd_momentum(p[i], grad_of<T>(e, i), b, s);
      buf[i] = b;
    });
  }
}

template <typename T>
__device__ void adam_multi(const GGOptTable& tab) {
  const GGOptTensor& e = tab.t[entry_of_block(tab)];
  const rule::AdamScalars<T> s = rule::adam_scalars<T>((double)*(const T*)e.lr, (double)*(const T*)e.hyper, e.a,
                                                       e.b, e.c, e.flag != 0, (double)(*(const int64_t*)e.step + 1));
  T* p = (T*)e.p;
  T* m = (T*)e.state0;
  T* v = (T*)e.state1;
  T* v_max = (T*)e.state2;
  for_chunk(e, [&](int64_t i) {
    T mi = m[i], vi = v[i], vmax = v_max != nullptr ? v_max[i] : T(0);
    p[i] = rule::adam(p[i], grad_of<T>(e, i), mi, vi, v_max != nullptr ? &vmax : nullptr, s);
    m[i] = mi;
    v[i] = vi;
    if (v_max != nullptr) v_max[i] = vmax;
  });
}

// step_out = step + 1, after the update kernel has read step (same stream, so ordered).
__device__ void adam_step(int64_t* step_out, const int64_t* step) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *step_out = *step + 1;
}

// Every entry's step + 1, after gg_adam_multi has read them (one thread per entry).
__device__ void adam_step_multi(const GGOptTable& tab) {
  const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < tab.count) *(int64_t*)tab.t[k].step += 1;
}

}  // namespace gg_opt

GG_DEFINE_KERNELS(GG_OPTIMIZER_KERNELS)
