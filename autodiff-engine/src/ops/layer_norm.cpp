// Layer normalization ops, the rows of families/layer_norm.def (glassgrad/autodiff/
// layer_norm_geometry.h has the shapes and the attributes; docs/gpt-step.md derives the gradient):
//
//   LayerNorm(x[, weight][, bias]){normalized_shape, eps, weight, bias} -> (y, mean, rstd)
//       per row r of x seen as [rows, cols]: mean_r, rstd_r = 1 / sqrt(var_r + eps) (biased
//       variance), y = (x - mean) * rstd * weight + bias.
//   LayerNormBackward(grad_y, x, mean, rstd[, weight][, grad_mean, grad_rstd])
//       {normalized_shape, weight, bias, stat_grads} -> (dx, dweight, dbias)
//       with xhat = (x - mean) * rstd and gw = grad_y * weight, per row:
//         dx = rstd * (gw - mean_c(gw) - xhat * mean_c(gw * xhat))
//              [+ grad_mean / cols - grad_rstd * rstd^3 * (x - mean) / cols]
//       and over the rows: dweight = sum_r grad_y * xhat, dbias = sum_r grad_y ([0] when the
//       parameter is absent). The bracket is the gradient through the mean and rstd outputs:
//       nothing flows there from nn.LayerNorm or F.layer_norm, and the rule then leaves the
//       optional inputs out.
//
// The backward op has a gradient rule (layer_group_norm_second_order.cpp: a second backward
// through layer norm), for the inputs nn.LayerNorm and F.layer_norm give it (no grad_mean/grad_rstd).
#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/layer_norm_geometry.h"
#include "layer_group_norm_second_order.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

// "LayerNorm(8)" or "LayerNorm((4, 8))": a layer built for `shape`, for fixes.
std::string layer_for(const Shape& shape) {
  if (shape.size() == 1) return "LayerNorm(" + std::to_string(shape[0]) + ")";
  std::string s = "LayerNorm((";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "))";
}

// The class of the layer that recorded the node ("LayerNorm 'ln_1'" -> "LayerNorm"), or "".
std::string layer_class(const ShapeContext& ctx) {
  const std::string& layer = ctx.meta().layer;
  return layer.substr(0, layer.find(' '));
}

// normalized_shape and eps, and x (input xi): a float tensor ending in normalized_shape.
LayerNormGeometry check_x(const ShapeContext& ctx, int xi) {
  if (!ctx.attrs().has("normalized_shape")) {
    ctx.fail(ErrorMessage("the normalized_shape attribute is missing").fix("normalized_shape=[x.shape[-1]]"));
  }
  const Shape& ns = ctx.attrs().ints("normalized_shape");
  if (ns.empty()) {
    ops::bad_attr(ctx, "normalized_shape", "at least one axis", "[]", "layer_norm(x, [x.shape[-1]])");
  }
  for (int64_t d : ns) {
    if (d < 0) ops::bad_attr(ctx, "normalized_shape", "sizes >= 0", shape_str(ns));
  }
  const double eps = ctx.attrs().f("eps", 1e-5);
  if (!(eps >= 0)) ops::bad_attr(ctx, "eps", ">= 0", std::to_string(eps), "eps=1e-5");
  const TensorInfo& x = ctx.in(xi);
  const size_t k = ns.size();
  if (x.rank() < static_cast<int>(k) || !std::equal(ns.begin(), ns.end(), x.shape.end() - static_cast<std::ptrdiff_t>(k))) {
    const Shape got = x.rank() >= static_cast<int>(k) ? Shape(x.shape.end() - static_cast<std::ptrdiff_t>(k), x.shape.end())
                                                      : x.shape;
    ErrorMessage msg("normalizes the last " + std::to_string(k) + " dim(s) " + shape_str(ns) + " but got input of shape " +
                     shape_str(x.shape));
    msg.detail("input: " + x.str()).cause("normalized_shape must be the input's trailing axes: [*, " +
                                           shape_str(ns).substr(1));
    if (layer_class(ctx) == "LayerNorm" && !got.empty()) {
      msg.fix("build the layer as " + layer_for(got));
    } else if (!got.empty()) {
      msg.fix("layer_norm(x, " + shape_str(got) + ")");
    }
    ctx.fail(msg);
  }
  ctx.expect_float(xi);
  return LayerNormGeometry::from(x.shape, ctx.attrs());
}

// A parameter input (weight or bias) of normalized_shape and x's dtype.
void check_parameter(const ShapeContext& ctx, int i, int xi, const LayerNormGeometry& g, const char* name) {
  const TensorInfo& p = ctx.in(i);
  if (p.shape != g.normalized) {
    ctx.fail(ErrorMessage(std::string(name) + " has shape " + shape_str(p.shape) + ", expected normalized_shape " +
                          shape_str(g.normalized))
                 .detail("input: " + ctx.in(xi).str())
                 .detail(std::string(name) + ": " + p.str())
                 .fix("give " + std::string(name) + " the shape " + shape_str(g.normalized)));
  }
  ctx.expect_same_dtype(xi, i);
}

// An [outer] statistic (mean, rstd or their gradients) of x's dtype.
void check_statistic(const ShapeContext& ctx, int i, int xi, const LayerNormGeometry& g, const char* name) {
  if (ctx.in(i).shape != g.outer) {
    ctx.fail(ErrorMessage(std::string(name) + " has shape " + shape_str(ctx.in(i).shape) + ", expected x's outer axes " +
                          shape_str(g.outer))
                 .detail("x: " + ctx.in(xi).str()));
  }
  ctx.expect_same_dtype(xi, i);
}

void expect_inputs(const ShapeContext& ctx, int want, const char* order) {
  if (ctx.num_inputs() == want) return;
  ctx.fail(ErrorMessage("expected " + std::to_string(want) + " inputs for these attributes, got " +
                        std::to_string(ctx.num_inputs()))
               .detail(order));
}

Attrs layer_norm_backward_attrs(const Attrs& a, bool stat_grads) {
  Attrs out;
  for (const char* k : {"normalized_shape", "eps", "weight", "bias"}) {
    if (const AttrValue* v = a.find(k)) out.set(k, *v);
  }
  if (stat_grads) out.set("stat_grads", AttrValue(true));
  return out;
}

void layer_norm_gradient(GradContext& c) {
  const LayerNormGeometry g = LayerNormGeometry::from(c.shape(c.input(0)), c.attrs());
  const int wi = g.weight_input(false), bi = g.bias_input();
  const bool wants = c.needs_grad(0) || (wi >= 0 && c.needs_grad(wi)) || (bi >= 0 && c.needs_grad(bi));
  ValueId gy = c.grad_output(0);
  const ValueId gmean = c.grad_output(1), grstd = c.grad_output(2);
  if (!wants || (gy == kNoValue && gmean == kNoValue && grstd == kNoValue)) return;
  const TensorInfo xi = c.info(c.input(0));
  auto zeros = [&](const Shape& shape) {
    return c.emit("Full", {}, Attrs{{"shape", shape}, {"value", 0.0}, {"dtype", std::string(dtype_name(xi.dtype))},
                                    {"device", xi.device.str()}});
  };
  if (gy == kNoValue) gy = zeros(xi.shape);
  std::vector<ValueId> in{gy, c.input(0), c.output(1), c.output(2)};
  if (wi >= 0) in.push_back(c.input(wi));
  const bool stat_grads = gmean != kNoValue || grstd != kNoValue;
  if (stat_grads) {
    in.push_back(gmean != kNoValue ? gmean : zeros(g.outer));
    in.push_back(grstd != kNoValue ? grstd : zeros(g.outer));
  }
  const auto d = c.emit_multi("LayerNormBackward", in, layer_norm_backward_attrs(c.attrs(), stat_grads));
  if (c.needs_grad(0)) c.set_grad(0, d[0]);
  if (wi >= 0 && c.needs_grad(wi)) c.set_grad(wi, d[1]);
  if (bi >= 0 && c.needs_grad(bi)) c.set_grad(bi, d[2]);
}

}  // namespace

void layer_norm(OpSchema& s) {
  s.layer_parameter = "weight";
  s.infer = [](const ShapeContext& ctx) {
    const LayerNormGeometry g = check_x(ctx, 0);
    expect_inputs(ctx, 1 + (g.weight ? 1 : 0) + (g.bias ? 1 : 0),
                  "inputs: x, then weight when weight=true, then bias when bias=true");
    if (g.weight) check_parameter(ctx, g.weight_input(false), 0, g, "weight");
    if (g.bias) check_parameter(ctx, g.bias_input(), 0, g, "bias");
    const TensorInfo& x = ctx.in(0);
    const TensorInfo stat = ops::with_shape(x, g.outer);
    return std::vector<TensorInfo>{x, stat, stat};
  };
  s.gradient = layer_norm_gradient;
}

void layer_norm_backward(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    const LayerNormGeometry g = check_x(ctx, 1);
    expect_inputs(ctx, 4 + (g.weight ? 1 : 0) + (g.stat_grads ? 2 : 0),
                  "inputs: grad_y, x, mean, rstd, then weight when weight=true, then grad_mean and grad_rstd when "
                  "stat_grads=true");
    ops::expect_same_shape(ctx, 0, 1, "grad_y", "x");
    ctx.expect_same_dtype(1, 0);
    check_statistic(ctx, 2, 1, g, "mean");
    check_statistic(ctx, 3, 1, g, "rstd");
    if (g.weight) check_parameter(ctx, g.weight_input(true), 1, g, "weight");
    if (g.stat_grads) {
      check_statistic(ctx, g.grad_mean_input(), 1, g, "grad_mean");
      check_statistic(ctx, g.grad_mean_input() + 1, 1, g, "grad_rstd");
    }
    const TensorInfo& x = ctx.in(1);
    return std::vector<TensorInfo>{x, ops::with_shape(x, g.weight ? g.normalized : Shape{0}),
                                   ops::with_shape(x, g.bias ? g.normalized : Shape{0})};
  };
  s.gradient = ops::layer_norm_backward_gradient;
}

void register_layer_norm_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/layer_norm.def"
}

}  // namespace glassgrad
