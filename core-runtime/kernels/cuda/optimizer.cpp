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
#include "registry.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kOptimizerFunctions({"gg_sgd", "gg_sgd_momentum", "gg_adam"}, float_dtypes());
const FunctionNames kAdamStepFunction({"gg_adam_step", "gg_adam_step_multi"});
const FunctionNames kMultiOptimizerFunctions({"gg_sgd_multi", "gg_adam_multi"}, float_dtypes());

namespace {

// Output `o`, or input `i` when the schema lists fewer outputs (state updated in place only).
void* out_or_in(const KernelContext& c, size_t o, size_t i) {
  return (c.outputs.size() > o ? c.outputs[o] : c.inputs[i]).data_ptr();
}

// The gradient (input 1) iterated in the parameter's row-major order, any strides.
GGIter grad_iter(const KernelContext& c, const LaunchSite& site) {
  const Tensor& p = c.inputs[0];
  return make_iter(p.shape(), {contiguous_strides(p.shape()), c.inputs[1].strides()}, site);
}

// inputs p, g, lr; output p
void sgd(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"SGDUpdate", &c};
  launch(s, stream_of(s, &c), kname("gg_sgd", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n,
         grad_iter(c, site), c.attrs.f("weight_decay", 0.0), p.data_ptr(), c.inputs[0].data_ptr(),
         c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()));
}

// inputs p, g, lr, buf, momentum; outputs p, buf
void sgd_momentum(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"SGDMomentumUpdate", &c};
  const int nesterov = c.attrs.b("nesterov", false) ? 1 : 0;
  launch(s, stream_of(s, &c), kname("gg_sgd_momentum", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256},
         site, n, grad_iter(c, site), c.attrs.f("dampening", 0.0), c.attrs.f("weight_decay", 0.0), nesterov,
         p.data_ptr(), out_or_in(c, 1, 3), c.inputs[0].data_ptr(), c.inputs[3].data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()), c.inputs[4].data_ptr());
}

// AdamUpdate: inputs p, g, lr, beta1, m, v, step; outputs p, m, v, step.
// AdamAMSGradUpdate: inputs p, g, lr, beta1, m, v, v_max, step; outputs p, m, v, v_max, step.
template <bool AMSGRAD>
void adam(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{AMSGRAD ? "AdamAMSGradUpdate" : "AdamUpdate", &c};
  const size_t step_in = AMSGRAD ? 7 : 6, step_out = AMSGRAD ? 4 : 3;
  void* v_max_out = AMSGRAD ? out_or_in(c, 3, 6) : nullptr;
  const void* v_max = AMSGRAD ? c.inputs[6].data_ptr() : nullptr;
  if (n > 0) {
    launch(s, st, kname("gg_adam", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n,
           grad_iter(c, site), c.attrs.f("beta2", 0.999), c.attrs.f("eps", 1e-8), c.attrs.f("weight_decay", 0.0),
           c.attrs.b("decoupled_weight_decay", false) ? 1 : 0, p.data_ptr(), out_or_in(c, 1, 4),
           out_or_in(c, 2, 5), v_max_out, c.inputs[0].data_ptr(), c.inputs[4].data_ptr(), c.inputs[5].data_ptr(),
           v_max, c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()),
           c.inputs[3].data_ptr(), c.inputs[step_in].data_ptr());
  }
  launch(s, st, "gg_adam_step", Dim3{1}, Dim3{32}, site, out_or_in(c, step_out, step_in),
         c.inputs[step_in].data_ptr());
}

// The table entry of one update, or false when it runs alone: outputs not in place, or a
// gradient whose strides (over the parameter's row-major order) do not collapse to two axes.
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
void launch_tables(const KernelContext& c0, const std::vector<GGOptTensor>& entries, const char* kernel,
                   bool adam_steps) {
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
    launch(s, st, kernel, Dim3{static_cast<unsigned>(blocks)}, Dim3{256}, site, tab);
    if (adam_steps) launch(s, st, "gg_adam_step_multi", Dim3{1}, Dim3{GG_OPT_MAX_TENSORS}, site, tab);
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
    e.a = c.attrs.f("weight_decay", 0.0);
    if (c.inputs.size() > 3) {
      if (out_or_in(c, 1, 3) != c.inputs[3].data_ptr()) return false;
      e.state0 = c.inputs[3].data_ptr();
      e.hyper = c.inputs[4].data_ptr();
      e.b = c.attrs.f("dampening", 0.0);
      e.flag = c.attrs.b("nesterov", false) ? 1 : 0;
    }
    return true;
  }, entries, alone);
  for (const KernelContext* c : alone) (c->inputs.size() > 3 ? sgd_momentum : sgd)(*c);
  if (!entries.empty()) {
    launch_tables(*cs[0], entries, kname("gg_sgd_multi", cs[0]->outputs[0].dtype()).c_str(), false);
  }
}

// AdamUpdate / AdamAMSGradUpdate batch. (An empty parameter runs alone: its step still counts.)
template <bool AMSGRAD>
void adam_batch(const std::vector<const KernelContext*>& cs) {
  std::vector<GGOptTensor> entries;
  std::vector<const KernelContext*> alone;
  split_batch(cs, [](const KernelContext& c, GGOptTensor& e) {
    const size_t step_in = AMSGRAD ? 7 : 6, step_out = AMSGRAD ? 4 : 3;
    const bool in_place = out_or_in(c, 1, 4) == c.inputs[4].data_ptr() &&
                          out_or_in(c, 2, 5) == c.inputs[5].data_ptr() &&
                          (!AMSGRAD || out_or_in(c, 3, 6) == c.inputs[6].data_ptr()) &&
                          out_or_in(c, step_out, step_in) == c.inputs[step_in].data_ptr();
    if (!in_place) return false;
    e.state0 = c.inputs[4].data_ptr();
    e.state1 = c.inputs[5].data_ptr();
    e.state2 = AMSGRAD ? c.inputs[6].data_ptr() : nullptr;
    e.hyper = c.inputs[3].data_ptr();
    e.step = c.inputs[step_in].data_ptr();
    e.a = c.attrs.f("beta2", 0.999);
    e.b = c.attrs.f("eps", 1e-8);
    e.c = c.attrs.f("weight_decay", 0.0);
    e.flag = c.attrs.b("decoupled_weight_decay", false) ? 1 : 0;
    return true;
  }, entries, alone);
  for (const KernelContext* c : alone) adam<AMSGRAD>(*c);
  if (!entries.empty()) {
    launch_tables(*cs[0], entries, kname("gg_adam_multi", cs[0]->outputs[0].dtype()).c_str(), true);
  }
}

}  // namespace

void add_optimizer_kernels(std::vector<KernelDef>& k) {
  k.push_back({"SGDUpdate", sgd, float_dtypes(), nullptr, sgd_batch});
  k.push_back({"SGDMomentumUpdate", sgd_momentum, float_dtypes(), nullptr, sgd_batch});
  k.push_back({"AdamUpdate", adam<false>, float_dtypes(), nullptr, adam_batch<false>});
  k.push_back({"AdamAMSGradUpdate", adam<true>, float_dtypes(), nullptr, adam_batch<true>});
}

}  // namespace cuda
}  // namespace glassgrad
