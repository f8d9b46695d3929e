// Launchers of batch and group normalization (norm.cu, declared in norm.h) for the ops of
// families/norm.def: BatchNorm2DTrain, BatchNorm2DTrainUpdate (the same kernels, which then also
// write the running statistics and the counter), BatchNorm2DBackward, BatchNorm2DInference,
// BatchNorm2DInferenceBackward, BatchNormUpdateStats, GroupNorm, GroupNormBackward. x is [N, C, *]: channel axis 1, I =
// product of the axes after it (the family's geometry, families/norm.h). Per-channel
// coefficients (double) live in a small temporary device buffer.
#include "norm.h"

#include <algorithm>
#include <type_traits>

#include "cuda/launch.h"
#include "fast_div.h"
#include "glassgrad/autodiff/families/norm.h"
#include "glassgrad/autodiff/fusion.h"
#include "registry.h"

namespace glassgrad {
namespace cuda {

GG_KERNEL_NAMES(GG_NORM_KERNELS)

namespace {

using NCI = NormGeometry;

// Partitions of a channel's M = N*I values: >= kPartValues values each, and at most
// kMaxBlocks blocks over all channels (one partition per channel when C alone fills the GPU).
// A function of the shape only, so the summation order is the same on every GPU.
constexpr int64_t kPartValues = 1024, kMaxBlocks = 2048;

GGBatchNorm bn_params(const NCI& d) {
  GGBatchNorm p{};
  p.N = static_cast<int32_t>(d.n);
  p.C = static_cast<int32_t>(d.c);
  p.I = static_cast<int32_t>(d.i);
  const int64_t M = d.m();
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>((M + kPartValues - 1) / kPartValues,
                                                                 std::max<int64_t>(1, kMaxBlocks / std::max<int64_t>(1, d.c))));
  p.chunk = static_cast<int32_t>(std::max<int64_t>(1, (M + parts - 1) / parts));
  p.P = static_cast<int32_t>(std::max<int64_t>(1, (M + p.chunk - 1) / p.chunk));
  p.div_I = make_fast_div(std::max<int64_t>(1, d.i));
  p.div_C = make_fast_div(std::max<int64_t>(1, d.c));
  p.div_I4 = make_fast_div(std::max<int64_t>(1, d.i / 4));
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
  const int64_t M = d.m();
  return M <= (backward ? kBackwardChannelValues : kForwardChannelValues) && M * d.c <= kChannelTotal;
}
Dim3 channel_grid(const NCI& d) { return Dim3{static_cast<unsigned>(std::min<int64_t>(d.c, 65535))}; }

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
  const NCI d = NCI::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  const double eps = d.attrs.eps;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{op, &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, op);
  const GGBatchNorm p = bn_params(d);
  const int relu = relu_of(c.attrs);
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    const T* xp = ptr<const T>(x);
    const T* gamma = ptr<const T>(c.inputs[1]);
    const T* beta = ptr<const T>(c.inputs[2]);
    T* yp = ptr<T>(y);
    T* mean = ptr<T>(c.outputs[1]);
    T* var = ptr<T>(c.outputs[2]);
    if (channel_per_block(d, false)) {
      const bool vec = float4_channels(dt, d.i, {x.data_ptr(), y.data_ptr()});
      const Dim3 block{channel_block(d.m() / (vec ? 4 : 1))};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_bn_train_channel_vec<T>>(s, st, channel_grid(d), block, site, p, eps, u, relu, xp, gamma,
                                                      beta, yp, mean, var);
          return;
        }
      }
      launch<kernels::gg_bn_train_channel<T>>(s, st, channel_grid(d), block, site, p, eps, u, relu, xp, gamma, beta,
                                              yp, mean, var);
      return;
    }
    // Partitions: their statistics, then a block per (partition, channel) merges its channel's
    // and normalizes its partition.
    const Tensor part = coef_buffer(x, 3 * p.P, d.c);
    launch<kernels::gg_bn_partial_stats<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, xp,
                                            ptr<double>(part));
    launch<kernels::gg_bn_train_apply<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, eps, u, relu,
                                          xp, gamma, beta, yp, mean, var, ptr<const double>(part));
  });
}

void batch_norm_train(const KernelContext& c) { train(c, GGRunningUpdate{}); }

// inputs x, gamma, beta, running_mean, running_var, counter; outputs y, mean, var and, in place,
// running_mean, running_var, counter (attrs momentum, count, counter_add).
void batch_norm_train_update(const KernelContext& c) {
  const NormAttrs a = NormAttrs::from(c.attrs);
  const double count = static_cast<double>(a.count);
  GGRunningUpdate u{};
  u.rm = c.outputs[3].data_ptr();
  u.rv = c.outputs[4].data_ptr();
  u.counter = static_cast<int64_t*>(c.outputs[5].data_ptr());
  u.momentum = a.momentum;
  u.unbias = count / (count - 1.0);
  u.add = a.counter_add;
  train(c, u);
}

// inputs x, gamma, beta, running_mean, running_var; output y
void batch_norm_inference(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& y = c.outputs[0];
  const int64_t n = x.numel();
  if (n == 0) return;
  const NCI d = NCI::from(x.shape(), c.attrs);
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{"BatchNorm2DInference", &c};
  require_int32_sizes(c, "BatchNorm2DInference");
  const GGBatchNorm p = bn_params(d);
  const Tensor coef = coef_buffer(x, 2, d.c);
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    launch<kernels::gg_bn_inference_coef<T>>(s, st, Dim3{blocks_for(s, d.c, 256)}, Dim3{256}, site, d.c, d.attrs.eps,
                                             ptr<const T>(c.inputs[1]), ptr<const T>(c.inputs[2]),
                                             ptr<const T>(c.inputs[3]), ptr<const T>(c.inputs[4]), ptr<double>(coef));
    launch<kernels::gg_bn_affine<T>>(s, st, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p, static_cast<int>(n),
                                     relu_of(c.attrs), ptr<T>(y), ptr<const T>(x), ptr<const double>(coef));
  });
}

// mode 0 (BatchNorm2DBackward): inputs g, x, gamma, mean, var[, grad_mean[, grad_var]];
//   outputs dx, dgamma, dbeta
// mode 1 (BatchNorm2DInferenceBackward): inputs g, x, gamma, running_mean, running_var;
//   outputs dx, dgamma, dbeta, drunning_mean, drunning_var
template <int MODE>
void bn_backward(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& x = c.inputs[1];
  const NCI d = NCI::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  const double eps = d.attrs.eps;
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  LaunchSite site{MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward", &c};
  const DType dt = x.dtype();
  require_int32_sizes(c, MODE == 0 ? "BatchNorm2DBackward" : "BatchNorm2DInferenceBackward");
  const GGBatchNorm p = bn_params(d);
  dispatch_float(dt, [&](auto t) {
    using T = decltype(t);
    auto opt = [&](size_t i) -> const T* { return c.inputs.size() > i ? ptr<const T>(c.inputs[i]) : nullptr; };
    const T* gmean = MODE == 0 ? opt(5) : nullptr;
    const T* gvar = MODE == 0 ? opt(6) : nullptr;
    const T* gp = ptr<const T>(g);
    const T* xp = ptr<const T>(x);
    const T* gamma = ptr<const T>(c.inputs[2]);
    const T* center = ptr<const T>(c.inputs[3]);
    const T* var = ptr<const T>(c.inputs[4]);
    T* dx = ptr<T>(c.outputs[0]);
    T* dgamma = ptr<T>(c.outputs[1]);
    T* dbeta = ptr<T>(c.outputs[2]);
    if (MODE == 0 && channel_per_block(d, true)) {
      const bool vec = float4_channels(dt, d.i, {g.data_ptr(), x.data_ptr(), c.outputs[0].data_ptr()});
      const Dim3 block{channel_block(d.m() / (vec ? 4 : 1))};
      if constexpr (std::is_same<T, float>::value) {
        if (vec) {
          launch<kernels::gg_bn_backward_channel_vec<T>>(s, st, channel_grid(d), block, site, p, eps, gp, xp, gamma,
                                                         center, var, gmean, gvar, dx, dgamma, dbeta);
          return;
        }
      }
      launch<kernels::gg_bn_backward_channel<T>>(s, st, channel_grid(d), block, site, p, eps, gp, xp, gamma, center,
                                                 var, gmean, gvar, dx, dgamma, dbeta);
      return;
    }
    const Tensor part = coef_buffer(x, 2 * p.P, d.c);
    if (MODE == 0) {  // the sums of the partitions, then a block per (partition, channel) applies them
      launch<kernels::gg_bn_partial_sums<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, gp, xp,
                                             center, ptr<double>(part));
      launch<kernels::gg_bn_backward_apply<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, eps, gp,
                                               xp, gamma, center, var, gmean, gvar, dx, dgamma, dbeta,
                                               ptr<const double>(part));
      return;
    }
    const Tensor coef = coef_buffer(x, 3, d.c);
    T* drm = MODE == 1 ? ptr<T>(c.outputs[3]) : nullptr;
    T* drv = MODE == 1 ? ptr<T>(c.outputs[4]) : nullptr;
    const int mode = MODE;
    launch<kernels::gg_bn_partial_sums<T>>(s, st, partition_grid(p), Dim3{partition_block(p)}, site, p, gp, xp, center,
                                           ptr<double>(part));
    launch<kernels::gg_bn_backward_sums<T>>(s, st, Dim3{blocks_for(s, d.c * 32, 128)}, Dim3{128}, site, mode, p, eps,
                                            gamma, center, var, gmean, gvar, dgamma, dbeta, drm, drv, ptr<double>(coef),
                                            ptr<const double>(part));
    const int n = static_cast<int>(x.numel());
    if (n == 0) return;
    launch<kernels::gg_bn_backward_dx<T>>(s, st, Dim3{blocks_for(s, n, 256)}, Dim3{256}, site, p, n, dx, gp, xp,
                                          ptr<const double>(coef));
  });
}

const KernelFn batch_norm_backward = bn_backward<0>;
const KernelFn batch_norm_inference_backward = bn_backward<1>;

// inputs rm, rv, mean, var; outputs rm, rv (in place)
void batch_norm_update_stats(const KernelContext& c) {
  const Tensor& rm = c.inputs[0];
  const int64_t C = rm.numel();
  if (C == 0) return;
  const NormAttrs a = NormAttrs::from(c.attrs);
  const OpLaunch L(c, "BatchNormUpdateStats", C);
  dispatch_float(rm.dtype(), [&](auto t) {
    using T = decltype(t);
    L.run<kernels::gg_bn_update_stats<T>>(C, a.momentum, static_cast<double>(a.count), ptr<T>(c.outputs[0]),
                                          ptr<T>(c.outputs.size() > 1 ? c.outputs[1] : c.inputs[1]),
                                          ptr<const T>(c.inputs[0]), ptr<const T>(c.inputs[1]),
                                          ptr<const T>(c.inputs[2]), ptr<const T>(c.inputs[3]));
  });
}

GGGroupNorm gn_params(const NormGeometry& d) {
  GGGroupNorm p{};
  p.N = static_cast<int32_t>(d.n);
  p.C = static_cast<int32_t>(d.c);
  p.I = static_cast<int32_t>(d.i);
  p.G = static_cast<int32_t>(d.groups());
  p.cg = static_cast<int32_t>(d.group_channels());
  p.eps = d.attrs.eps;
  return p;
}

// A block of 256 threads per (sample, group), at most 65535 blocks (grid-stride beyond).
Dim3 group_grid(const NormGeometry& d) {
  return Dim3{static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(d.n * d.groups(), 65535)))};
}

// inputs x[, weight[, bias]]; outputs y, mean, rstd ([N, G])
void group_norm(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const NormGeometry d = NormGeometry::from(x.shape(), c.attrs);
  if (d.n * d.groups() == 0) return;
  require_int32_sizes(c, "GroupNorm");
  DeviceState& s = state_of(c);
  const LaunchSite site{"GroupNorm", &c};
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    auto opt = [&](size_t i) -> const T* { return c.inputs.size() > i ? ptr<const T>(c.inputs[i]) : nullptr; };
    launch<kernels::gg_gn_forward<T>>(s, stream_of(s, &c), group_grid(d), Dim3{256}, site, gn_params(d),
                                      ptr<const T>(x), opt(1), opt(2), ptr<T>(c.outputs[0]), ptr<T>(c.outputs[1]),
                                      ptr<T>(c.outputs[2]));
  });
}

// inputs g, x, mean, rstd[, weight]; outputs dx, dweight, dbias. The per-(sample, channel) sums
// live in a temporary device buffer [N, C, 2] (double).
void group_norm_backward(const KernelContext& c) {
  const Tensor& x = c.inputs[1];
  const NormGeometry d = NormGeometry::from(x.shape(), c.attrs);
  if (d.c == 0) return;
  require_int32_sizes(c, "GroupNormBackward");
  DeviceState& s = state_of(c);
  CUstream st = stream_of(s, &c);
  const LaunchSite site{"GroupNormBackward", &c};
  const GGGroupNorm p = gn_params(d);
  const Tensor part = Tensor::empty({std::max<int64_t>(1, 2 * d.n * d.c)}, DType::Float64, x.device(), "group norm sums");
  dispatch_float(x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (d.n > 0) {
      const T* w = c.inputs.size() > 4 ? ptr<const T>(c.inputs[4]) : nullptr;
      launch<kernels::gg_gn_backward<T>>(s, st, group_grid(d), Dim3{256}, site, p, ptr<const T>(c.inputs[0]),
                                         ptr<const T>(x), ptr<const T>(c.inputs[2]), ptr<const T>(c.inputs[3]), w,
                                         ptr<T>(c.outputs[0]), ptr<double>(part));
    }
    launch<kernels::gg_gn_param_grads<T>>(s, st, Dim3{blocks_for(s, d.c, 256)}, Dim3{256}, site, p,
                                          ptr<const double>(part), ptr<T>(c.outputs[1]), ptr<T>(c.outputs[2]));
  });
}

}  // namespace

// --8<-- [start:register]
void add_norm_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/norm.def"
}
// --8<-- [end:register]

}  // namespace cuda
}  // namespace glassgrad
