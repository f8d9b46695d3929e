// Launchers of the optimizer updates (kernels/cuda/optimizer.cu): SGDUpdate,
// SGDMomentumUpdate, AdamUpdate. Kernels read the inputs and write the outputs (the same
// buffers when the schema updates in place); lr and step stay on the device.
#include "cuda/launch.h"
#include "cuda/registry.h"

namespace glassgrad {
namespace cuda {

namespace {

// Output `o`, or input `i` when the schema lists fewer outputs (state updated in place only).
void* out_or_in(const KernelContext& c, size_t o, size_t i) {
  return (c.outputs.size() > o ? c.outputs[o] : c.inputs[i]).data_ptr();
}

// inputs p, g, lr; output p
void sgd(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"SGDUpdate", &c};
  launch(s, stream_of(s, &c), kname("gg_sgd", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n,
         c.attrs.f("weight_decay", 0.0), p.data_ptr(), c.inputs[0].data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()));
}

// inputs p, g, lr, buf; outputs p, buf
void sgd_momentum(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"SGDMomentumUpdate", &c};
  const int nesterov = c.attrs.b("nesterov", false) ? 1 : 0;
  launch(s, stream_of(s, &c), kname("gg_sgd_momentum", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256},
         site, n, c.attrs.f("momentum"), c.attrs.f("weight_decay", 0.0), nesterov, p.data_ptr(),
         out_or_in(c, 1, 3), c.inputs[0].data_ptr(), c.inputs[3].data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()));
}

// inputs p, g, lr, m, v, step; outputs p, m, v
void adam(const KernelContext& c) {
  const Tensor& p = c.outputs[0];
  const int64_t n = p.numel();
  if (n == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"AdamUpdate", &c};
  launch(s, stream_of(s, &c), kname("gg_adam", p.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n,
         c.attrs.f("beta1"), c.attrs.f("beta2"), c.attrs.f("eps"), c.attrs.f("weight_decay", 0.0), p.data_ptr(),
         out_or_in(c, 1, 3), out_or_in(c, 2, 4), c.inputs[0].data_ptr(), c.inputs[3].data_ptr(),
         c.inputs[4].data_ptr(), c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), dtype_code(c.inputs[2].dtype()),
         c.inputs[5].data_ptr(), dtype_code(c.inputs[5].dtype()));
}

}  // namespace

void add_optimizer_kernels(std::vector<KernelDef>& k) {
  k.push_back({"SGDUpdate", sgd, float_dtypes()});
  k.push_back({"SGDMomentumUpdate", sgd_momentum, float_dtypes()});
  k.push_back({"AdamUpdate", adam, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
