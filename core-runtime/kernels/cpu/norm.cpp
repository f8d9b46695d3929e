// CPU batch-norm and group-norm kernels, float32 and float64. Layout: dense (N, C, ...) x (and grad_y) of 2 to
// 5 axes, seen as [N, C, I] with I the product of the axes after C (H*W for NCHW, 1 for (N, C));
// dense [C] vectors. Channel c's M = N*I values are N contiguous runs of I elements, at
// x + (n*C + c)*I.
//
//   BatchNorm2DTrain:   mean = sum(x)/M;  var = sum((x - mean)^2)/M   (two passes: the second
//                       sums squared deviations, so there is no cancellation as in
//                       E[x^2] - E[x]^2, even for data with a large offset);
//                       y = x*scale + shift [+ residual], scale = gamma/sqrt(var + eps),
//                       shift = beta - mean*scale, rounded to T before the residual is added
//                       (as the unfused BatchNorm2DTrain -> Add would).
//   BatchNorm2DBackward: with invstd = 1/sqrt(var + eps), sg = sum(g), sgd = sum(g*(x - mean)):
//                       dbeta = sg, dgamma = invstd*sgd (= sum(g*xhat)),
//                       dx = gamma*invstd/M * (M*g - sg - xhat*invstd*sgd)
//                          = a*g + b*(x - mean) + k,  a = gamma*invstd,
//                            b = -gamma*invstd^3*sgd/M (+ 2*grad_var/M),
//                            k = -gamma*invstd*sg/M (+ grad_mean/M).
//   BatchNorm2DInference: y = x*scale + shift with the running statistics.
//   BatchNorm2DInferenceBackward: dx = a*g; dgamma = invstd*sgd; dbeta = sg (deviations from
//                       running_mean); drunning_mean = -a*sg; drunning_var = -gamma*invstd^3*sgd/2.
//   BatchNormUpdateStats: rm = (1-m)*rm + m*mean; rv = (1-m)*rv + m*var*count/(count-1), in place.
//   GroupNorm:          per sample n and group k of C/G channels, whose S = C/G * I values are
//                       contiguous at x + (n*C + k*C/G)*I: mean and var as BatchNorm2DTrain's (two
//                       passes); rstd = 1/sqrt(var + eps); y = (x - mean)*scale + b[c] per
//                       channel, scale = rstd*w[c] (mean and scale rounded to T: centred first,
//                       so a group of equal values gives exactly b[c]).
//   GroupNormBackward:  per (n, c): sg = sum(g), sgd = sum(g*(x - mean)); per group
//                       S1 = sum_c w[c]*sg, S2 = sum_c w[c]*sgd; dx = a*g + b*(x - mean) + k,
//                       a = rstd*w[c], b = -rstd^3*S2/S, k = -rstd*S1/S; dbias[c] = sum_n sg,
//                       dweight[c] = sum_n rstd*sgd (n in order, so independent of the threads).
//
// Per-channel sums are accumulated in double for both dtypes. Channels (groups for GroupNorm)
// are independent and split across threads with parallel_for (each thread owns whole channels,
// so results do not depend on the thread count). The loops over one run (the sums, the affine
// output and BatchNorm2DBackward's dx) are norm_loops.h's, compiled per instruction set.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/norm_loops.h"
#include "cpu/registration.h"
#include "glassgrad/autodiff/families/norm.h"
#include "glassgrad/autodiff/fusion.h"
#include "glassgrad/runtime/cpu_features.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"

namespace glassgrad {

namespace {

// x as [N, C, I] (I: the length of one (n, c) run, H*W for NCHW input) and the attributes:
// the family's geometry (glassgrad/autodiff/families/norm.h).
using Dims = NormGeometry;

// Channels per parallel chunk: about 32k elements each.
int64_t channel_grain(const Dims& d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.m())); }

// Calls f(run, i) for each run of channel c: run points at the channel's i-th H*W block.
template <typename F>
inline void for_each_run(const Dims& d, int64_t c, F&& f) {
  for (int64_t n = 0; n < d.n; ++n) f((n * d.c + c) * d.i);
}

// The loops of this CPU's instruction set (norm_loops.h; every copy gives the same bits).
template <typename T>
const cpu::NormLoops<T>& loops() {
  static const cpu::NormLoops<T>& l = []() -> const cpu::NormLoops<T>& {
    const CpuIsa isa = cpu_isa();
    if constexpr (std::is_same_v<T, float>) {
      return isa == CpuIsa::Avx512 ? cpu::norm_loops_avx512::loops_f32()
             : isa == CpuIsa::Avx2 ? cpu::norm_loops_avx2::loops_f32()
                                   : cpu::norm_loops_generic::loops_f32();
    } else {
      return isa == CpuIsa::Avx512 ? cpu::norm_loops_avx512::loops_f64()
             : isa == CpuIsa::Avx2 ? cpu::norm_loops_avx2::loops_f64()
                                   : cpu::norm_loops_generic::loops_f64();
    }
  }();
  return l;
}

// y = x*scale + shift over channel c (+ residual, when given; rounded to T first), then ReLU
// when relu (attrs "activation").
template <typename T>
void apply_affine(const T* x, T* y, const Dims& d, int64_t c, double scale, double shift, bool relu,
                  const T* residual = nullptr) {
  const T s = static_cast<T>(scale), b = static_cast<T>(shift);
  const auto affine = loops<T>().affine;
  for_each_run(d, c, [&](int64_t off) {
    affine(x + off, residual ? residual + off : nullptr, y + off, d.i, s, b, relu);
  });
}

// sum(g) and sum(g * (x - center)) over channel c.
template <typename T>
void grad_sums(const T* g, const T* x, const Dims& d, int64_t c, double center, double& sg, double& sgd) {
  sg = 0;
  sgd = 0;
  const auto sums = loops<T>().grad_sums;
  for_each_run(d, c, [&](int64_t off) { sums(g + off, x + off, d.i, center, &sg, &sgd); });
}

// BatchNorm2DTrain's arithmetic on inputs x, gamma, beta into outputs y, mean, var (+ residual
// when given: the fusion pass's residual form).
template <typename T>
void train_body(const KernelContext& c, const T* residual) {
  const Tensor& xt = c.inputs[0];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const double eps = d.attrs.eps;
  const T* x = xt.data<T>();
  const T* gamma = c.inputs[1].data<T>();
  const T* beta = c.inputs[2].data<T>();
  T* y = c.outputs[0].data<T>();
  T* mean_out = c.outputs[1].data<T>();
  T* var_out = c.outputs[2].data<T>();
  const double inv_m = d.m() > 0 ? 1.0 / static_cast<double>(d.m()) : 0.0;
  const bool relu = fused_relu(c.attrs);
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      // Pass 1: the mean. Pass 2: squared deviations from it (their plain sum, which should
      // be ~0, corrects the rounding of the mean: the "corrected two-pass" algorithm of
      // Chan, Golub and LeVeque, var = (sum d^2 - (sum d)^2 / M) / M).
      const cpu::NormLoops<T>& l = loops<T>();
      double sum = 0;
      for_each_run(d, ch, [&](int64_t off) { sum += l.sum(x + off, d.i); });
      const double mean = sum * inv_m;
      double dsum = 0, sq = 0;
      for_each_run(d, ch, [&](int64_t off) { l.deviation_sums(x + off, d.i, mean, &dsum, &sq); });
      const double var = std::max(0.0, (sq - dsum * dsum * inv_m) * inv_m);
      const double scale = static_cast<double>(gamma[ch]) / std::sqrt(var + eps);
      apply_affine(x, y, d, ch, scale, static_cast<double>(beta[ch]) - mean * scale, relu, residual);
      mean_out[ch] = static_cast<T>(mean);
      var_out[ch] = static_cast<T>(var);
    }
  });
}

template <typename T>
void batch_norm_backward(const KernelContext& c) {
  const Tensor& gt = c.inputs[0];
  const Tensor& xt = c.inputs[1];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const double eps = d.attrs.eps;
  const T* g = gt.data<T>();
  const T* x = xt.data<T>();
  const T* gamma = c.inputs[2].data<T>();
  const T* mean = c.inputs[3].data<T>();
  const T* var = c.inputs[4].data<T>();
  const T* gmean = c.inputs.size() > 5 ? c.inputs[5].data<T>() : nullptr;
  const T* gvar = c.inputs.size() > 6 ? c.inputs[6].data<T>() : nullptr;
  T* dx = c.outputs[0].data<T>();
  T* dgamma = c.outputs[1].data<T>();
  T* dbeta = c.outputs[2].data<T>();
  const double m = static_cast<double>(d.m());
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      const double mu = mean[ch];
      const double invstd = 1.0 / std::sqrt(static_cast<double>(var[ch]) + eps);
      double sg, sgd;
      grad_sums(g, x, d, ch, mu, sg, sgd);
      dbeta[ch] = static_cast<T>(sg);
      dgamma[ch] = static_cast<T>(invstd * sgd);
      if (d.m() == 0) continue;
      const double gam = gamma[ch];
      const double a = gam * invstd;
      double b = -gam * invstd * invstd * invstd * sgd / m;
      double k = -a * sg / m;
      if (gmean) k += static_cast<double>(gmean[ch]) / m;
      if (gvar) b += 2.0 * static_cast<double>(gvar[ch]) / m;
      // dx = a*g + b*(x - mu) + k = a*g + b*x + (k - b*mu)
      const T ta = static_cast<T>(a), tb = static_cast<T>(b), tk = static_cast<T>(k - b * mu);
      const auto combine = loops<T>().combine;
      for_each_run(d, ch, [&](int64_t off) { combine(g + off, x + off, dx + off, d.i, ta, tb, tk); });
    }
  });
}

template <typename T>
void batch_norm_inference(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const double eps = d.attrs.eps;
  const T* x = xt.data<T>();
  const T* gamma = c.inputs[1].data<T>();
  const T* beta = c.inputs[2].data<T>();
  const T* rm = c.inputs[3].data<T>();
  const T* rv = c.inputs[4].data<T>();
  T* y = c.outputs[0].data<T>();
  const bool relu = fused_relu(c.attrs);
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      const double scale = static_cast<double>(gamma[ch]) / std::sqrt(static_cast<double>(rv[ch]) + eps);
      apply_affine(x, y, d, ch, scale, static_cast<double>(beta[ch]) - static_cast<double>(rm[ch]) * scale, relu);
    }
  });
}

template <typename T>
void batch_norm_inference_backward(const KernelContext& c) {
  const Tensor& xt = c.inputs[1];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const double eps = d.attrs.eps;
  const T* g = c.inputs[0].data<T>();
  const T* x = xt.data<T>();
  const T* gamma = c.inputs[2].data<T>();
  const T* rm = c.inputs[3].data<T>();
  const T* rv = c.inputs[4].data<T>();
  T* dx = c.outputs[0].data<T>();
  T* dgamma = c.outputs[1].data<T>();
  T* dbeta = c.outputs[2].data<T>();
  T* drm = c.outputs[3].data<T>();
  T* drv = c.outputs[4].data<T>();
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      const double invstd = 1.0 / std::sqrt(static_cast<double>(rv[ch]) + eps);
      const double a = static_cast<double>(gamma[ch]) * invstd;
      double sg, sgd;
      grad_sums(g, x, d, ch, static_cast<double>(rm[ch]), sg, sgd);
      dbeta[ch] = static_cast<T>(sg);
      dgamma[ch] = static_cast<T>(invstd * sgd);
      drm[ch] = static_cast<T>(-a * sg);
      drv[ch] = static_cast<T>(-0.5 * a * invstd * invstd * sgd);
      const T ta = static_cast<T>(a);
      for_each_run(d, ch, [&](int64_t off) {
        for (int64_t i = 0; i < d.i; ++i) dx[off + i] = ta * g[off + i];
      });
    }
  });
}

// running_mean/var (written in place: each element is read before it is written) from the
// batch's mean and var, over n channels.
template <typename T>
void update_running(T* rm, T* rv, const T* mean, const T* var, int64_t n, const NormAttrs& attrs) {
  const double mom = attrs.momentum;
  const double count = static_cast<double>(attrs.count);
  const double unbias = count / (count - 1.0);
  for (int64_t i = 0; i < n; ++i) {
    rm[i] = static_cast<T>((1.0 - mom) * static_cast<double>(rm[i]) + mom * static_cast<double>(mean[i]));
    rv[i] = static_cast<T>((1.0 - mom) * static_cast<double>(rv[i]) + mom * static_cast<double>(var[i]) * unbias);
  }
}

template <typename T>
void batch_norm_train(const KernelContext& c) {
  train_body<T>(c, c.inputs.size() > 3 ? c.inputs[3].data<T>() : nullptr);
}

template <typename T>
void batch_norm_update_stats(const KernelContext& c) {
  // Outputs 0 and 1 are inputs 0 and 1 (in place).
  update_running(c.outputs[0].data<T>(), c.outputs[1].data<T>(), c.inputs[2].data<T>(), c.inputs[3].data<T>(),
                 c.outputs[0].numel(), NormAttrs::from(c.attrs));
}

// The fusion pass's BatchNorm2DTrain + BatchNormUpdateStats + counter increment: outputs 3, 4
// and 5 are inputs 3, 4 and 5 (in place). The update reads mean and var as stored (in T), as
// BatchNormUpdateStats reads them, so the numbers are the unfused plan's.
template <typename T>
void batch_norm_train_update(const KernelContext& c) {
  train_body<T>(c, nullptr);
  update_running(c.outputs[3].data<T>(), c.outputs[4].data<T>(), c.outputs[1].data<T>(), c.outputs[2].data<T>(),
                 c.outputs[3].numel(), NormAttrs::from(c.attrs));
  c.outputs[5].data<int64_t>()[0] += NormAttrs::from(c.attrs).counter_add;
}

// Groups per parallel chunk: about 32k elements each.
int64_t group_grain(const Dims& d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.group_size())); }

// inputs x[, weight[, bias]]; outputs y, mean, rstd ([N, G]).
template <typename T>
void group_norm(const KernelContext& c) {
  const Tensor& xt = c.inputs[0];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const int64_t groups = d.groups(), cg = d.group_channels(), len = d.group_size();
  const T* x = xt.data<T>();
  const T* w = c.inputs.size() > 1 ? c.inputs[1].data<T>() : nullptr;
  const T* b = c.inputs.size() > 2 ? c.inputs[2].data<T>() : nullptr;
  T* y = c.outputs[0].data<T>();
  T* mean_out = c.outputs[1].data<T>();
  T* rstd_out = c.outputs[2].data<T>();
  const double inv_len = 1.0 / static_cast<double>(len);  // inf for empty groups: their statistics are NaN
  parallel_for(d.n * groups, group_grain(d), [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {  // q = n * G + k
      const int64_t c0 = (q % groups) * cg;
      const T* xq = x + q * len;
      T* yq = y + q * len;
      const cpu::NormLoops<T>& l = loops<T>();
      const double mean = l.sum(xq, len) * inv_len;
      double dsum = 0, sq = 0;
      l.deviation_sums(xq, len, mean, &dsum, &sq);
      const double v = (sq - dsum * dsum * inv_len) * inv_len;
      const double rstd = 1.0 / std::sqrt((v < 0 ? 0.0 : v) + d.attrs.eps);  // NaN stays NaN (no values)
      const T m = static_cast<T>(mean);
      for (int64_t k = 0; k < cg; ++k) {
        const T s = static_cast<T>(rstd * (w ? static_cast<double>(w[c0 + k]) : 1.0));
        const T t = b ? b[c0 + k] : T(0);
        const T* xr = xq + k * d.i;
        T* yr = yq + k * d.i;
        for (int64_t i = 0; i < d.i; ++i) yr[i] = (xr[i] - m) * s + t;
      }
      mean_out[q] = static_cast<T>(mean);
      rstd_out[q] = static_cast<T>(rstd);
    }
  });
}

// inputs g, x, mean, rstd[, weight]; outputs dx, dweight, dbias.
template <typename T>
void group_norm_backward(const KernelContext& c) {
  const Tensor& xt = c.inputs[1];
  const Dims d = Dims::from(xt.shape(), c.attrs);
  const int64_t groups = d.groups(), cg = d.group_channels(), len = d.group_size();
  const T* g = c.inputs[0].data<T>();
  const T* x = xt.data<T>();
  const T* mean = c.inputs[2].data<T>();
  const T* rstd = c.inputs[3].data<T>();
  const T* w = c.inputs.size() > 4 ? c.inputs[4].data<T>() : nullptr;
  T* dx = c.outputs[0].data<T>();
  T* dweight = c.outputs[1].data<T>();
  T* dbias = c.outputs[2].data<T>();
  // Per (n, c): sum(g) and sum(g * xhat), summed over n for the parameters' gradients.
  std::vector<double> sg(static_cast<size_t>(d.n * d.c)), sgx(static_cast<size_t>(d.n * d.c));
  const double s_len = static_cast<double>(len);
  parallel_for(d.n * groups, group_grain(d), [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {  // q = n * G + k
      const int64_t c0 = (q % groups) * cg;
      const int64_t row = (q / groups) * d.c + c0;  // (n, c0) in the [N, C] sums
      const double mu = static_cast<double>(mean[q]), r = static_cast<double>(rstd[q]);
      double s1 = 0, s2 = 0;
      for (int64_t k = 0; k < cg; ++k) {
        const int64_t off = q * len + k * d.i;
        double a = 0, dd = 0;
        loops<T>().grad_sums(g + off, x + off, d.i, mu, &a, &dd);
        sg[static_cast<size_t>(row + k)] = a;
        sgx[static_cast<size_t>(row + k)] = dd == 0 ? 0.0 : dd * r;  // 0 for no values (rstd NaN)
        const double wc = w ? static_cast<double>(w[c0 + k]) : 1.0;
        s1 += wc * a;
        s2 += wc * dd;
      }
      if (len == 0) continue;
      const double bcoef = -r * r * r * s2 / s_len;
      const double kcoef = -r * s1 / s_len;
      const T tb = static_cast<T>(bcoef), tk = static_cast<T>(kcoef), m = mean[q];
      for (int64_t k = 0; k < cg; ++k) {
        const int64_t off = q * len + k * d.i;
        const T ta = static_cast<T>(r * (w ? static_cast<double>(w[c0 + k]) : 1.0));
        for (int64_t i = 0; i < d.i; ++i) dx[off + i] = ta * g[off + i] + tb * (x[off + i] - m) + tk;
      }
    }
  });
  for (int64_t ch = 0; ch < d.c; ++ch) {
    double b = 0, wsum = 0;
    for (int64_t n = 0; n < d.n; ++n) {
      b += sg[static_cast<size_t>(n * d.c + ch)];
      wsum += sgx[static_cast<size_t>(n * d.c + ch)];
    }
    dbias[ch] = static_cast<T>(b);
    dweight[ch] = static_cast<T>(wsum);
  }
}

}  // namespace

// --8<-- [start:register]
void register_cpu_norm_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/norm.def"
}
// --8<-- [end:register]

}  // namespace glassgrad
