// Launchers of the optimizer updates (kernels/cuda/optimizer.cu): SGDUpdate,
// SGDMomentumUpdate, AdamUpdate, AdamAMSGradUpdate. Kernels read the inputs and write the
// outputs (the same buffers when the schema updates in place); lr, momentum, beta1 and step stay
// on the device.
#include "cuda/launch.h"
#include "cuda/registry.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kOptimizerFunctions({"gg_sgd", "gg_sgd_momentum", "gg_adam"}, float_dtypes());
const FunctionNames kAdamStepFunction({"gg_adam_step"});

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

}  // namespace

void add_optimizer_kernels(std::vector<KernelDef>& k) {
  k.push_back({"SGDUpdate", sgd, float_dtypes()});
  k.push_back({"SGDMomentumUpdate", sgd_momentum, float_dtypes()});
  k.push_back({"AdamUpdate", adam<false>, float_dtypes()});
  k.push_back({"AdamAMSGradUpdate", adam<true>, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
