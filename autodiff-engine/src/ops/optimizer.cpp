// Optimizer updates, written in place into the parameter and state buffers (so that a plan
// updates persistent buffers at fixed addresses). PyTorch's rules (torch.optim.SGD, Adam, AdamW;
// torch/optim/sgd.py and adam.py, single-tensor form), with d = grad + wd * param (L2 decay):
//
//   SGDUpdate(param, grad, lr []){weight_decay} -> param'
//       p -= lr * d
//   SGDMomentumUpdate(param, grad, lr [], buf, momentum []){weight_decay, dampening, nesterov}
//       -> (param', buf')
//       buf = momentum * buf + (1 - dampening) * d;  d = nesterov ? d + momentum * buf : buf;
//       p -= lr * d.   PyTorch's first step sets buf = d (no dampening); buf starts at zeros, so
//       the optimizer records its first step with dampening 0, which gives exactly that.
//   AdamUpdate(param, grad, lr [], beta1 [], m, v, step [] float32, float64 or int64)
//       {beta2, eps, weight_decay, decoupled_weight_decay} -> (param', m', v', step')
//       t = step + 1;  if decoupled (AdamW): p *= 1 - lr * wd and d = grad, else d = grad + wd * p;
//       m = b1*m + (1-b1)*d;  v = b2*v + (1-b2)*d^2;
//       p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps);  step = t.
//   AdamAMSGradUpdate(param, grad, lr [], beta1 [], m, v, v_max, step [] float32, float64 or int64){same attrs}
//       -> (param', m', v', v_max', step')
//       as AdamUpdate, then v_max = max(v_max, v) and v_max replaces v in the denominator.
//   Optimizers without an update op of their own (RMSprop) and BatchNorm's num_batches_tracked
//   update state through Assign(target, value) -> target', a row of families/movement.def (its
//   kernels are the movement family's copies): target's buffer takes value's elements (same
//   shape and dtype; value may be strided and must not overlap target other than exactly).
//
// lr, momentum and beta1 (and step) are 0-d tensors rather than attributes: the schedules that
// change them every step (StepLR, OneCycleLR with cycle_momentum) change no graph signature and
// hit the same cached plan or the same captured CUDA graph. These ops have no gradient rule.
#include "glassgrad/autodiff/families/optimizer.h"

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

OptimizerAttrs OptimizerAttrs::from(const Attrs& a) {
  OptimizerAttrs o;
  o.weight_decay = a.f("weight_decay", o.weight_decay);
  o.dampening = a.f("dampening", o.dampening);
  o.nesterov = a.b("nesterov", o.nesterov);
  o.beta2 = a.f("beta2", o.beta2);
  o.eps = a.f("eps", o.eps);
  o.decoupled_weight_decay = a.b("decoupled_weight_decay", o.decoupled_weight_decay);
  return o;
}

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
               .cause("the " + what + " is a tensor with the parameter's dtype, so a schedule "
                      "that changes it does not recompile the step")
               .fix(fix),
           t.dtype != dt);
}

// The step count: a 0-d float32 or float64 tensor (PyTorch's optimizer.state[p]["step"]: float32,
// float64 under a float64 default dtype) or int64 (checkpoints of earlier versions).
void expect_step(const ShapeContext& ctx, int i) {
  const TensorInfo& t = ctx.in(i);
  const bool counted = t.dtype == DType::Float32 || t.dtype == DType::Float64 || t.dtype == DType::Int64;
  if (t.rank() == 0 && counted) return;
  ctx.fail(ErrorMessage("step must be a 0-d float32, float64 or int64 tensor, got " + t.str())
               .cause("the step count is one number per parameter")
               .fix("step = np.array(0.0, dtype=np.float32)"),
           !counted);
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

// Input i is a 0-d hyperparameter tensor (lr, momentum, beta1) with the parameter's dtype.
void expect_hyper(const ShapeContext& ctx, int i, const std::string& what) {
  const DType dt = ctx.in(0).dtype;
  expect_scalar(ctx, i, what, dt, what + " = np.array(0.9, dtype=np." + dtype_name(dt) + ")");
}

double unit_interval(const ShapeContext& ctx, const char* key, double v) {
  if (!(v >= 0 && v < 1)) ops::bad_attr(ctx, key, "in [0, 1)", std::to_string(v), std::string(key) + "=0.9");
  return v;
}

void sgd_update(OpSchema& s) {
  s.strided_inputs = true;  // the gradient may be a view; param and state are in-place targets (dense)
  s.inplace = {{0, 0}};
  s.infer = [](const ShapeContext& ctx) {
    expect_param_lr(ctx);
    nonnegative(ctx, "weight_decay", OptimizerAttrs::from(ctx.attrs()).weight_decay);
    return std::vector<TensorInfo>{ctx.in(0)};
  };
}

void sgd_momentum_update(OpSchema& s) {
  s.strided_inputs = true;
  s.inplace = {{0, 0}, {1, 3}};
  s.infer = [](const ShapeContext& ctx) {
    const OptimizerAttrs a = OptimizerAttrs::from(ctx.attrs());
    expect_param_lr(ctx);
    expect_like_param(ctx, 3, "buf");
    expect_hyper(ctx, 4, "momentum");
    nonnegative(ctx, "weight_decay", a.weight_decay);
    if (a.nesterov && a.dampening != 0) {
      ops::bad_attr(ctx, "dampening", "0 with nesterov=True", std::to_string(a.dampening),
                    "dampening=0, or nesterov=False");
    }
    return std::vector<TensorInfo>{ctx.in(0), ctx.in(3)};
  };
}

void adam(OpSchema& s, bool amsgrad) {
  s.strided_inputs = true;
  const int step_in = amsgrad ? 7 : 6;
  if (amsgrad) {
    s.inplace = {{0, 0}, {1, 4}, {2, 5}, {3, 6}, {4, 7}};
  } else {
    s.inplace = {{0, 0}, {1, 4}, {2, 5}, {3, 6}};
  }
  s.infer = [amsgrad, step_in](const ShapeContext& ctx) {
    const OptimizerAttrs a = OptimizerAttrs::from(ctx.attrs());
    expect_param_lr(ctx);
    expect_hyper(ctx, 3, "beta1");
    expect_like_param(ctx, 4, "m");
    expect_like_param(ctx, 5, "v");
    if (amsgrad) expect_like_param(ctx, 6, "v_max");
    expect_step(ctx, step_in);
    unit_interval(ctx, "beta2", a.beta2);
    nonnegative(ctx, "eps", a.eps);
    nonnegative(ctx, "weight_decay", a.weight_decay);
    std::vector<TensorInfo> out{ctx.in(0), ctx.in(4), ctx.in(5)};
    if (amsgrad) out.push_back(ctx.in(6));
    out.push_back(ctx.in(step_in));
    return out;
  };
}

void adam_update(OpSchema& s) { adam(s, false); }
void adam_amsgrad_update(OpSchema& s) { adam(s, true); }

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/optimizer.def"
}

}  // namespace glassgrad
