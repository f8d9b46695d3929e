// Second-order gradients of the softmax family: the gradient rules of SoftmaxBackward,
// LogSoftmaxBackward and CrossEntropyBackward (softmax.cpp), emitted as elementwise ops and sums
// along `dim`, so a gradient penalty, a Hessian-vector product or a MAML inner step
// (autograd.grad(create_graph=True), then backward) runs through softmax, log_softmax,
// cross_entropy and nll_loss as in PyTorch. docs/autograd.md, "Second-order rules", derives them.
//
// With u the gradient reaching the backward op's output dx, and sums S(.) along dim (kept):
//   SoftmaxBackward,    dx = y * (g - S(g*y)):
//     d/dg = y * (u - S(u*y))                     (SoftmaxBackward(u, y) itself)
//     d/dy = u * (g - S(g*y)) - g * S(u*y)
//   LogSoftmaxBackward, dx = g - exp(y) * S(g):
//     d/dg = u - S(u * exp(y))
//     d/dy = -u * exp(y) * S(g)
//   CrossEntropyBackward, per row n: dx = s_n * (a_n * p - b_n), p = softmax(logits[n]), where
//   a_n = valid_n * ((1 - e) * w_y + e/C * W) and b_n do not depend on the logits, and s_n is
//   grad_loss (sum; grad_loss[n] for "none"; grad_loss / sum_n valid_n w_y for "mean"); dx is
//   linear in grad_loss:
//     d/dlogits = SoftmaxBackward(s_n * a_n * u, p)
//     d/dgrad_loss = sum of u * CrossEntropyBackward(ones, logits, labels, weight) (over the
//                    classes for "none", over everything otherwise)
//   Labels have no gradient; class weights get none (PyTorch does not differentiate them either).
// Checked against float64 central differences and torch (test_torch_softmax_double_backward.py).
#include "softmax_second_order.h"

#include <string>
#include <vector>

#include "glassgrad/autodiff/families/softmax.h"

namespace glassgrad {
namespace ops {

namespace {

Attrs softmax_dim_attrs(GradContext& c) { return Attrs{{"dim", SoftmaxAttrs::from(c.attrs()).dim}}; }

// Sum along the softmax axis, kept (so it broadcasts against the op's tensors).
ValueId sum_along(GradContext& c, ValueId v) {
  const int rank = static_cast<int>(c.shape(v).size());
  const int64_t d = rank == 0 ? 0 : (SoftmaxAttrs::from(c.attrs()).dim % rank + rank) % rank;
  if (rank == 0) return v;
  return c.emit("Sum", {v}, Attrs{{"dims", std::vector<int64_t>{d}}, {"keepdim", true}});
}

ValueId full_like(GradContext& c, ValueId like, double value) {
  const TensorInfo t = c.info(like);
  return c.emit("Full", {}, Attrs{{"shape", t.shape}, {"value", value}, {"dtype", std::string(dtype_name(t.dtype))},
                                  {"device", t.device.str()}});
}

}  // namespace

void softmax_backward_gradient(GradContext& c) {
  const ValueId u = c.grad_output(0);
  if (u == kNoValue) return;
  const ValueId g = c.input(0), y = c.input(1);
  if (c.needs_grad(0)) c.set_grad(0, c.emit("SoftmaxBackward", {u, y}, softmax_dim_attrs(c)));
  if (c.needs_grad(1)) {
    const ValueId centered = c.emit("Sub", {g, sum_along(c, c.emit("Mul", {g, y}))});
    const ValueId uy = sum_along(c, c.emit("Mul", {u, y}));
    c.set_grad(1, c.emit("Sub", {c.emit("Mul", {u, centered}), c.emit("Mul", {g, uy})}));
  }
}

void log_softmax_backward_gradient(GradContext& c) {
  const ValueId u = c.grad_output(0);
  if (u == kNoValue) return;
  const ValueId g = c.input(0), p = c.emit("Exp", {c.input(1)});
  if (c.needs_grad(0)) c.set_grad(0, c.emit("Sub", {u, sum_along(c, c.emit("Mul", {u, p}))}));
  if (c.needs_grad(1)) {
    c.set_grad(1, c.emit("Neg", {c.emit("Mul", {c.emit("Mul", {u, p}), sum_along(c, g)})}));
  }
}

void cross_entropy_backward_gradient(GradContext& c) {
  const ValueId u = c.grad_output(0);
  if (u == kNoValue) return;
  const SoftmaxAttrs at = SoftmaxAttrs::from(c.attrs());
  const ValueId g = c.input(0), logits = c.input(1), given = c.input(2);
  const bool weighted = c.num_inputs() > 3;
  std::vector<ValueId> rest{logits, given};
  if (weighted) rest.push_back(c.input(3));
  if (c.needs_grad(0)) {
    std::vector<ValueId> in{full_like(c, g, 1.0)};
    in.insert(in.end(), rest.begin(), rest.end());
    const ValueId unit = c.emit("CrossEntropyBackward", in, c.attrs());
    const ValueId prod = c.emit("Mul", {u, unit});
    const std::vector<int64_t> dims = at.reduction == CEReduction::None ? std::vector<int64_t>{1} : std::vector<int64_t>{};
    c.set_grad(0, c.emit("Sum", {prod}, Attrs{{"dims", dims}, {"keepdim", false}}));
  }
  if (!c.needs_grad(1)) return;
  const TensorInfo li = c.info(logits);
  const std::string dt = dtype_name(li.dtype);
  const int64_t classes = li.shape[1];
  const ValueId labels =
      c.info(given).dtype == DType::Int64 ? given : c.emit("Cast", {given}, Attrs{{"dtype", std::string("int64")}});
  // valid_n: the row's label is not ignore_index; its weight w_y (read at label 0 on ignored rows,
  // whose label may lie outside the classes).
  const ValueId ignore = c.emit("Full", {}, Attrs{{"shape", std::vector<int64_t>{}}, {"value", static_cast<double>(at.ignore_index)},
                                                  {"dtype", std::string("int64")}, {"device", li.device.str()}});
  const ValueId valid = c.emit("NotEqual", {labels, ignore});
  const ValueId valid_f = c.emit("Cast", {valid}, Attrs{{"dtype", dt}});
  ValueId wy = valid_f;
  ValueId total_w = kNoValue;  // W = sum_c w_c
  if (weighted) {
    const ValueId zero = c.emit("Full", {}, Attrs{{"shape", std::vector<int64_t>{}}, {"value", 0.0}, {"dtype", std::string("int64")},
                                                  {"device", li.device.str()}});
    const ValueId safe = c.emit("Where", {valid, labels, zero});
    wy = c.emit("Mul", {valid_f, c.emit("IndexSelect", {c.input(3), safe}, Attrs{{"dim", int64_t{0}}})});
    total_w = c.emit("Sum", {c.input(3)}, Attrs{{"dims", std::vector<int64_t>{}}, {"keepdim", false}});
  }
  const double e = at.label_smoothing;
  ValueId a = c.emit("MulScalar", {wy}, Attrs{{"value", 1.0 - e}});
  if (e != 0.0) {
    const ValueId smooth = weighted ? c.emit("Mul", {valid_f, c.emit("MulScalar", {total_w}, Attrs{{"value", e / static_cast<double>(classes)}})})
                                    : c.emit("MulScalar", {valid_f}, Attrs{{"value", e}});
    a = c.emit("Add", {a, smooth});
  }
  ValueId s = g;
  if (at.reduction == CEReduction::Mean) {
    s = c.emit("Div", {g, c.emit("Sum", {wy}, Attrs{{"dims", std::vector<int64_t>{}}, {"keepdim", false}})});
  }
  const ValueId row = c.emit("Reshape", {c.emit("Mul", {s, a})}, Attrs{{"shape", Shape{li.shape[0], 1}}});
  const ValueId p = c.emit("Softmax", {logits}, Attrs{{"dim", int64_t{1}}});
  c.set_grad(1, c.emit("SoftmaxBackward", {c.emit("Mul", {row, u}), p}, Attrs{{"dim", int64_t{1}}}));
}

}  // namespace ops
}  // namespace glassgrad
