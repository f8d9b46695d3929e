// Launchers of batch normalization (kernels/cuda/norm.cu): BatchNorm2DTrain,
// BatchNorm2DBackward, BatchNorm2DInference, BatchNormUpdateStats. x is [N, C, *]: channel
// axis 1, I = product of the axes after it.
#include <algorithm>

#include "cuda/launch.h"
#include "cuda/registry.h"

namespace glassgrad {
namespace cuda {

namespace {

struct NCI {
  int64_t N, C, I;
};
NCI nci(const Tensor& x) {
  NCI d{x.shape()[0], x.rank() > 1 ? x.shape()[1] : 1, 1};
  for (int i = 2; i < x.rank(); ++i) d.I *= x.shape()[i];
  return d;
}

Dim3 channel_grid(const DeviceState& s, int64_t C) {
  return Dim3{static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(C, int64_t(s.info.multiprocessors) * 32)))};
}

// inputs x, gamma, beta; outputs y, mean, var (biased)
void bn_train(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  if (x.numel() == 0) return;
  const NCI d = nci(x);
  const double eps = c.attrs.f("eps");
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"BatchNorm2DTrain", &c};
  const DType dt = x.dtype();
  launch(s, st, kname("gg_bn_stats", dt).c_str(), channel_grid(s, d.C), Dim3{pow2_block(d.N * d.I, 32, 512)}, site,
         d.N, d.C, d.I, x.data_ptr(), c.outputs[1].data_ptr(), c.outputs[2].data_ptr());
  const int64_t n = x.numel();
  launch(s, st, kname("gg_bn_normalize", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, d.C, d.I, eps,
         y.data_ptr(), x.data_ptr(), c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.outputs[1].data_ptr(),
         c.outputs[2].data_ptr());
}

// inputs x, gamma, beta, running_mean, running_var; output y
void bn_inference(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const int64_t n = x.numel();
  if (n == 0) return;
  const NCI d = nci(x);
  DeviceState& s = state_of(c);
  LaunchSite site{"BatchNorm2DInference", &c};
  launch(s, stream_of(s, &c), kname("gg_bn_normalize", x.dtype()).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256},
         site, n, d.C, d.I, c.attrs.f("eps"), y.data_ptr(), x.data_ptr(), c.inputs[1].data_ptr(),
         c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr());
}

// inputs g, x, gamma, mean, var; outputs dx, dgamma, dbeta
void bn_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& x = c.inputs[1];
  if (x.numel() == 0) return;
  const NCI d = nci(x);
  const double eps = c.attrs.f("eps");
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"BatchNorm2DBackward", &c};
  const DType dt = x.dtype();
  const Tensor& dx = c.outputs[0];
  const Tensor& dgamma = c.outputs[1];
  const Tensor& dbeta = c.outputs[2];
  launch(s, st, kname("gg_bn_backward_sums", dt).c_str(), channel_grid(s, d.C), Dim3{pow2_block(d.N * d.I, 32, 512)},
         site, d.N, d.C, d.I, eps, g.data_ptr(), x.data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr(),
         dgamma.data_ptr(), dbeta.data_ptr());
  const int64_t n = x.numel();
  launch(s, st, kname("gg_bn_backward_dx", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, n, d.C, d.I,
         d.N * d.I, eps, dx.data_ptr(), g.data_ptr(), x.data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(),
         c.inputs[4].data_ptr(), dgamma.data_ptr(), dbeta.data_ptr());
}

// inputs rm, rv, mean, var; outputs rm, rv (in place)
void bn_update_stats(const KernelContext& c) {
  const Tensor& rm = c.inputs[0];
  const int64_t C = rm.numel();
  if (C == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"BatchNormUpdateStats", &c};
  const double momentum = c.attrs.f("momentum");
  const double count = c.attrs.f("count");
  launch(s, stream_of(s, &c), kname("gg_bn_update_stats", rm.dtype()).c_str(), Dim3{blocks_for(s, C, 256)}, Dim3{256},
         site, C, momentum, count, c.outputs[0].data_ptr(),
         (c.outputs.size() > 1 ? c.outputs[1] : c.inputs[1]).data_ptr(), c.inputs[0].data_ptr(),
         c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr());
}

}  // namespace

void add_norm_kernels(std::vector<KernelDef>& k) {
  k.push_back({"BatchNorm2DTrain", bn_train, float_dtypes()});
  k.push_back({"BatchNorm2DInference", bn_inference, float_dtypes()});
  k.push_back({"BatchNorm2DBackward", bn_backward, float_dtypes()});
  k.push_back({"BatchNormUpdateStats", bn_update_stats, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
