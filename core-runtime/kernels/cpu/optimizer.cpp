// CPU optimizer updates, float32 and float64, written in place (outputs are the parameter and
// state tensors themselves). Layouts: the parameter and its state buffers are dense (they are
// the in-place targets, which are always contiguous); the gradient may have any strides (a
// Linear weight's gradient arrives as a transposed view, and reading it directly saves a copy
// per parameter per step); lr, momentum, beta1 and step (float32, float64 or int64) are 0-d tensors. Element i of every
// buffer depends only on element i, so each update is one elementwise pass, split across
// threads. Arithmetic is in the parameter's dtype, in the order of PyTorch's single-tensor
// implementations (torch/optim/sgd.py, adam.py), written once for the CPU and CUDA kernels in
// kernels/optimizer_rules.h:
//
//   SGDUpdate:          d = g + wd*p;  p = p - lr*d
//   SGDMomentumUpdate:  d = g + wd*p;  buf = momentum*buf + (1-dampening)*d;
//                       d = nesterov ? d + momentum*buf : buf;  p = p - lr*d
//   AdamUpdate:         t = step + 1;  AdamW: p = p*(1 - lr*wd), d = g;  Adam: d = g + wd*p;
//                       m = b1*m + (1-b1)*d;  v = b2*v + (1-b2)*d*d;
//                       step_size = lr / (1 - b1^t);  bc2 = sqrt(1 - b2^t)   (in double)
//                       p = p - step_size * m / (sqrt(v)/bc2 + eps);  step = t
//   (= p - lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps).)
//   AdamAMSGradUpdate:  as Adam, with v_max = max(v_max, v) in the denominator instead of v.
//   Assign:             target = value (registered with the movement kernels' copy).
#include <algorithm>
#include <cmath>

#include "cpu/registration.h"
#include "glassgrad/autodiff/families/optimizer.h"
#include "glassgrad/runtime/kernel.h"
#include "glassgrad/runtime/parallel.h"
#include "optimizer_rules.h"
#include "loops.h"

namespace glassgrad {

namespace {

// Calls f(i, g_i) for every element, where i indexes the dense parameter (and its state
// buffers) and g_i is the gradient's element at the same position, whatever its strides.
template <typename T, typename F>
void for_each_element(const Tensor& param, const Tensor& grad, F&& f) {
  const T* p0 = param.data<T>();
  cpu::for_each_row<const T, const T>(
      param.shape(), {param.strides(), grad.strides()}, std::make_tuple(p0, grad.data<const T>()),
      [&](auto ptrs, int64_t n, const std::array<int64_t, 2>& st) {
        const int64_t base = std::get<0>(ptrs) - p0;
        const T* g = std::get<1>(ptrs);
        if (st[0] == 1 && st[1] == 1) {
          for (int64_t k = 0; k < n; ++k) f(base + k, g[k]);
        } else {
          for (int64_t k = 0; k < n; ++k) f(base + k * st[0], g[k * st[1]]);
        }
      });
}

template <typename T>
void sgd_update(const KernelContext& c) {
  T* p = c.outputs[0].data<T>();
  const auto s = optimizer_rule::sgd_scalars<T>(*c.inputs[2].data<T>(), T(0),
                                                OptimizerAttrs::from(c.attrs).weight_decay, 0.0, false);
  for_each_element<T>(c.outputs[0], c.inputs[1], [&](int64_t i, T g) { p[i] = optimizer_rule::sgd(p[i], g, s); });
}

template <typename T>
void sgd_momentum_update(const KernelContext& c) {
  T* p = c.outputs[0].data<T>();
  T* buf = c.outputs[1].data<T>();
  const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
  const auto s = optimizer_rule::sgd_scalars<T>(*c.inputs[2].data<T>(), *c.inputs[4].data<T>(), a.weight_decay,
                                                a.dampening, a.nesterov);
  for_each_element<T>(c.outputs[0], c.inputs[1],
                      [&](int64_t i, T g) { p[i] = optimizer_rule::sgd_momentum(p[i], g, buf[i], s); });
}

// Adam's step count after this step, step + 1, as the count's dtype holds it: a 0-d float32
// (PyTorch's; adding 1 rounds as its step_t += 1 does), float64 or int64 tensor.
double next_step(const Tensor& step) {
  switch (step.dtype()) {
    case DType::Float32: return static_cast<float>(*step.data<float>() + 1.0f);
    case DType::Float64: return *step.data<double>() + 1.0;
    default: return static_cast<double>(*step.data<int64_t>() + 1);
  }
}

void write_step(const Tensor& step, double t) {
  switch (step.dtype()) {
    case DType::Float32: *step.data<float>() = static_cast<float>(t); break;
    case DType::Float64: *step.data<double>() = t; break;
    default: *step.data<int64_t>() = static_cast<int64_t>(t);
  }
}

template <typename T, bool AMSGRAD>
void adam(const KernelContext& c) {
  T* p = c.outputs[0].data<T>();
  T* m = c.outputs[1].data<T>();
  T* v = c.outputs[2].data<T>();
  T* v_max = AMSGRAD ? c.outputs[3].data<T>() : nullptr;
  const Tensor& step = c.outputs[AMSGRAD ? 4 : 3];
  const double t = next_step(step);
  const OptimizerAttrs a = OptimizerAttrs::from(c.attrs);
  const auto s = optimizer_rule::adam_scalars<T>(static_cast<double>(*c.inputs[2].data<T>()),
                                                 static_cast<double>(*c.inputs[3].data<T>()), a.beta2, a.eps,
                                                 a.weight_decay, a.decoupled_weight_decay, t);
  for_each_element<T>(c.outputs[0], c.inputs[1], [&](int64_t i, T g) {
    p[i] = optimizer_rule::adam(p[i], g, m[i], v[i], AMSGRAD ? v_max + i : nullptr, s);
  });
  write_step(step, t);  // written after the pass: every element used the same t
}

template <typename T>
constexpr KernelFn adam_update = adam<T, false>;
template <typename T>
constexpr KernelFn adam_amsgrad_update = adam<T, true>;

}  // namespace

void register_cpu_optimizer_kernels(KernelRegistry& r) {
#define GG_OP GG_ADD_CPU_KERNEL
#include "glassgrad/autodiff/families/optimizer.def"
}

}  // namespace glassgrad
