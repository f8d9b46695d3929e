// Launchers of the optimizer updates (kernels/cuda/optimizer.cu): SGDUpdate,
// SGDMomentumUpdate, AdamUpdate, AdamAMSGradUpdate. Kernels read the inputs and write the
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
#include "cuda/launch.h"
#include "glassgrad/autodiff/families/optimizer.h"
#include "optimizer.h"
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
                                  ptr<const T>(c.inputs[3]), ptr<const int64_t>(c.inputs[step_in]));
    }
  });
  launch<kernels::gg_adam_step>(s, st, Dim3{1}, Dim3{32}, site, out_or_in<int64_t>(c, step_out, step_in),
                                ptr<const int64_t>(c.inputs[step_in]));
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
    e.flag = a.decoupled_weight_decay ? 1 : 0;
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
