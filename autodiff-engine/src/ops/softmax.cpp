// Softmax family along one axis `dim` (default -1), and the cross-entropy loss.
//
//   Softmax(x){dim}:            y = exp(x - max) / sum(exp(x - max))
//   LogSoftmax(x){dim}:         y = x - max - log(sum(exp(x - max)))
//   SoftmaxBackward(g, y){dim}:    dx = y * (g - sum(g * y))          (y = softmax output)
//   LogSoftmaxBackward(g, y){dim}: dx = g - exp(y) * sum(g)           (y = log-softmax output)
//   CrossEntropy(logits [N, C], labels [N] int64, weight [C]?){reduction, ignore_index, label_smoothing}
//       PyTorch's F.cross_entropy with class indices. With lse_n = logsumexp(logits[n, :]),
//       y = labels[n], w the class weights (ones when absent), W = sum_c w_c, e = label_smoothing:
//         loss_n = (1 - e) * w_y * (lse_n - logits[n, y]) + (e / C) * sum_c w_c * (lse_n - logits[n, c])
//       and loss_n = 0 where y == ignore_index (default -100). reduction "none" returns loss [N];
//       "sum" sum_n loss_n; "mean" (default) sum_n loss_n / sum_n w_y over the rows not ignored
//       (the count of those rows without weights; 0/0 = NaN when every row is ignored).
//   CrossEntropyBackward(g, logits, labels, weight?){same attrs}: g is [] ([N] for "none");
//       dlogits[n, j] = s_n * ((1 - e) * w_y * (p_nj - [j == y]) + (e / C) * (W * p_nj - w_j)),
//       p = softmax(logits[n]), s_n = g (sum), g / sum_n w_y (mean), g[n] (none); 0 on ignored rows.
//
// The backward ops have gradient rules (softmax_second_order.cpp: a second backward through
// softmax, log_softmax and cross_entropy).
//
// Labels must be int64 (docs/debugging.md, "Accuracy doesn't improve beyond 10%": int32 labels
// truncated silently made accuracy stick at 10%); a label outside [0, C) that is not ignore_index is a run-time IndexError naming
// it and its position.
#include "glassgrad/autodiff/families/softmax.h"

#include <algorithm>

#include "glassgrad/autodiff/class_labels.h"
#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"
#include "softmax_second_order.h"

namespace glassgrad {

SoftmaxAttrs SoftmaxAttrs::from(const Attrs& a) {
  SoftmaxAttrs s;
  s.dim = a.i("dim", s.dim);
  if (a.has("reduction")) {
    const std::string& r = a.s("reduction");
    s.reduction = r == "none" ? CEReduction::None : r == "sum" ? CEReduction::Sum : CEReduction::Mean;
  }
  s.ignore_index = a.i("ignore_index", s.ignore_index);
  s.label_smoothing = a.f("label_smoothing", s.label_smoothing);
  return s;
}

SoftmaxAxis SoftmaxAxis::from(const Shape& shape, const Attrs& a) {
  SoftmaxAxis ax;
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) return ax;
  const int d = normalize_axis(SoftmaxAttrs::from(a).dim, rank);
  for (int i = 0; i < rank; ++i) {
    if (i < d) ax.outer *= shape[static_cast<size_t>(i)];
    else if (i == d) ax.d = shape[static_cast<size_t>(i)];
    else ax.inner *= shape[static_cast<size_t>(i)];
  }
  return ax;
}

namespace {

// Normalized `dim` attribute for input i; a 0-d input counts as rank 1.
int softmax_dim(const ShapeContext& ctx, int i = 0) {
  const int rank = std::max(ctx.in(i).rank(), 1);
  return ctx.axis("dim", SoftmaxAttrs::from(ctx.attrs()).dim, rank, i,
                  "dim=-1 (the last axis, e.g. the classes of [N, classes] logits)");
}

const std::string& reduction_attr(const ShapeContext& ctx) {
  static const std::string mean = "mean";
  if (!ctx.attrs().has("reduction")) return mean;
  const std::string& r = ctx.attrs().s("reduction");
  if (r != "mean" && r != "sum" && r != "none") {
    ops::bad_attr(ctx, "reduction", "\"mean\", \"sum\" or \"none\"", "\"" + r + "\"", "reduction=\"mean\"");
  }
  return r;
}

// The cross-entropy options (label_smoothing in [0, 1]) and the optional class weights (input wi:
// [C], the logits' dtype).
void check_options(const ShapeContext& ctx, int li, int wi) {
  const double e = SoftmaxAttrs::from(ctx.attrs()).label_smoothing;
  if (!(e >= 0.0 && e <= 1.0)) {
    ops::bad_attr(ctx, "label_smoothing", "in [0, 1]", std::to_string(e), "label_smoothing=0.1");
  }
  if (ctx.num_inputs() <= wi) return;
  const TensorInfo& w = ctx.in(wi);
  const int64_t c = ctx.in(li).shape[1];
  if (w.shape != Shape{c}) {
    ctx.fail(ErrorMessage("weight must hold one value per class, shape [" + std::to_string(c) + "], got " +
                          shape_str(w.shape))
                 .detail("logits: " + ctx.in(li).str())
                 .detail("weight: " + w.str())
                 .fix("weight=tensor of " + std::to_string(c) + " class weights"));
  }
  ctx.expect_same_dtype(li, wi);
}

// Attributes the backward op takes over from the forward op.
Attrs ce_attrs(const Attrs& a) {
  Attrs out;
  for (const char* k : {"reduction", "ignore_index", "label_smoothing"}) {
    if (const AttrValue* v = a.find(k)) out.set(k, *v);
  }
  return out;
}

// Checks logits (input li) and labels (input yi) of the cross-entropy ops.
void check_logits_labels(const ShapeContext& ctx, int li, int yi) {
  const TensorInfo& logits = ctx.in(li);
  const TensorInfo& labels = ctx.in(yi);
  if (logits.rank() != 2) {
    ErrorMessage m("logits must be 2-d [N, classes], got " + std::to_string(logits.rank()) + "-d " +
                   shape_str(logits.shape));
    m.detail("logits: " + logits.str()).detail("labels: " + labels.str());
    if (logits.rank() == 1) {
      m.cause("the scores of a single sample, without the batch axis").fix("logits.reshape(1, -1)");
    } else if (logits.rank() > 2) {
      m.cause("feature maps that were not flattened before the classifier")
          .fix("flatten before the last Linear layer: x.reshape(x.shape[0], -1)");
    } else {
      m.fix("give one row of class scores per sample: logits.reshape(N, classes)");
    }
    ctx.fail(m);
  }
  ctx.expect_float(li);
  check_class_labels(ctx.where(), dtype_name(labels.dtype), labels.shape, logits, &labels);
  const int64_t n = logits.shape[0];
  if (labels.shape != Shape{n}) {
    ErrorMessage m(labels.rank() == 1
                       ? "logits have " + std::to_string(n) + " rows but labels have " + std::to_string(labels.shape[0]) +
                             " entries"
                       : "labels must be a vector [N] of class indices, got " + shape_str(labels.shape));
    m.detail("logits: " + logits.str()).detail("labels: " + labels.str());
    if (labels.rank() == 1) {
      m.cause("logits and labels come from different batches (e.g. a shorter last batch sliced differently)")
          .fix("slice inputs and labels with the same indices: x[i:i+B], y[i:i+B]");
    } else if (labels.numel() == n) {
      m.cause("labels of shape [N, 1]").fix("labels.reshape(-1)");
    } else {
      m.fix("pass one class index per sample, shape [" + std::to_string(n) + "]");
    }
    ctx.fail(m);
  }
  if (logits.shape[1] < 1) {
    ctx.fail(ErrorMessage("logits have 0 classes: " + shape_str(logits.shape)).fix("the classifier needs at least one output"));
  }
}

// Checks the cross-entropy inputs from li on (logits, labels, weight?) and the attributes;
// returns the loss's shape: [N] for reduction "none", else [].
Shape check_cross_entropy(const ShapeContext& ctx, int li) {
  check_logits_labels(ctx, li, li + 1);
  check_options(ctx, li, li + 2);
  return reduction_attr(ctx) == "none" ? Shape{ctx.in(li).shape[0]} : Shape{};
}

}  // namespace

void check_class_labels(const std::string& where, const std::string& labels_dtype, const Shape& labels_shape,
                        const TensorInfo& logits, const TensorInfo* labels_tensor) {
  if (labels_dtype == "int64") return;
  if (!labels_tensor) {  // a NumPy array: glassgrad may not even hold its dtype
    throw DTypeError(where + ": " +
                     ErrorMessage("labels must be int64 (or uint8) class indices, got a NumPy array of " + labels_dtype + " " +
                                  shape_str(labels_shape))
                         .detail("logits: " + logits.str())
                         .cause("labels loaded as " + labels_dtype +
                                " (e.g. from a file); glassgrad never truncates or rounds them")
                         .fix("y.astype(np.int64)")
                         .str());
  }
  ErrorMessage m("labels must be int64 (or uint8) class indices, got " + labels_dtype + " " + shape_str(labels_shape));
  m.detail("logits: " + logits.str()).detail("labels: " + labels_tensor->str());
  if (is_floating(labels_tensor->dtype)) {
    if (labels_shape == logits.shape) {
      m.cause("float labels shaped like the logits look like one-hot rows; those need "
              "y.argmax(axis=1).astype(np.int64)");
    } else {
      m.cause("float labels would be rounded silently; class indices are whole numbers");
    }
  } else {
    m.cause("labels of another integer type are refused rather than converted, as PyTorch refuses them "
            "(it takes Long or Byte targets): truncated labels once kept a model's accuracy at 10%");
  }
  m.fix("y.astype(np.int64)");
  throw DTypeError(where + ": " + m.str());
}

// The rules of each row of families/softmax.def.
namespace {

// Softmax and LogSoftmax, whose gradient is `backward`(grad, y).
void softmax_forward(OpSchema& s, const char* backward_op) {
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_float(0);
    softmax_dim(ctx);
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  const std::string backward = backward_op;
  s.gradient = [backward](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    c.set_grad(0, c.emit(backward, {c.grad_output(0), c.output(0)},
                         Attrs{{"dim", SoftmaxAttrs::from(c.attrs()).dim}}));
  };
}

void softmax_backward_rule(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_float(1);
    ctx.expect_same_dtype(1, 0);
    ops::expect_same_shape(ctx, 0, 1, "grad", "y");
    softmax_dim(ctx, 1);
    return std::vector<TensorInfo>{ctx.in(1)};
  };
}

void softmax(OpSchema& s) { softmax_forward(s, "SoftmaxBackward"); }
void log_softmax(OpSchema& s) { softmax_forward(s, "LogSoftmaxBackward"); }
void softmax_backward(OpSchema& s) {
  softmax_backward_rule(s);
  s.gradient = ops::softmax_backward_gradient;
}
void log_softmax_backward(OpSchema& s) {
  softmax_backward_rule(s);
  s.gradient = ops::log_softmax_backward_gradient;
}

void cross_entropy(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), check_cross_entropy(ctx, 0))};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    std::vector<ValueId> in{c.grad_output(0), c.input(0), c.input(1)};
    if (c.num_inputs() > 2) in.push_back(c.input(2));
    c.set_grad(0, c.emit("CrossEntropyBackward", in, ce_attrs(c.attrs())));
  };
}

void cross_entropy_backward(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    const Shape want = check_cross_entropy(ctx, 1);
    ctx.expect_same_dtype(1, 0);
    if (ctx.in(0).shape != want) {
      ctx.fail(ErrorMessage("grad_loss must have the loss's shape " + shape_str(want) + ", got " +
                            shape_str(ctx.in(0).shape)));
    }
    return std::vector<TensorInfo>{ctx.in(1)};
  };
  s.gradient = ops::cross_entropy_backward_gradient;
}

}  // namespace

void register_softmax_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/softmax.def"
}

}  // namespace glassgrad
