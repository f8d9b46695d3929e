// The optimizer family on CUDA (families/optimizer.def; the rules:
// autodiff-engine/src/ops/optimizer.cpp), in one file: the kernels' rows, their device code and
// their launchers. nvcc and NVRTC read the rows and the device part; the C++ compiler reads the
// rows and the host part (GG_CUDA_HOST; docs/architecture.md, "One CUDA file per family"). The
// rows' columns: kernel_interface.h; GGIter (operand 0 the dense parameter, 1 the strided
// gradient), GGOptTable (the multi-tensor launches): params.h. In the rows, lr is a 0-d tensor of
// dtype lr_dtype; step the 0-d step count of dtype step_dtype (float32, PyTorch's; float64 or int64).
//
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
//
// The launchers of the optimizer updates: SGDUpdate, SGDMomentumUpdate, AdamUpdate, AdamAMSGradUpdate. Kernels read the inputs and write the
// outputs (the same buffers when the schema updates in place); lr, momentum, beta1 and step stay
// on the device.
//
// Batches (KernelEntry::batch): the executor hands over a plan's consecutive updates of one op,
// and they go to multi-tensor launches of up to GG_OPT_MAX_TENSORS parameters each. The table
// of pointers, sizes and attributes is a kernel parameter, so a captured CUDA graph holds it by
// value (the plan's addresses are fixed while the graph lives), and the changing scalars (lr,
// momentum, beta1, step) are still read from their 0-d device tensors by every replay. Updates
// a table cannot describe (not in place, or a gradient whose strides do not collapse to two
// axes) run one by one; so does a batch of one (one launch either way).
#include "kernel_interface.h"
#include "params.h"

#define GG_OPTIMIZER_KERNELS(K)                                                                             \
  K(gg_sgd, Float, GG_NO_BOUNDS,                                                                            \
    (int64_t n, GGIter it, double wd, T* p_out, const T* p, const T* g, const void* lr, int lr_dtype),       \
    gg_opt::sgd<T>(n, it, wd, p_out, p, g, lr, lr_dtype))                                                   \
  K(gg_sgd_momentum, Float, GG_NO_BOUNDS,                                                                   \
    (int64_t n, GGIter it, double dampening, double wd, int nesterov, T* p_out, T* buf_out, const T* p,      \
     const T* buf, const T* g, const void* lr, int lr_dtype, const T* momentum),                            \
    gg_opt::sgd_momentum<T>(n, it, dampening, wd, nesterov, p_out, buf_out, p, buf, g, lr, lr_dtype, momentum)) \
  K(gg_adam, Float, GG_NO_BOUNDS,                                                                           \
    (int64_t n, GGIter it, double b2, double eps, double wd, int decoupled, T* p_out, T* m_out, T* v_out,    \
     T* v_max_out, const T* p, const T* m, const T* v, const T* v_max, const T* g, const void* lr, int lr_dtype, \
     const T* beta1, const void* step, int step_dtype),                                                     \
    gg_opt::adam<T>(n, it, b2, eps, wd, decoupled, p_out, m_out, v_out, v_max_out, p, m, v, v_max, g, lr,    \
                    lr_dtype, beta1, step, step_dtype))                                                     \
  K(gg_sgd_multi, Float, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::sgd_multi<T>(tab))                         \
  K(gg_adam_multi, Float, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::adam_multi<T>(tab))                       \
  K(gg_adam_step, None, GG_NO_BOUNDS, (void* step_out, const void* step, int step_dtype),                  \
    gg_opt::adam_step(step_out, step, step_dtype))                                                          \
  K(gg_adam_step_multi, None, GG_NO_BOUNDS, (GGOptTable tab), gg_opt::adam_step_multi(tab))

GG_DECLARE_KERNELS(GG_OPTIMIZER_KERNELS)

#ifndef GG_CUDA_HOST
// ---- device part -------------------------------------------------------------------------------
#include "common.cuh"
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

// The step count after this step (step + 1), as a count of dtype step_dtype holds it: float32
// adds 1 in float32 (PyTorch's step_t += 1), float64 in double, int64 exactly.
__device__ __forceinline__ double next_step(const void* step, int step_dtype) {
  switch (step_dtype) {
    case GG_F32: return (double)(*(const float*)step + 1.0f);
    case GG_F64: return *(const double*)step + 1.0;
    default: return (double)(*(const int64_t*)step + 1);
  }
}

__device__ __forceinline__ void store_next_step(void* out, const void* step, int step_dtype) {
  switch (step_dtype) {
    case GG_F32: *(float*)out = *(const float*)step + 1.0f; break;
    case GG_F64: *(double*)out = *(const double*)step + 1.0; break;
    default: *(int64_t*)out = *(const int64_t*)step + 1;
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
                     const void* lr, int lr_dtype, const T* beta1, const void* step, int step_dtype) {
  const rule::AdamScalars<T> s = rule::adam_scalars<T>(load_scalar(lr, lr_dtype), (double)*beta1, b2, eps, wd,
                                                       decoupled != 0, next_step(step, step_dtype));
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
                                                       e.b, e.c, (e.flag & 1) != 0,
                                                       next_step(e.step, e.flag >> GG_OPT_STEP_DTYPE_SHIFT));
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
__device__ void adam_step(void* step_out, const void* step, int step_dtype) {
  if (blockIdx.x == 0 && threadIdx.x == 0) store_next_step(step_out, step, step_dtype);
}

// Every entry's step + 1, after gg_adam_multi has read them (one thread per entry).
__device__ void adam_step_multi(const GGOptTable& tab) {
  const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < tab.count) store_next_step(tab.t[k].step, tab.t[k].step, tab.t[k].flag >> GG_OPT_STEP_DTYPE_SHIFT);
}

}  // namespace gg_opt

GG_DEFINE_KERNELS(GG_OPTIMIZER_KERNELS)
#endif  // !GG_CUDA_HOST

#ifdef GG_CUDA_HOST
// ---- host part: the launchers ------------------------------------------------------------------
#include "cuda/launch.h"
#include "glassgrad/autodiff/families/optimizer.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
GG_KERNEL_NAMES(GG_OPTIMIZER_KERNELS)

namespace {

// Output `o`, or input `i` when the schema lists fewer outputs (state updated in place only).
// Output o, or input i when the plan gave the output the input's buffer.
template <typename T>
T* out_or_in(const KernelContext& c, size_t o, size_t i) {
  return static_cast<T*>((c.outputs.size() > o ? c.outputs[o] : c.inputs[i]).data_ptr());
}

GGIter grad_iter(const KernelContext& c, const LaunchSite& site) {
  const Tensor& p = c.inputs[0];
  return make_iter(p.shape(), {contiguous_strides(p.shape()), c.inputs[1].strides()}, site);
}

void sgd(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  const OpLaunch L(c, "SGDUpdate", n);
  dispatch_float(p.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_sgd<T>>(n, grad_iter(c, L.site), OptimizerAttrs::from(c.attrs).weight_decay, ptr<T>(p),
                              ptr<const T>(c.inputs[0]), ptr<const T>(c.inputs[1]), c.inputs[2].data_ptr(),
                              dtype_code(c.inputs[2].dtype()));
  });
}

void sgd_momentum(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
  const OpLaunch L(c, "SGDMomentumUpdate", n);
  const int nesterov = a.nesterov ? 1 : 0;
  dispatch_float(p.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_sgd_momentum<T>>(n, grad_iter(c, L.site), a.dampening, a.weight_decay, nesterov, ptr<T>(p),
                                       out_or_in<T>(c, 1, 3), ptr<const T>(c.inputs[0]), ptr<const T>(c.inputs[3]),
                                       ptr<const T>(c.inputs[1]), c.inputs[2].data_ptr(),
                                       dtype_code(c.inputs[2].dtype()), ptr<const T>(c.inputs[4]));
  });
}

template <bool AMSGRAD>
void adam(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{AMSGRAD ? "AdamAMSGradUpdate" : "AdamUpdate", &c};
  const size_t step_in = AMSGRAD ? 7 : 6, step_out = AMSGRAD ? 4 : 3;
  const int step_dtype = dtype_code(c.inputs[step_in].dtype());
  dispatch_float(p.dtype(), [&](auto t) {
    using T = decltype(t);
    T* v_max_out = AMSGRAD ? out_or_in<T>(c, 3, 6) : nullptr;
    const T* v_max = AMSGRAD ? ptr<const T>(c.inputs[6]) : nullptr;
    if (n > 0) {
      launch<kernels::gg_adam<T>>(s, st, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, grad_iter(c, site), a.beta2,
                                  a.eps, a.weight_decay, a.decoupled_weight_decay ? 1 : 0, ptr<T>(p),
                                  out_or_in<T>(c, 1, 4), out_or_in<T>(c, 2, 5), v_max_out, ptr<const T>(c.inputs[0]),
                                  ptr<const T>(c.inputs[4]), ptr<const T>(c.inputs[5]), v_max,
                                  ptr<const T>(c.inputs[1]), c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()),
                                  ptr<const T>(c.inputs[3]), c.inputs[step_in].data_ptr(), step_dtype);
    }
  });
  launch<kernels::gg_adam_step>(s, st, Dim3{1}, Dim3{32}, site, out_or_in<void>(c, step_out, step_in),
                                static_cast<const void*>(c.inputs[step_in].data_ptr()), step_dtype);
}

bool table_entry(const KernelContext& c, GGOptTensor& e) {
  const Tensor& p = c.inputs[0];
  if (c.outputs[0].data_ptr() != p.data_ptr()) return false;
  // Collapse the gradient's axes (skipping size-1 axes) where stride[d] = stride[d+1] * size[d+1].
  std::vector<int64_t> size, stride;
  const Tensor& g = c.inputs[1];
  for (size_t d = 0; d < p.shape().size(); ++d) {
    const int64_t sz = p.shape()[d];
    if (sz == 1) continue;
    const int64_t st = g.strides()[d];
    if (!size.empty() && stride.back() == st * sz) {
      size.back() *= sz;
      stride.back() = st;
    } else {
      size.push_back(sz);
      stride.push_back(st);
    }
  }
  if (size.size() > 2) return false;
  e = GGOptTensor{};
  e.p = p.data_ptr();
  e.g = g.data_ptr();
  e.lr = c.inputs[2].data_ptr();
  e.n = p.numel();
  e.cols = size.empty() ? 1 : size.back();
  e.gstride1 = stride.empty() ? 1 : stride.back();
  e.gstride0 = size.size() == 2 ? stride[0] : 0;
  if (size.size() < 2) e.cols = e.n;
  return true;
}

// Launches `kernel` over the table entries, GG_OPT_MAX_TENSORS at a time; then, for Adam,
// gg_adam_step_multi over the same tables.
// The multi-tensor kernel K over the entries, GG_OPT_MAX_TENSORS a launch (Adam's: then the steps).
template <typename K>
void launch_tables(const KernelContext& c0, const std::vector<GGOptTensor>& entries, bool adam_steps) {
  DeviceState& s = state_of(c0);
  CUstream st = stream_of(s, &c0);
  LaunchSite site{adam_steps ? "AdamUpdate (multi-tensor)" : "SGDUpdate (multi-tensor)", &c0};
  for (size_t at = 0; at < entries.size(); at += GG_OPT_MAX_TENSORS) {
    GGOptTable tab{};
    int64_t blocks = 0;
    for (size_t k = at; k < entries.size() && k < at + GG_OPT_MAX_TENSORS; ++k) {
      GGOptTensor e = entries[k];
      e.first_block = static_cast<int32_t>(blocks);
      blocks += (e.n + GG_OPT_CHUNK - 1) / GG_OPT_CHUNK;
      tab.t[tab.count++] = e;
    }
    if (blocks > INT32_MAX) throw UnsupportedError("optimizer update: more than 2^31 blocks of parameters in one launch");
    tab.blocks = static_cast<int32_t>(blocks);
    launch<K>(s, st, Dim3{static_cast<unsigned>(blocks)}, Dim3{256}, site, tab);
    if (adam_steps) launch<kernels::gg_adam_step_multi>(s, st, Dim3{1}, Dim3{GG_OPT_MAX_TENSORS}, site, tab);
  }
}

// The updates of a batch that one table entry each can describe (`fill` completes the entry
// from the step's state and attributes), and those that run alone. A table of one runs alone
// too: one launch either way, and the per-parameter kernel takes any strides.
template <typename Fill>
void split_batch(const std::vector<const KernelContext*>& cs, Fill fill, std::vector<GGOptTensor>& entries,
                 std::vector<const KernelContext*>& alone) {
  std::vector<const KernelContext*> tabled;
  for (const KernelContext* c : cs) {
    GGOptTensor e;
    if (c->outputs[0].numel() > 0 && table_entry(*c, e) && fill(*c, e)) {
      entries.push_back(e);
      tabled.push_back(c);
    } else {
      alone.push_back(c);
    }
  }
  if (entries.size() == 1) {
    alone.push_back(tabled[0]);
    entries.clear();
  }
}

// SGDUpdate (inputs p, g, lr) or SGDMomentumUpdate (p, g, lr, buf, momentum) batch.
void sgd_batch(const std::vector<const KernelContext*>& cs) {
  std::vector<GGOptTensor> entries;
  std::vector<const KernelContext*> alone;
  split_batch(cs, [](const KernelContext& c, GGOptTensor& e) {
    const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
    e.a = a.weight_decay;
    if (c.inputs.size() > 3) {
      if (out_or_in<void>(c, 1, 3) != c.inputs[3].data_ptr()) return false;
      e.state0 = c.inputs[3].data_ptr();
      e.hyper = c.inputs[4].data_ptr();
      e.b = a.dampening;
      e.flag = a.nesterov ? 1 : 0;
    }
    return true;
  }, entries, alone);
  for (const KernelContext* c : alone) (c->inputs.size() > 3 ? sgd_momentum : sgd)(*c);
  if (!entries.empty()) {
    dispatch_float(cs[0]->outputs[0].dtype(), [&](auto t) {
      launch_tables<kernels::gg_sgd_multi<decltype(t)>>(*cs[0], entries, false);
    });
  }
}

// AdamUpdate / AdamAMSGradUpdate batch. (An empty parameter runs alone: its step still counts.)
template <bool AMSGRAD>
void adam_batch(const std::vector<const KernelContext*>& cs) {
  std::vector<GGOptTensor> entries;
  std::vector<const KernelContext*> alone;
  split_batch(cs, [](const KernelContext& c, GGOptTensor& e) {
    const size_t step_in = AMSGRAD ? 7 : 6, step_out = AMSGRAD ? 4 : 3;
    const bool in_place = out_or_in<void>(c, 1, 4) == c.inputs[4].data_ptr() &&
                          out_or_in<void>(c, 2, 5) == c.inputs[5].data_ptr() &&
                          (!AMSGRAD || out_or_in<void>(c, 3, 6) == c.inputs[6].data_ptr()) &&
                          out_or_in<void>(c, step_out, step_in) == c.inputs[step_in].data_ptr();
    if (!in_place) return false;
    e.state0 = c.inputs[4].data_ptr();
    e.state1 = c.inputs[5].data_ptr();
    e.state2 = AMSGRAD ? c.inputs[6].data_ptr() : nullptr;
    e.hyper = c.inputs[3].data_ptr();
    e.step = c.inputs[step_in].data_ptr();
    const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
    e.a = a.beta2;
    e.b = a.eps;
    e.c = a.weight_decay;
    e.flag = (a.decoupled_weight_decay ? 1 : 0) | (dtype_code(c.inputs[step_in].dtype()) << GG_OPT_STEP_DTYPE_SHIFT);
    return true;
  }, entries, alone);
  for (const KernelContext* c : alone) adam<AMSGRAD>(*c);
  if (!entries.empty()) {
    dispatch_float(cs[0]->outputs[0].dtype(), [&](auto t) {
      launch_tables<kernels::gg_adam_multi<decltype(t)>>(*cs[0], entries, true);
    });
  }
}

// The row symbols of families/optimizer.def: each a kernel and its multi-tensor batch function.
constexpr KernelEntry sgd_update{sgd, nullptr, sgd_batch};
constexpr KernelEntry sgd_momentum_update{sgd_momentum, nullptr, sgd_batch};
constexpr KernelEntry adam_update{adam<false>, nullptr, adam_batch<false>};
constexpr KernelEntry adam_amsgrad_update{adam<true>, nullptr, adam_batch<true>};

}  // namespace

void add_optimizer_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/optimizer.def"
}

}  // namespace cuda
}  // namespace glassgrad
#endif  // GG_CUDA_HOST
