// Optimizer updates, written in place into the parameter and state buffers (so that a plan
// updates persistent buffers at fixed addresses). PyTorch's rules (torch.optim.SGD with
// dampening 0, torch.optim.Adam with L2 weight decay):
//
//   SGDUpdate(param, grad, lr []){weight_decay} -> param'
//       p -= lr * (g + wd * p)
//   SGDMomentumUpdate(param, grad, lr [], buf){momentum, weight_decay, nesterov} -> (param', buf')
//       d = g + wd * p;  buf = momentum * buf + d;  d = nesterov ? d + momentum * buf : buf;
//       p -= lr * d.   (buf starts at zeros: with dampening 0 that equals PyTorch's first-step
//       buf = d.)
//   AdamUpdate(param, grad, lr [], m, v, step [] int64){beta1, beta2, eps, weight_decay}
//       -> (param', m', v', step')
//       t = step + 1;  d = g + wd * p;  m = b1*m + (1-b1)*d;  v = b2*v + (1-b2)*d^2;
//       p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps);  step = t.
//
// lr (and step) are 0-d tensors rather than attributes: a learning-rate schedule then changes
// no graph signature and hits the same cached plan. These ops have no gradient rule.
#include "op_helpers.h"

namespace glassgrad {

namespace {

// Input i must have the parameter's (input 0's) shape and dtype; `what` names it.
void expect_like_param(const ShapeContext& ctx, int i, const std::string& what) {
  const TensorInfo& p = ctx.in(0);
  const TensorInfo& t = ctx.in(i);
  if (t.shape != p.shape) {
    ctx.fail(ErrorMessage(what + " has shape " + shape_str(t.shape) + " but the parameter has shape " +
                          shape_str(p.shape))
                 .detail("param: " + p.str())
                 .detail(what + ": " + t.str())
                 .cause(what == "grad" ? "the gradient belongs to another parameter"
                                       : "the optimizer state was created for another parameter")
                 .fix(what == "grad" ? "pass each parameter with its own .grad"
                                     : "create the optimizer after the model, with model.parameters()"));
  }
  ctx.expect_same_dtype(0, i);
}

void expect_scalar(const ShapeContext& ctx, int i, const std::string& what, DType dt, const std::string& fix) {
  const TensorInfo& t = ctx.in(i);
  if (t.rank() == 0 && t.dtype == dt) return;
  ctx.fail(ErrorMessage(what + " must be a 0-d " + dtype_name(dt) + " tensor, got " + t.str())
               .cause(what == "lr" ? "the learning rate is a tensor with the parameter's dtype, so changing it "
                                     "does not recompile the step"
                                   : "the step count is one int64 number per parameter")
               .fix(fix),
           t.dtype != dt);
}

void expect_param_lr(const ShapeContext& ctx) {
  ctx.expect_float(0);
  expect_like_param(ctx, 1, "grad");
  const DType dt = ctx.in(0).dtype;
  expect_scalar(ctx, 2, "lr", dt, std::string("lr = np.array(0.01, dtype=np.") + dtype_name(dt) + ")");
}

double nonnegative(const ShapeContext& ctx, const char* key, double v) {
  if (!(v >= 0)) ops::bad_attr(ctx, key, ">= 0", std::to_string(v));
  return v;
}

double unit_interval(const ShapeContext& ctx, const char* key, double dflt) {
  const double v = ctx.attrs().f(key, dflt);
  if (!(v >= 0 && v < 1)) ops::bad_attr(ctx, key, "in [0, 1)", std::to_string(v), std::string(key) + "=0.9");
  return v;
}

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
  {
    OpSchema s;
    s.name = "SGDUpdate";
    s.strided_inputs = true;  // the gradient may be a view; param and state are in-place targets (dense)
    s.inputs = {"param", "grad", "lr"};
    s.outputs = {"param"};
    s.inplace = {{0, 0}};
    s.formula = "param -= lr * (grad + weight_decay * param)";
    s.infer = [](const ShapeContext& ctx) {
      expect_param_lr(ctx);
      nonnegative(ctx, "weight_decay", ctx.attrs().f("weight_decay", 0.0));
      return std::vector<TensorInfo>{ctx.in(0)};
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "SGDMomentumUpdate";
    s.strided_inputs = true;
    s.inputs = {"param", "grad", "lr", "buf"};
    s.outputs = {"param", "buf"};
    s.inplace = {{0, 0}, {1, 3}};
    s.formula = "d = grad + wd*param; buf = momentum*buf + d; param -= lr * (nesterov ? d + momentum*buf : buf)";
    s.infer = [](const ShapeContext& ctx) {
      expect_param_lr(ctx);
      expect_like_param(ctx, 3, "buf");
      nonnegative(ctx, "weight_decay", ctx.attrs().f("weight_decay", 0.0));
      const double m = nonnegative(ctx, "momentum", ctx.attrs().f("momentum"));
      if (ctx.attrs().b("nesterov", false) && m == 0) {
        ops::bad_attr(ctx, "momentum", "> 0 with nesterov=True", "0", "momentum=0.9, or nesterov=False");
      }
      return std::vector<TensorInfo>{ctx.in(0), ctx.in(3)};
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "AdamUpdate";
    s.strided_inputs = true;
    s.inputs = {"param", "grad", "lr", "m", "v", "step"};
    s.outputs = {"param", "m", "v", "step"};
    s.inplace = {{0, 0}, {1, 3}, {2, 4}, {3, 5}};
    s.formula = "t = step+1; m = b1*m + (1-b1)*d; v = b2*v + (1-b2)*d^2; "
                "param -= lr * m/(1-b1^t) / (sqrt(v/(1-b2^t)) + eps), d = grad + wd*param";
    s.infer = [](const ShapeContext& ctx) {
      expect_param_lr(ctx);
      expect_like_param(ctx, 3, "m");
      expect_like_param(ctx, 4, "v");
      expect_scalar(ctx, 5, "step", DType::Int64, "step = np.array(0, dtype=np.int64)");
      unit_interval(ctx, "beta1", 0.9);
      unit_interval(ctx, "beta2", 0.999);
      nonnegative(ctx, "eps", ctx.attrs().f("eps", 1e-8));
      nonnegative(ctx, "weight_decay", ctx.attrs().f("weight_decay", 0.0));
      return std::vector<TensorInfo>{ctx.in(0), ctx.in(3), ctx.in(4), ctx.in(5)};
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
