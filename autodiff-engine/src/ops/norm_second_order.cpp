// Second-order gradients of batch normalization: the gradient rules of BatchNorm2DBackward and
// BatchNorm2DInferenceBackward (norm.cpp), emitted as elementwise ops and per-channel sums, so a
// gradient penalty (autograd.grad(create_graph=True), then backward) runs through BatchNorm and
// InstanceNorm as in PyTorch.
//
// Per channel, over its M values, with istd = 1/sqrt(var + eps), xc = x - mean, xhat = xc * istd,
// g = grad_y, and the gradients reaching the backward op's outputs u (of dx), a (of dgamma) and
// b (of dbeta), sums A = sum(g), B = sum(g * xhat), U = sum(u), UX = sum(u * xhat), UG = sum(u * g):
//
//   BatchNorm2DBackward, dx = gamma*istd*(g - A/M - xhat*B/M) + grad_mean/M + 2*grad_var*xc/M,
//   mean and var its inputs (their gradients reach BatchNorm2DTrain's mean and var outputs, whose
//   rule carries them on to x):
//     d/dg     = gamma*istd*(u - U/M - xhat*UX/M) + a*xhat + b
//     d/dx     = -gamma*istd^2/M * (g*UX + u*B) + a*istd*g + 2*grad_var*u/M
//     d/dmean  = gamma*istd^2/M * (A*UX + B*U) - a*istd*A - 2*grad_var*U/M     (= -sum(d/dx))
//     d/dgamma = istd * (UG - A*U/M - B*UX/M)
//     d/dvar   = -istd^3/2 * (gamma*(UG - A*U/M) - 3*gamma*B*UX/M + a*B/istd)
//     d/dgrad_mean = U/M,  d/dgrad_var = 2*UX/(M*istd)
//   BatchNorm2DInferenceBackward, dx = g*gamma*istd, with c_m, c_v the gradients of its outputs
//   drunning_mean and drunning_var, k = gamma*istd and w = a - c_v*gamma*istd^2/2:
//     d/dg     = k*(u - c_m) + w*xhat + b
//     d/dx     = w*istd*g
//     d/drunning_mean = -w*istd*A                                             (= -sum(d/dx))
//     d/dgamma = istd*(UG - c_m*A) - c_v*istd^2*B/2
//     d/drunning_var  = -istd^3/2 * (gamma*UG + a*B/istd - c_m*gamma*A - 3/2*c_v*gamma*istd*B)
// Derived by differentiating the forward formulas of norm.cpp's header; checked against float64
// central differences and torch (python-bindings/tests/test_torch_norm_double_backward.py).
#include "norm_second_order.h"

#include <vector>

namespace glassgrad {
namespace ops {

namespace {

// Per-channel arithmetic of one gradient rule: tensors of x's shape or [1, C, 1, ...] (a
// channel vector shaped to broadcast against x); kNoValue is a zero term, skipped. Both backward
// ops take (grad_y, x, gamma, mean, var) first: the values every formula starts from are made once.
struct ChannelMath {
  GradContext& c;
  Shape x_shape;
  std::vector<int64_t> dims;  // every axis but the channels'
  double m = 1;               // values per channel
  ValueId g = kNoValue, x = kNoValue, gamma = kNoValue, istd = kNoValue, xc = kNoValue, xhat = kNoValue;
  ValueId gamma_istd = kNoValue;

  explicit ChannelMath(GradContext& ctx) : c(ctx), x_shape(ctx.shape(ctx.input(1))) {
    for (size_t d = 0; d < x_shape.size(); ++d) {
      if (d == 1) continue;
      dims.push_back(static_cast<int64_t>(d));
      m *= static_cast<double>(x_shape[d]);
    }
    g = c.input(0);
    x = c.input(1);
    gamma = spread(c.input(2));
    const double eps = NormAttrs::from(c.attrs()).eps;
    istd = c.emit("Rsqrt", {c.emit("AddScalar", {spread(c.input(4))}, Attrs{{"value", eps}})});
    xc = c.emit("Sub", {x, spread(c.input(3))});
    xhat = c.emit("Mul", {xc, istd});
    gamma_istd = c.emit("Mul", {gamma, istd});
  }
  // The gradient of output i as [1, C, 1, ...] (kNoValue: none).
  ValueId channel_grad(int i) {
    const ValueId v = c.grad_output(i);
    return v == kNoValue ? kNoValue : spread(v);
  }
  // A [C] vector as [1, C, 1, ...].
  ValueId spread(ValueId v) {
    Shape s(x_shape.size(), 1);
    s[1] = x_shape[1];
    return c.emit("Reshape", {v}, Attrs{{"shape", s}});
  }
  // A [1, C, 1, ...] value back as the [C] vector it is a gradient of.
  ValueId flat(ValueId v) { return c.emit("Reshape", {v}, Attrs{{"shape", Shape{x_shape[1]}}}); }
  ValueId sum(ValueId v) { return c.emit("Sum", {v}, Attrs{{"dims", dims}, {"keepdim", true}}); }
  ValueId mul(ValueId a, ValueId b) {
    if (a == kNoValue || b == kNoValue) return kNoValue;
    return c.emit("Mul", {a, b});
  }
  ValueId mul(ValueId a, ValueId b, ValueId d) { return mul(mul(a, b), d); }
  ValueId scaled(ValueId a, double k) {
    if (a == kNoValue) return kNoValue;
    return c.emit("MulScalar", {a}, Attrs{{"value", k}});
  }
  ValueId add(ValueId a, ValueId b) {
    if (a == kNoValue) return b;
    if (b == kNoValue) return a;
    return c.emit("Add", {a, b});
  }
  ValueId sub(ValueId a, ValueId b) {
    if (b == kNoValue) return a;
    if (a == kNoValue) return c.emit("Neg", {b});
    return c.emit("Sub", {a, b});
  }
  // Sets input i's gradient from a value of x's shape (or [1, C, 1, ...] for a channel vector,
  // then flattened to [C]); a missing term is zeros.
  void set(int i, ValueId v, bool channel) {
    if (!c.needs_grad(i)) return;
    if (v == kNoValue) {
      v = zeros_like(c, c.input(i));
    } else if (channel) {
      v = flat(v);
    } else if (c.shape(v) != c.shape(c.input(i))) {
      v = c.emit("Expand", {v}, Attrs{{"shape", c.shape(c.input(i))}});
    }
    c.set_grad(i, v);
  }
};

}  // namespace

void batch_norm_backward_gradient(GradContext& c) {
  const ValueId u = c.grad_output(0);
  const ValueId ga = c.grad_output(1), gb = c.grad_output(2);
  if (u == kNoValue && ga == kNoValue && gb == kNoValue) return;
  const bool stat_grads = c.num_inputs() > 5;
  ChannelMath k(c);
  const double m = k.m;
  const ValueId g = k.g, gamma = k.gamma, istd = k.istd, xc = k.xc, xhat = k.xhat, gamma_istd = k.gamma_istd;
  const ValueId a = k.channel_grad(1), b = k.channel_grad(2);
  const ValueId gv = stat_grads ? k.spread(c.input(6)) : kNoValue;
  const ValueId A = k.sum(g), B = k.sum(c.emit("Mul", {g, xhat}));
  const ValueId U = u == kNoValue ? kNoValue : k.sum(u);
  const ValueId UX = u == kNoValue ? kNoValue : k.sum(k.mul(u, xhat));
  const ValueId UG = u == kNoValue ? kNoValue : k.sum(k.mul(u, g));
  if (c.needs_grad(0)) {  // gamma*istd*(u - U/M - xhat*UX/M) + a*xhat + b
    ValueId d = kNoValue;
    if (u != kNoValue) d = k.mul(gamma_istd, k.sub(k.sub(u, k.scaled(U, 1 / m)), k.scaled(k.mul(xhat, UX), 1 / m)));
    k.set(0, k.add(k.add(d, k.mul(a, xhat)), b), false);
  }
  if (c.needs_grad(1)) {  // -gamma*istd^2/M*(g*UX + u*B) + a*istd*g + 2*grad_var*u/M
    const ValueId inner = k.add(k.mul(g, UX), k.mul(u, B));
    ValueId d = k.scaled(k.mul(gamma_istd, istd, inner), -1 / m);
    d = k.add(d, k.mul(a, istd, g));
    d = k.add(d, k.scaled(k.mul(gv, u), 2 / m));
    k.set(1, d, false);
  }
  if (c.needs_grad(2)) {  // istd*(UG - A*U/M - B*UX/M)
    const ValueId d = k.mul(istd, k.sub(k.sub(UG, k.scaled(k.mul(A, U), 1 / m)), k.scaled(k.mul(B, UX), 1 / m)));
    k.set(2, d, true);
  }
  if (c.needs_grad(3)) {  // gamma*istd^2/M*(A*UX + B*U) - a*istd*A - 2*grad_var*U/M
    ValueId d = k.scaled(k.mul(gamma_istd, istd, k.add(k.mul(A, UX), k.mul(B, U))), 1 / m);
    d = k.sub(d, k.mul(a, istd, A));
    d = k.sub(d, k.scaled(k.mul(gv, U), 2 / m));
    k.set(3, d, true);
  }
  if (c.needs_grad(4)) {  // -istd^3/2*(gamma*(UG - A*U/M) - 3*gamma*B*UX/M + a*B/istd)
    ValueId inner = k.mul(gamma, k.sub(UG, k.scaled(k.mul(A, U), 1 / m)));
    inner = k.sub(inner, k.scaled(k.mul(gamma, B, UX), 3 / m));
    inner = k.add(inner, k.mul(a, k.sum(c.emit("Mul", {g, xc}))));
    const ValueId istd3 = k.mul(istd, istd, istd);
    k.set(4, k.scaled(k.mul(istd3, inner), -0.5), true);
  }
  if (stat_grads && c.needs_grad(5)) k.set(5, k.scaled(U, 1 / m), true);
  if (stat_grads && c.needs_grad(6)) {
    k.set(6, u == kNoValue ? kNoValue : k.scaled(k.sum(k.mul(u, xc)), 2 / m), true);
  }
}

void batch_norm_inference_backward_gradient(GradContext& c) {
  const ValueId u = c.grad_output(0);
  const ValueId ga = c.grad_output(1), gb = c.grad_output(2), gm = c.grad_output(3), gv = c.grad_output(4);
  if (u == kNoValue && ga == kNoValue && gb == kNoValue && gm == kNoValue && gv == kNoValue) return;
  ChannelMath k(c);
  const ValueId g = k.g, gamma = k.gamma, istd = k.istd, xc = k.xc, xhat = k.xhat, gamma_istd = k.gamma_istd;
  const ValueId a = k.channel_grad(1), b = k.channel_grad(2), cm = k.channel_grad(3), cv = k.channel_grad(4);
  // w = a - c_v*gamma*istd^2/2: what reaches xhat's sum per channel.
  const ValueId w = k.sub(a, k.scaled(k.mul(cv, gamma_istd, istd), 0.5));
  const bool needs_sums = c.needs_grad(2) || c.needs_grad(3) || c.needs_grad(4);
  const ValueId A = needs_sums ? k.sum(g) : kNoValue;
  const ValueId B = needs_sums ? k.sum(c.emit("Mul", {g, xhat})) : kNoValue;
  const ValueId UG = needs_sums && u != kNoValue ? k.sum(c.emit("Mul", {u, g})) : kNoValue;
  if (c.needs_grad(0)) {  // k*(u - c_m) + w*xhat + b
    const ValueId uc = u == kNoValue && cm == kNoValue ? kNoValue : k.sub(u, cm);
    k.set(0, k.add(k.add(k.mul(gamma_istd, uc), k.mul(w, xhat)), b), false);
  }
  if (c.needs_grad(1)) k.set(1, k.mul(w, istd, g), false);  // w*istd*g
  if (c.needs_grad(2)) {  // istd*(UG - c_m*A) - c_v*istd^2*B/2
    ValueId d = k.mul(istd, k.sub(UG, k.mul(cm, A)));
    d = k.sub(d, k.scaled(k.mul(cv, k.mul(istd, istd), B), 0.5));
    k.set(2, d, true);
  }
  if (c.needs_grad(3)) k.set(3, k.scaled(k.mul(w, istd, A), -1), true);  // -w*istd*A
  if (c.needs_grad(4)) {  // -istd^3/2*(gamma*UG + a*B/istd - c_m*gamma*A - 3/2*c_v*gamma*istd*B)
    ValueId inner = k.mul(gamma, UG);
    inner = k.add(inner, k.mul(a, k.sum(c.emit("Mul", {g, xc}))));
    inner = k.sub(inner, k.mul(cm, gamma, A));
    inner = k.sub(inner, k.scaled(k.mul(cv, gamma_istd, B), 1.5));
    const ValueId istd3 = k.mul(istd, istd, istd);
    k.set(4, k.scaled(k.mul(istd3, inner), -0.5), true);
  }
}

}  // namespace ops
}  // namespace glassgrad
