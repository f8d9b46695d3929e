// Second-order gradients of layer and group normalization: the gradient rules of
// LayerNormBackward (layer_norm.cpp) and GroupNormBackward (norm.cpp), emitted as elementwise ops
// and sums, so a gradient penalty or a MAML step through nn.LayerNorm (a transformer block, a
// LayerNorm critic) or nn.GroupNorm runs as in PyTorch. docs/autograd.md, "Second-order rules",
// derives them.
//
// Both normalize groups of S values of x: LayerNorm a row of cols values, GroupNorm the
// C/G channels times the axes after C of one (sample, group). In a grouped view of x (LayerNorm
// [rows, cols], GroupNorm [N, G, C/G, I]) the statistics are [rows, 1] / [N, G, 1, 1] and the
// weight [1, cols] / [1, G, C/G, 1]. With xhat = (x - mean) * rstd, gw = g * w (w = 1 without a
// weight), mean_S a mean over a group (kept), and the gradients u, a, b reaching dx, dweight,
// dbias:
//   dx = rstd * inner,  inner = gw - mean_S(gw) - xhat * mean_S(gw * xhat)
//   v    = u - mean_S(u) - xhat * mean_S(u * xhat)
//   Gxh  = -rstd * (u * mean_S(gw * xhat) + gw * mean_S(u * xhat)) + a * g   (d/dxhat)
//   R    = sum_S(u * inner)                                                   (d/drstd, xhat held)
//   d/dg = w * rstd * v + a * xhat + b,     d/dw = sum over the weight's copies of g * rstd * v
//   d/dx = rstd * (Gxh - mean_S(Gxh) - xhat * mean_S(Gxh * xhat)) - rstd^2 * xhat * R / S
// The last line is the total derivative: mean and rstd are functions of x (d mean/dx = 1/S,
// d rstd/dx = -rstd^2 * xhat / S), so their inputs get no gradient of their own and nothing
// reaches the forward op's saved statistics.
#include "layer_group_norm_second_order.h"

#include <string>
#include <vector>

#include "glassgrad/autodiff/families/norm.h"
#include "glassgrad/autodiff/layer_norm_geometry.h"

namespace glassgrad {
namespace ops {

namespace {

struct GroupedView {
  Shape view;        // x's grouped shape
  Shape stat;        // the statistics' grouped shape
  Shape param;       // the weight's grouped shape
  std::vector<int64_t> stat_dims;   // the axes of one group
  std::vector<int64_t> param_dims;  // the axes over which one weight value is shared
  double s = 1;                     // values per group
  int weight_input = -1;            // -1: no weight
  bool bias = true;                 // whether dbias is a real gradient (LayerNorm's is [0] without bias)
};

class GroupedRule {
 public:
  GroupedRule(GradContext& c, GroupedView v) : c_(c), v_(std::move(v)) {}

  void run() {
    const ValueId u0 = c_.grad_output(0), a0 = c_.grad_output(1), b0 = c_.grad_output(2);
    const bool weighted = v_.weight_input >= 0;
    const ValueId a = weighted ? a0 : kNoValue;
    const ValueId b = v_.bias ? b0 : kNoValue;
    if (u0 == kNoValue && a == kNoValue && b == kNoValue) return;
    const ValueId g = shaped(c_.input(0), v_.view), x = shaped(c_.input(1), v_.view);
    const ValueId mean = shaped(c_.input(2), v_.stat), rstd = shaped(c_.input(3), v_.stat);
    const ValueId w = weighted ? shaped(c_.input(v_.weight_input), v_.param) : kNoValue;
    const ValueId u = u0 == kNoValue ? kNoValue : shaped(u0, v_.view);
    const ValueId xhat = mul(sub(x, mean), rstd);
    const ValueId gw = weighted ? mul(g, w) : g;
    ValueId gxh = a == kNoValue ? kNoValue : mul(shaped(a, v_.param), g);  // d/dxhat
    ValueId r = kNoValue, rv = kNoValue;                                    // R; rstd * v
    if (u != kNoValue) {
      const ValueId gwx = group_mean(mul(gw, xhat)), ux = group_mean(mul(u, xhat));
      const ValueId inner = sub(sub(gw, group_mean(gw)), mul(xhat, gwx));
      r = group_sum(mul(u, inner));
      rv = mul(rstd, sub(sub(u, group_mean(u)), mul(xhat, ux)));
      gxh = add(gxh, c_.emit("Neg", {mul(rstd, add(mul(u, gwx), mul(gw, ux)))}));
    }
    if (c_.needs_grad(0)) {
      ValueId d = weighted && rv != kNoValue ? mul(w, rv) : rv;
      if (a != kNoValue) d = add(d, mul(shaped(a, v_.param), xhat));
      if (b != kNoValue) d = add(d, shaped(b, v_.param));
      set(0, d);
    }
    if (c_.needs_grad(1)) {
      ValueId d = kNoValue;
      if (gxh != kNoValue) {
        const ValueId centered = sub(sub(gxh, group_mean(gxh)), mul(xhat, group_mean(mul(gxh, xhat))));
        d = mul(rstd, centered);
      }
      if (r != kNoValue) {
        const ValueId k = c_.emit("MulScalar", {mul(mul(rstd, rstd), r)}, Attrs{{"value", -1.0 / v_.s}});
        d = add(d, mul(k, xhat));
      }
      set(1, d);
    }
    if (weighted && c_.needs_grad(v_.weight_input)) {
      const ValueId d = rv == kNoValue ? kNoValue
                                       : c_.emit("Sum", {mul(g, rv)}, Attrs{{"dims", v_.param_dims}, {"keepdim", true}});
      set(v_.weight_input, d);
    }
  }

 private:
  ValueId shaped(ValueId v, const Shape& s) {
    return c_.shape(v) == s ? v : c_.emit("Reshape", {v}, Attrs{{"shape", s}});
  }
  ValueId mul(ValueId a, ValueId b) { return c_.emit("Mul", {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return c_.emit("Sub", {a, b}); }
  ValueId add(ValueId a, ValueId b) {
    if (a == kNoValue) return b;
    if (b == kNoValue) return a;
    return c_.emit("Add", {a, b});
  }
  ValueId group_sum(ValueId v) { return c_.emit("Sum", {v}, Attrs{{"dims", v_.stat_dims}, {"keepdim", true}}); }
  ValueId group_mean(ValueId v) { return c_.emit("MulScalar", {group_sum(v)}, Attrs{{"value", 1.0 / v_.s}}); }
  // Input i's gradient from a value of the grouped view (kNoValue: zeros), in the input's shape.
  void set(int i, ValueId v) {
    const Shape want = c_.shape(c_.input(i));
    if (v == kNoValue) {
      v = zeros_like(c_, c_.input(i));
    } else if (c_.shape(v) != want) {
      const Shape& grouped = i == v_.weight_input ? v_.param : v_.view;
      if (c_.shape(v) != grouped) v = c_.emit("Expand", {v}, Attrs{{"shape", grouped}});
      v = shaped(v, want);
    }
    c_.set_grad(i, v);
  }

  GradContext& c_;
  GroupedView v_;
};

}  // namespace

void layer_norm_backward_gradient(GradContext& c) {
  const LayerNormGeometry geo = LayerNormGeometry::from(c.shape(c.input(1)), c.attrs());
  if (geo.stat_grads) {
    throw UnsupportedError(ErrorMessage(node_where("LayerNormBackward", c.node().meta.scope) +
                                        ": a second derivative through the gradient of LayerNorm's saved mean or rstd "
                                        "has no rule")
                               .cause("nn.LayerNorm and F.layer_norm never pass a gradient to those statistics")
                               .fix("compute the statistics with x.mean() and x.var() where a gradient must flow "
                                    "through them twice")
                               .str());
  }
  GroupedView v;
  v.view = {geo.rows, geo.cols};
  v.stat = {geo.rows, 1};
  v.param = {1, geo.cols};
  v.stat_dims = {1};
  v.param_dims = {0};
  v.s = static_cast<double>(geo.cols);
  v.weight_input = geo.weight_input(true);
  v.bias = geo.bias;
  GroupedRule(c, v).run();
}

void group_norm_backward_gradient(GradContext& c) {
  const NormGeometry geo = NormGeometry::from(c.shape(c.input(1)), c.attrs());
  const int64_t groups = geo.groups(), per = geo.group_channels();
  GroupedView v;
  v.view = {geo.n, groups, per, geo.i};
  v.stat = {geo.n, groups, 1, 1};
  v.param = {1, groups, per, 1};
  v.stat_dims = {2, 3};
  v.param_dims = {0, 3};
  v.s = static_cast<double>(geo.group_size());
  v.weight_input = c.num_inputs() > 4 ? 4 : -1;
  GroupedRule(c, v).run();
}

}  // namespace ops
}  // namespace glassgrad
