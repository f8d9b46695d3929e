// Launchers of batch normalization (kernels/cuda/norm.cu): BatchNorm2DTrain,
// BatchNorm2DTrainUpdate (the same kernels, which then also write the running statistics and
// the counter), BatchNorm2DBackward, BatchNorm2DInference, BatchNorm2DInferenceBackward,
// BatchNormUpdateStats. x is [N, C, *]: channel axis 1, I = product of the axes after it.
// Per-channel coefficients (double) live in a small temporary device buffer.
#include <algorithm>

#include "../../kernels/cuda/fast_div.h"
#include "cuda/launch.h"
#include "cuda/registry.h"
#include "glassgrad/autodiff/fusion.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h).
const FunctionNames kNormFunctions({"gg_bn_partial_stats", "gg_bn_train_apply", "gg_bn_affine", "gg_bn_inference_coef",
                                    "gg_bn_partial_sums", "gg_bn_backward_apply", "gg_bn_backward_sums",
                                    "gg_bn_backward_dx", "gg_bn_update_stats", "gg_bn_train_channel",
                                    "gg_bn_backward_channel"},
                                   float_dtypes());
const FunctionNames kNormVectorFunctions({"gg_bn_train_channel_vec", "gg_bn_backward_channel_vec"}, {DType::Float32});

namespace {

struct NCI {
  int64_t N, C, I;
};
NCI nci(const Tensor& x) {
  NCI d{x.shape()[0], x.rank() > 1 ? x.shape()[1] : 1, 1};
  for (int i = 2; i < x.rank(); ++i) d.I *= x.shape()[i];
  return d;
}

// Partitions of a channel's M = N*I values: >= kPartValues values each, and at most
// kMaxBlocks blocks over all channels (one partition per channel when C alone fills the GPU).
// A function of the shape only, so the summation order is the same on every GPU.
constexpr int64_t kPartValues = 1024, kMaxBlocks = 2048;

GGBatchNorm bn_params(const NCI& d) {
  GGBatchNorm p{};
  p.N = static_cast<int32_t>(d.N);
  p.C = static_cast<int32_t>(d.C);
  p.I = static_cast<int32_t>(d.I);
  const int64_t M = d.N * d.I;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>((M + kPartValues - 1) / kPartValues,
                                                                 std::max<int64_t>(1, kMaxBlocks / std::max<int64_t>(1, d.C))));
  p.chunk = static_cast<int32_t>(std::max<int64_t>(1, (M + parts - 1) / parts));
  p.P = static_cast<int32_t>(std::max<int64_t>(1, (M + p.chunk - 1) / p.chunk));
  p.div_I = make_fast_div(std::max<int64_t>(1, d.I));
  p.div_C = make_fast_div(std::max<int64_t>(1, d.C));
  p.div_I4 = make_fast_div(std::max<int64_t>(1, d.I / 4));
  return p;
}

// Channels of at most kForwardChannelValues (forward) or kBackwardChannelValues (backward)
// values, kChannelTotal values in all, run a block per channel that does the whole op in one
// launch (train_channel, backward_channel) instead of the partition path's two (the partitions'
// sums, then a block per partition and channel that merges its channel's and applies them): in
// a small model's step the launches, not the arithmetic, were the time (SimpleCNN's second
// BatchNorm, 32 x 3872 values). Larger ones take the partitions, which spread a channel over
// many multiprocessors. The limits differ by direction as measured on a GPU machine on
// SimpleCNN's first BatchNorm (16 channels of 21632 values): forward 6.9 us as a block per
// channel, 3.1 + 5.0 us on partitions; backward 8.6 us as a block per channel, 3.2 + 3.4 us on
// partitions. A function of the shape only, as the partitions are, so the summation order is
// the same on every GPU.
constexpr int64_t kForwardChannelValues = 32768, kBackwardChannelValues = 8192, kChannelTotal = int64_t(1) << 19;
bool channel_per_block(const NCI& d, bool backward) {
  const int64_t M = d.N * d.I;
  return M <= (backward ? kBackwardChannelValues : kForwardChannelValues) && M * d.C <= kChannelTotal;
}
Dim3 channel_grid(const NCI& d) { return Dim3{static_cast<unsigned>(std::min<int64_t>(d.C, 65535))}; }

Dim3 partition_grid(const GGBatchNorm& p) { return Dim3{static_cast<unsigned>(p.P), cap_yz(p.C)}; }
unsigned partition_block(const GGBatchNorm& p) { return pow2_block(p.chunk, 32, 256); }

// attrs "activation" = "relu" (the fusion pass's batchnorm + relu): applied in the affine pass.
int relu_of(const Attrs& a) { return fused_relu(a) ? 1 : 0; }

Tensor coef_buffer(const Tensor& x, int64_t per_channel, int64_t C) {
  return Tensor::empty({std::max<int64_t>(1, per_channel * C)}, DType::Float64, x.device(), "batchnorm coefficients");
}

// inputs x, gamma, beta; outputs y, mean, var (biased); u: BatchNorm2DTrainUpdate's state
// writes (u.rm null for BatchNorm2DTrain).
void train(const KernelContext& c, const GGRunningUpdate& u) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const char* op = u.rm ? "BatchNorm2DTrainUpdate" : "BatchNorm2DTrain";
  if (!u.rm && c.inputs.size() > 3) {  // the residual form: fused on CPU plans only (fusion.h)
    throw UnsupportedError(ErrorMessage("BatchNorm2DTrain" + (c.meta.scope.empty() ? std::string() : " '" + c.meta.scope + "'") +
                                        ": the residual input (y = bn(x) + residual) has no CUDA kernel yet")
                               .fix("run BatchNorm2DTrain and Add as two ops on CUDA (the fusion pass does so)")
                               .str());
  }
  const NCI d = nci(x);
  if (d.C == 0) return;
  const double eps = c.attrs.f("eps", 1e-5);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{op, &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, op);
  const GGBatchNorm p = bn_params(d);
  if (channel_per_block(d, false)) {
    const bool vec = float4_channels(dt, d.I, {x.data_ptr(), y.data_ptr()});
    launch(s, st, kname(vec ? "gg_bn_train_channel_vec" : "gg_bn_train_channel", dt).c_str(), channel_grid(d),
           Dim3{channel_block(d.N * d.I / (vec ? 4 : 1))}, site, p, eps, u, relu_of(c.attrs), x.data_ptr(),
           c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), y.data_ptr(), c.outputs[1].data_ptr(),
           c.outputs[2].data_ptr());
    return;
  }
  // Partitions: their statistics, then a block per (partition, channel) merges its channel's
  // and normalizes its partition.
  const Tensor part = coef_buffer(x, 3 * p.P, d.C);
  launch(s, st, kname("gg_bn_partial_stats", dt).c_str(), partition_grid(p), Dim3{partition_block(p)}, site, p,
         x.data_ptr(), part.data_ptr());
  launch(s, st, kname("gg_bn_train_apply", dt).c_str(), partition_grid(p), Dim3{partition_block(p)}, site, p, eps, u,
         relu_of(c.attrs), x.data_ptr(), c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), y.data_ptr(),
         c.outputs[1].data_ptr(), c.outputs[2].data_ptr(), static_cast<const void*>(part.data_ptr()));
}

void bn_train(const KernelContext& c) { train(c, GGRunningUpdate{}); }

// inputs x, gamma, beta, running_mean, running_var, counter; outputs y, mean, var and, in place,
// running_mean, running_var, counter (attrs momentum, count, counter_add).
void bn_train_update(const KernelContext& c) {
  const double count = static_cast<double>(c.attrs.i("count"));
  GGRunningUpdate u{};
  u.rm = c.outputs[3].data_ptr();
  u.rv = c.outputs[4].data_ptr();
  u.counter = static_cast<int64_t*>(c.outputs[5].data_ptr());
  u.momentum = c.attrs.f("momentum", 0.1);
  u.unbias = count / (count - 1.0);
  u.add = c.attrs.i("counter_add");
  train(c, u);
}

// inputs x, gamma, beta, running_mean, running_var; output y
void bn_inference(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const int64_t n = x.numel();
  if (n == 0) return;
  const NCI d = nci(x);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"BatchNorm2DInference", &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, "BatchNorm2DInference");
  const GGBatchNorm p = bn_params(d);
  const Tensor coef = coef_buffer(x, 2, d.C);
  launch(s, st, kname("gg_bn_inference_coef", dt).c_str(), Dim3{blocks_for(s, d.C, 256)}, Dim3{256}, site, d.C,
         c.attrs.f("eps", 1e-5), c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(),
         c.inputs[4].data_ptr(), coef.data_ptr());
  launch(s, st, kname("gg_bn_affine", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p,
         static_cast<int>(n), relu_of(c.attrs), y.data_ptr(), x.data_ptr(), coef.data_ptr());
}

// mode 0 (BatchNorm2DBackward): inputs g, x, gamma, mean, var[, grad_mean[, grad_var]];
//   outputs dx, dgamma, dbeta
// mode 1 (BatchNorm2DInferenceBackward): inputs g, x, gamma, running_mean, running_var;
//   outputs dx, dgamma, dbeta, drunning_mean, drunning_var
template <int MODE>
void bn_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& x = c.inputs[1];
  const NCI d = nci(x);
  if (d.C == 0) return;
  const double eps = c.attrs.f("eps", 1e-5);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward", &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward");
  const GGBatchNorm p = bn_params(d);
  auto opt = [&](size_t i) -> void* { return c.inputs.size() > i ? c.inputs[i].data_ptr() : nullptr; };
  void* gmean = MODE == 0 ? opt(5) : nullptr;
  void* gvar = MODE == 0 ? opt(6) : nullptr;
  if (MODE == 0 && channel_per_block(d, true)) {
    const bool vec = float4_channels(dt, d.I, {g.data_ptr(), x.data_ptr(), c.outputs[0].data_ptr()});
    launch(s, st, kname(vec ? "gg_bn_backward_channel_vec" : "gg_bn_backward_channel", dt).c_str(), channel_grid(d),
           Dim3{channel_block(d.N * d.I / (vec ? 4 : 1))}, site, p, eps, g.data_ptr(), x.data_ptr(),
           c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr(), gmean, gvar,
           c.outputs[0].data_ptr(), c.outputs[1].data_ptr(), c.outputs[2].data_ptr());
    return;
  }
  const Tensor part = coef_buffer(x, 2 * p.P, d.C);
  if (MODE == 0) {  // the sums of the partitions, then a block per (partition, channel) applies them
    launch(s, st, kname("gg_bn_partial_sums", dt).c_str(), partition_grid(p), Dim3{partition_block(p)}, site, p,
           g.data_ptr(), x.data_ptr(), c.inputs[3].data_ptr(), part.data_ptr());
    launch(s, st, kname("gg_bn_backward_apply", dt).c_str(), partition_grid(p), Dim3{partition_block(p)}, site, p, eps,
           g.data_ptr(), x.data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr(), gmean,
           gvar, c.outputs[0].data_ptr(), c.outputs[1].data_ptr(), c.outputs[2].data_ptr(),
           static_cast<const void*>(part.data_ptr()));
    return;
  }
  const Tensor coef = coef_buffer(x, 3, d.C);
  void* drm = MODE == 1 ? c.outputs[3].data_ptr() : nullptr;
  void* drv = MODE == 1 ? c.outputs[4].data_ptr() : nullptr;
  const int mode = MODE;
  launch(s, st, kname("gg_bn_partial_sums", dt).c_str(), partition_grid(p), Dim3{partition_block(p)}, site, p,
         g.data_ptr(), x.data_ptr(), c.inputs[3].data_ptr(), part.data_ptr());
  launch(s, st, kname("gg_bn_backward_sums", dt).c_str(), Dim3{blocks_for(s, d.C * 32, 128)}, Dim3{128}, site, mode, p,
         eps, c.inputs[2].data_ptr(), c.inputs[3].data_ptr(), c.inputs[4].data_ptr(), gmean, gvar,
         c.outputs[1].data_ptr(), c.outputs[2].data_ptr(), drm, drv, coef.data_ptr(),
         static_cast<const void*>(part.data_ptr()));
  const int n = static_cast<int>(x.numel());
  if (n == 0) return;
  launch(s, st, kname("gg_bn_backward_dx", dt).c_str(), Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p, n,
         c.outputs[0].data_ptr(), g.data_ptr(), x.data_ptr(), coef.data_ptr());
}

// inputs rm, rv, mean, var; outputs rm, rv (in place)
void bn_update_stats(const KernelContext& c) {
  const Tensor& rm = c.inputs[0];
  const int64_t C = rm.numel();
  if (C == 0) return;
  DeviceState& s = state_of(c);
  LaunchSite site{"BatchNormUpdateStats", &c};
  const double momentum = c.attrs.f("momentum", 0.1);
  const double count = c.attrs.f("count");
  launch(s, stream_of(s, &c), kname("gg_bn_update_stats", rm.dtype()).c_str(), Dim3{blocks_for(s, C, 256)}, Dim3{256},
         site, C, momentum, count, c.outputs[0].data_ptr(),
         (c.outputs.size() > 1 ? c.outputs[1] : c.inputs[1]).data_ptr(), c.inputs[0].data_ptr(),
         c.inputs[1].data_ptr(), c.inputs[2].data_ptr(), c.inputs[3].data_ptr());
}

}  // namespace

void add_norm_kernels(std::vector<KernelDef>& k) {
  k.push_back({"BatchNorm2DTrain", bn_train, float_dtypes()});
  k.push_back({"BatchNorm2DTrainUpdate", bn_train_update, float_dtypes()});
  k.push_back({"BatchNorm2DInference", bn_inference, float_dtypes()});
  k.push_back({"BatchNorm2DBackward", bn_backward<0>, float_dtypes()});
  k.push_back({"BatchNorm2DInferenceBackward", bn_backward<1>, float_dtypes()});
  k.push_back({"BatchNormUpdateStats", bn_update_stats, float_dtypes()});
}

}  // namespace cuda
}  // namespace glassgrad
