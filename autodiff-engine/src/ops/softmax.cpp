// Softmax family along one axis `dim` (default -1), and the cross-entropy loss.
//
//   Softmax(x){dim}:            y = exp(x - max) / sum(exp(x - max))
//   LogSoftmax(x){dim}:         y = x - max - log(sum(exp(x - max)))
//   SoftmaxBackward(g, y){dim}:    dx = y * (g - sum(g * y))          (y = softmax output)
//   LogSoftmaxBackward(g, y){dim}: dx = g - exp(y) * sum(g)           (y = log-softmax output)
//   CrossEntropy(logits [N, C], labels [N] int64){reduction}:
//       loss_n = logsumexp(logits[n, :]) - logits[n, labels[n]];
//       loss = mean_n loss_n ("mean", default) or sum_n loss_n ("sum").   (PyTorch semantics)
//   CrossEntropyBackward(g [], logits, labels){reduction}:
//       dlogits = (softmax(logits) - onehot(labels)) * g / N   (/ N only for "mean").
//
// The backward ops have no gradient rule (no double backward: build_backward then raises
// UnsupportedError naming the op).
//
// Labels must be int64 (the seed's section 5.3: int32 labels truncated silently made accuracy
// stick at 10%); a label outside [0, C) is a run-time IndexError naming it and its position.
#include <algorithm>

#include "op_helpers.h"

namespace glassgrad {

namespace {

// Normalized `dim` attribute (default -1) for input i; a 0-d input counts as rank 1.
int softmax_dim(const ShapeContext& ctx, int i = 0) {
  const int rank = std::max(ctx.in(i).rank(), 1);
  const int64_t dim = ctx.attrs().i("dim", -1);
  const int d = normalize_axis(dim, rank);
  if (d < 0) {
    ops::bad_attr(ctx, "dim", "within [-" + std::to_string(rank) + ", " + std::to_string(rank - 1) + "] for input " +
                                  shape_str(ctx.in(i).shape),
                  std::to_string(dim), "dim=-1 (the last axis, e.g. the classes of [N, classes] logits)");
  }
  return d;
}

void expect_same_shape(const ShapeContext& ctx, int a, int b, const char* an, const char* bn) {
  if (ctx.in(a).shape == ctx.in(b).shape) return;
  ctx.fail(ErrorMessage(std::string(an) + " has shape " + shape_str(ctx.in(a).shape) + ", " + bn + " has shape " +
                        shape_str(ctx.in(b).shape))
               .cause("they must have the same shape"));
}

const std::string& reduction_attr(const ShapeContext& ctx) {
  static const std::string mean = "mean";
  if (!ctx.attrs().has("reduction")) return mean;
  const std::string& r = ctx.attrs().s("reduction");
  if (r != "mean" && r != "sum") {
    ops::bad_attr(ctx, "reduction", "\"mean\" or \"sum\"", "\"" + r + "\"", "reduction=\"mean\"");
  }
  return r;
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
  if (labels.dtype != DType::Int64) {
    ErrorMessage m(std::string("labels must be int64 class indices, got ") + dtype_name(labels.dtype) + " " +
                   shape_str(labels.shape));
    m.detail("logits: " + logits.str()).detail("labels: " + labels.str());
    if (is_floating(labels.dtype)) {
      if (labels.shape == logits.shape) {
        m.cause("float labels shaped like the logits look like one-hot rows; those need "
                "y.argmax(axis=1).astype(np.int64)");
      } else {
        m.cause("float labels would be rounded silently; class indices are whole numbers");
      }
    } else {
      m.cause("labels of any other integer type are refused rather than converted: truncated labels "
              "once kept a model's accuracy at 10%");
    }
    m.fix("y.astype(np.int64)");
    ctx.fail(m, true);
  }
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

}  // namespace

void register_softmax_ops(OpRegistry& r) {
  struct Forward {
    const char* name;
    const char* backward;
    const char* formula;
  };
  for (const Forward& f : {Forward{"Softmax", "SoftmaxBackward", "y = exp(x - max) / sum(exp(x - max)) along dim"},
                           Forward{"LogSoftmax", "LogSoftmaxBackward", "y = x - max - log(sum(exp(x - max))) along dim"}}) {
    OpSchema s;
    s.name = f.name;
    s.inputs = {"x"};
    s.outputs = {"y"};
    s.formula = f.formula;
    s.infer = [](const ShapeContext& ctx) {
      ctx.expect_float(0);
      softmax_dim(ctx);
      return std::vector<TensorInfo>{ctx.in(0)};
    };
    const std::string backward = f.backward;
    s.gradient = [backward](GradContext& c) {
      if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
      c.set_grad(0, c.emit(backward, {c.grad_output(0), c.output(0)}, Attrs{{"dim", c.attrs().i("dim", -1)}}));
    };
    r.add(std::move(s));
  }
  for (const char* name : {"SoftmaxBackward", "LogSoftmaxBackward"}) {
    OpSchema s;
    s.name = name;
    s.inputs = {"grad", "y"};
    s.outputs = {"dx"};
    s.dispatch_input = 1;
    s.formula = std::string(name) == "SoftmaxBackward" ? "dx = y * (g - sum(g * y)) along dim"
                                                       : "dx = g - exp(y) * sum(g) along dim";
    s.infer = [](const ShapeContext& ctx) {
      ctx.expect_float(1);
      ctx.expect_same_dtype(1, 0);
      expect_same_shape(ctx, 0, 1, "grad", "y");
      softmax_dim(ctx, 1);
      return std::vector<TensorInfo>{ctx.in(1)};
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "CrossEntropy";
    s.inputs = {"logits", "labels"};
    s.outputs = {"loss"};
    s.formula = "loss = mean_n (logsumexp(logits[n]) - logits[n, labels[n]])  (sum_n for reduction=\"sum\")";
    s.infer = [](const ShapeContext& ctx) {
      check_logits_labels(ctx, 0, 1);
      reduction_attr(ctx);
      return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), {})};
    };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
      Attrs a;
      if (c.attrs().has("reduction")) a.set("reduction", c.attrs().s("reduction"));
      c.set_grad(0, c.emit("CrossEntropyBackward", {c.grad_output(0), c.input(0), c.input(1)}, a));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "CrossEntropyBackward";
    s.inputs = {"grad_loss", "logits", "labels"};
    s.outputs = {"dlogits"};
    s.dispatch_input = 1;
    s.formula = "dlogits = (softmax(logits) - onehot(labels)) * grad_loss / N  (no / N for reduction=\"sum\")";
    s.infer = [](const ShapeContext& ctx) {
      check_logits_labels(ctx, 1, 2);
      reduction_attr(ctx);
      ctx.expect_same_dtype(1, 0);
      if (ctx.in(0).rank() != 0) {
        ctx.fail(ErrorMessage("grad_loss must be 0-d (the loss is a scalar), got " + shape_str(ctx.in(0).shape)));
      }
      return std::vector<TensorInfo>{ctx.in(1)};
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
