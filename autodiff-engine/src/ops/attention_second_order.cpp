// Second-order gradient of scaled dot-product attention: the gradient rule of
// ScaledDotProductAttentionBackward (attention.cpp), emitted as products, a softmax and its
// backward (which have rules of their own), so a gradient penalty or a MAML step through a
// transformer block's attention runs as in PyTorch. docs/autograd.md, "Second-order rules",
// derives it.
//
// With s the scale, P = softmax(s Q K^T + mask) recomputed (a Softmax op), and the first
// backward written as dV = P^T G, dP = G V^T, dS = P * (dP - rowsum(dP * P)),
// dQ = s dS K, dK = s dS^T Q, the gradients U_Q, U_K, U_V of dQ, dK, dV go back through it:
//   A  = s (U_Q K^T + Q U_K^T)                                  (reaching dS)
//   B  = SoftmaxBackward(A, P)                                  (reaching dP)
//   Pb = G U_V^T + A * (dP - rowsum(dP * P)) - dP * rowsum(A * P)   (reaching P)
//   Sb = SoftmaxBackward(Pb, P)                                 (reaching the scores)
//   d/dG = P U_V + B V,    d/dV = B^T G
//   d/dQ = s (dS U_K + Sb K),    d/dK = s (dS^T U_Q + Sb^T Q)
// out and lse are functions of q, k and v: the formulas above are total derivatives, and those
// inputs get none of their own. Dropout inside attention (dropout_p > 0) and a mask that needs a
// gradient have no rule here (UnsupportedError names them).
#include "attention_second_order.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "glassgrad/autodiff/attention_geometry.h"

namespace glassgrad {
namespace ops {

namespace {

std::vector<int64_t> last_two_swapped(size_t rank) {
  std::vector<int64_t> d(rank);
  for (size_t i = 0; i < rank; ++i) d[i] = static_cast<int64_t>(i);
  std::swap(d[rank - 1], d[rank - 2]);
  return d;
}

}  // namespace

void attention_backward_gradient(GradContext& c) {
  const ValueId uq = c.grad_output(0), uk = c.grad_output(1), uv = c.grad_output(2);
  const AttentionGeometry geo = AttentionGeometry::from(c.shape(c.input(1)), c.shape(c.input(2)), c.shape(c.input(3)), c.attrs());
  const std::string where = node_where("ScaledDotProductAttentionBackward", c.node().meta.scope);
  if (c.grad_output(3) != kNoValue || geo.dropout()) {
    throw UnsupportedError(ErrorMessage(where + ": no second derivative through attention " +
                                        (geo.dropout() ? std::string("with dropout inside (dropout_p > 0)")
                                                       : std::string("of the mask's gradient")))
                               .fix(geo.dropout() ? "F.scaled_dot_product_attention(..., dropout_p=0.0) (model.eval() for "
                                                    "nn.MultiheadAttention) where the gradient is differentiated again"
                                                  : "compute the mask under glassgrad.no_grad()")
                               .str());
  }
  if (uq == kNoValue && uk == kNoValue && uv == kNoValue) return;
  const ValueId g = c.input(0), q = c.input(1), k = c.input(2), v = c.input(3);
  const double s = geo.scale;
  auto mm = [&](ValueId a, ValueId b) { return c.emit("MatMul", {a, b}); };
  auto tr = [&](ValueId a) { return c.emit("Permute", {a}, Attrs{{"dims", last_two_swapped(c.shape(a).size())}}); };
  auto mul = [&](ValueId a, ValueId b) { return c.emit("Mul", {a, b}); };
  auto add = [&](ValueId a, ValueId b) {
    if (a == kNoValue) return b;
    if (b == kNoValue) return a;
    return c.emit("Add", {a, b});
  };
  auto scaled = [&](ValueId a, double f) { return c.emit("MulScalar", {a}, Attrs{{"value", f}}); };
  auto rowsum = [&](ValueId a) {
    const int64_t last = static_cast<int64_t>(c.shape(a).size()) - 1;
    return c.emit("Sum", {a}, Attrs{{"dims", std::vector<int64_t>{last}}, {"keepdim", true}});
  };
  // P = softmax(s q k^T + mask), -inf above the diagonal when causal.
  ValueId scores = scaled(mm(q, tr(k)), s);
  const int mi = geo.mask_input(1);
  if (mi >= 0) scores = add(scores, c.input(mi));
  if (geo.causal) {
    const TensorInfo qi = c.info(q);
    const Attrs ones{{"shape", Shape{geo.l, geo.s}}, {"value", 1.0}, {"dtype", std::string(dtype_name(qi.dtype))},
                     {"device", qi.device.str()}};
    const ValueId one = c.emit("Full", {}, ones);
    const ValueId row = c.emit("CumSum", {one}, Attrs{{"dim", int64_t{0}}});
    const ValueId col = c.emit("CumSum", {one}, Attrs{{"dim", int64_t{1}}});
    const ValueId above = c.emit("Greater", {col, row});
    scores = c.emit("Where", {above, c.scalar(-std::numeric_limits<double>::infinity(), q), scores});
  }
  // A Softmax rather than exp(scores - lse): lse's gradient would not reach q and k (the forward's
  // rule passes none), and a third derivative would miss it.
  const ValueId p = c.emit("Softmax", {scores}, Attrs{{"dim", int64_t{-1}}});
  const ValueId dp = mm(g, tr(v));
  const ValueId centered = c.emit("Sub", {dp, rowsum(mul(dp, p))});
  const ValueId ds = mul(p, centered);
  ValueId a = kNoValue;  // reaching dS
  if (uq != kNoValue) a = scaled(mm(uq, tr(k)), s);
  if (uk != kNoValue) a = add(a, scaled(mm(q, tr(uk)), s));
  ValueId pb = uv == kNoValue ? kNoValue : mm(g, tr(uv));  // reaching P
  ValueId b = kNoValue;                                    // reaching dP
  if (a != kNoValue) {
    b = c.emit("SoftmaxBackward", {a, p}, Attrs{{"dim", int64_t{-1}}});
    pb = add(pb, c.emit("Sub", {mul(a, centered), mul(dp, rowsum(mul(a, p)))}));
  }
  const ValueId sb = pb == kNoValue ? kNoValue : c.emit("SoftmaxBackward", {pb, p}, Attrs{{"dim", int64_t{-1}}});
  auto set = [&](int i, ValueId d) {
    if (!c.needs_grad(i)) return;
    c.set_grad(i, d == kNoValue ? zeros_like(c, c.input(i)) : c.reduce_to(d, c.shape(c.input(i))));
  };
  set(0, add(uv == kNoValue ? kNoValue : mm(p, uv), b == kNoValue ? kNoValue : mm(b, v)));
  ValueId dq = uk == kNoValue ? kNoValue : mm(ds, uk);
  if (sb != kNoValue) dq = add(dq, mm(sb, k));
  set(1, dq == kNoValue ? kNoValue : scaled(dq, s));
  ValueId dk = uq == kNoValue ? kNoValue : mm(tr(ds), uq);
  if (sb != kNoValue) dk = add(dk, mm(tr(sb), q));
  set(2, dk == kNoValue ? kNoValue : scaled(dk, s));
  set(3, b == kNoValue ? kNoValue : mm(tr(b), g));
}

}  // namespace ops
}  // namespace glassgrad
