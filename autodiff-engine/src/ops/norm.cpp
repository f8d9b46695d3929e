// Batch normalization ops over NCHW inputs (statistics per channel c, over M = N*H*W values).
//
//   BatchNorm2DTrain(x, gamma, beta[, residual]){eps} -> (y, mean, var)
//       mean = E[x], var = E[(x - mean)^2] (biased: the variance used to normalize),
//       y = gamma * (x - mean) / sqrt(var + eps) + beta [+ residual].
//       The residual (x's shape) is set by the fusion pass for a residual block's
//       BatchNorm -> Add (-> ReLU) (fusion.h): its gradient is grad_y (after the ReLU's).
//   BatchNorm2DBackward(grad_y, x, gamma, mean, var[, grad_mean, grad_var]){eps} -> (dx, dgamma, dbeta)
//       with invstd = 1/sqrt(var + eps), xhat = (x - mean) * invstd:
//       dbeta = sum(g), dgamma = sum(g * xhat),
//       dx = gamma * invstd / M * (M*g - sum(g) - xhat * sum(g * xhat))
//            + grad_mean / M + grad_var * 2 * (x - mean) / M.
//       The last line is the gradient through the mean and var outputs: usually nothing flows
//       there (they only feed BatchNormUpdateStats, which has no gradient), and the rule then
//       leaves the optional inputs out.
//   BatchNorm2DInference(x, gamma, beta, running_mean, running_var){eps} -> y
//       y = gamma * (x - running_mean) / sqrt(running_var + eps) + beta.
//   BatchNorm2DInferenceBackward(grad_y, x, gamma, running_mean, running_var){eps}
//       -> (dx, dgamma, dbeta, drunning_mean, drunning_var)
//       dx = g * gamma * invstd, dgamma = sum(g * xhat), dbeta = sum(g),
//       drunning_mean = -gamma * invstd * sum(g), drunning_var = -gamma * invstd^2 / 2 * sum(g * xhat).
//       (The running statistics are buffers and rarely need a gradient; the two extra [C]
//       outputs cost nothing and make the op an honest function of all its inputs.)
//   BatchNormUpdateStats(running_mean, running_var, mean, var){momentum, count} -> written in place
//       running_mean = (1 - momentum) * running_mean + momentum * mean
//       running_var  = (1 - momentum) * running_var  + momentum * var * count / (count - 1)
//       (PyTorch keeps the unbiased variance in running_var; count = M of the batch.)
//
// The two backward ops have no gradient rule (no double backward through batch norm: it
// raises UnsupportedError naming the op); BatchNormUpdateStats has none either (buffers).
#include "glassgrad/autodiff/fusion.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

double eps_attr(const ShapeContext& ctx) {
  const double eps = ctx.attrs().f("eps", 1e-5);
  if (!(eps >= 0)) ops::bad_attr(ctx, "eps", ">= 0", std::to_string(eps), "eps=1e-5");
  return eps;
}

// Input i must be a [C] vector with x's dtype (x is input xi). `what` names it in messages.
void expect_channel_vector(const ShapeContext& ctx, int i, int xi, const std::string& what) {
  const TensorInfo& x = ctx.in(xi);
  const TensorInfo& v = ctx.in(i);
  const int64_t c = x.shape[1];
  if (v.shape != Shape{c}) {
    ctx.fail(ErrorMessage(what + " has shape " + shape_str(v.shape) + ", expected [" + std::to_string(c) +
                          "] (one value per channel)")
                 .detail("x:    " + x.str())
                 .detail(what + ": " + v.str())
                 .cause("the layer was built for a different number of channels")
                 .fix("build the layer as BatchNorm2D(" + std::to_string(c) + ")"));
  }
  ctx.expect_same_dtype(xi, i);
}

void expect_nchw_float(const ShapeContext& ctx, int i) {
  ctx.expect_rank(i, 4, "NCHW");
  ctx.expect_float(i);
}

Shape channels(const TensorInfo& x) { return {x.shape[1]}; }

// Batch statistics need at least 2 values per channel (N * H * W >= 2): of one value the mean is
// x and the variance 0 (the output would be beta whatever x is), and of none (an empty batch)
// both are undefined: computing them anyway gave NaN gradients and, worse, running statistics
// updated with zeros. Channels-free inputs (C = 0) have nothing to normalize and pass.
void expect_batch_statistics(const ShapeContext& ctx, int input) {
  const TensorInfo& x = ctx.in(input);
  if (x.shape[1] == 0) return;
  const int64_t m = x.shape[0] * x.shape[2] * x.shape[3];  // <= numel: no overflow
  if (m >= 2) return;
  if (m == 0) {
    ctx.fail(ErrorMessage("training on an empty batch: input " + shape_str(x.shape) + " has no values per channel")
                 .detail("the batch mean and variance of no values are undefined")
                 .cause("a slice that selected nothing (e.g. the last batch of a loader past the end of the data)")
                 .fix("skip empty batches, or call model.eval() to normalize with the running statistics"));
  }
  ctx.fail(ErrorMessage("training needs more than 1 value per channel, got input " + shape_str(x.shape))
               .detail("the batch statistics of one value are mean = x and variance 0, so the output "
                       "would be beta whatever x is")
               .cause("a batch of one image whose feature map is 1x1")
               .fix("use a batch of at least 2, or call model.eval() to normalize with the running statistics"));
}

// The backward ops' rule: grad_y and x (inputs 0 and 1) NCHW floats of one shape and dtype, then
// the per-channel vectors `vectors` from input 2 on (those present); outputs dx (like x) and
// `stats` per-channel gradients. batch_statistics: x must hold 2 or more values per channel.
std::vector<TensorInfo> backward_infer(const ShapeContext& ctx, const std::vector<const char*>& vectors, int stats,
                                       bool batch_statistics) {
  expect_nchw_float(ctx, 1);
  ctx.expect_same_dtype(1, 0);
  ops::expect_same_shape(ctx, 0, 1, "grad_y", "x");
  if (batch_statistics) expect_batch_statistics(ctx, 1);
  for (int i = 2; i < ctx.num_inputs() && i - 2 < static_cast<int>(vectors.size()); ++i) {
    expect_channel_vector(ctx, i, 1, vectors[static_cast<size_t>(i - 2)]);
  }
  eps_attr(ctx);
  std::vector<TensorInfo> out{ctx.in(1)};
  out.resize(static_cast<size_t>(1 + stats), ops::with_shape(ctx.in(1), channels(ctx.in(1))));
  return out;
}

}  // namespace

// attrs "activation": "none" (default) or "relu": y = relu(batchnorm(x)) in one pass. Set by
// the fusion pass (fusion.h, fused_relu); the gradient first passes through ReLUBackward(g, y).

void register_norm_ops(OpRegistry& r) {
  {
    OpSchema s;
    s.name = "BatchNorm2DTrain";
    s.layer_parameter = "weight";  // gamma: the layer's weight
    s.inputs = {"x", "gamma", "beta", "residual"};
    s.min_inputs = 3;
    s.outputs = {"y", "mean", "var"};
    s.formula = "y = gamma * (x - mean) / sqrt(var + eps) + beta [+ residual], mean/var (biased) over N, H, W per channel";
    s.infer = [](const ShapeContext& ctx) {
      expect_nchw_float(ctx, 0);
      expect_channel_vector(ctx, 1, 0, "gamma");
      expect_channel_vector(ctx, 2, 0, "beta");
      if (ctx.num_inputs() > 3) {
        ctx.expect_same_dtype(0, 3);
        if (ctx.in(3).shape != ctx.in(0).shape) {
          ctx.fail(ErrorMessage("the residual has shape " + shape_str(ctx.in(3).shape) + ", expected x's " +
                                shape_str(ctx.in(0).shape))
                       .fix("add a residual of the normalized tensor's shape"));
        }
      }
      eps_attr(ctx);
      ops::check_activation_attr(ctx);
      expect_batch_statistics(ctx, 0);
      const TensorInfo& x = ctx.in(0);
      const TensorInfo stat = ops::with_shape(x, channels(x));
      return std::vector<TensorInfo>{x, stat, stat};
    };
    s.gradient = [](GradContext& c) {
      const bool residual = c.num_inputs() > 3;
      if (!c.needs_grad(0) && !c.needs_grad(1) && !c.needs_grad(2) && !(residual && c.needs_grad(3))) return;
      const ValueId x = c.input(0);
      const TensorInfo& xi = c.info(x);
      auto zeros = [&](const Shape& shape) {
        return c.emit("Full", {}, Attrs{{"shape", shape}, {"value", 0.0},
                                        {"dtype", std::string(dtype_name(xi.dtype))}, {"device", xi.device.str()}});
      };
      ValueId gy = c.grad_output(0);
      const ValueId gmean = c.grad_output(1), gvar = c.grad_output(2);
      if (gy != kNoValue && fused_relu(c.attrs())) gy = c.emit("ReLUBackward", {gy, c.output(0)});
      if (residual && c.needs_grad(3) && gy != kNoValue) c.set_grad(3, gy);  // d(y)/d(residual) = 1
      if (!c.needs_grad(0) && !c.needs_grad(1) && !c.needs_grad(2)) return;
      if (gy == kNoValue) gy = zeros(xi.shape);
      std::vector<ValueId> in = {gy, x, c.input(1), c.output(1), c.output(2)};
      if (gmean != kNoValue || gvar != kNoValue) {
        in.push_back(gmean != kNoValue ? gmean : zeros(channels(xi)));
        in.push_back(gvar != kNoValue ? gvar : zeros(channels(xi)));
      }
      const auto d = c.emit_multi("BatchNorm2DBackward", in, Attrs{{"eps", c.attrs().f("eps", 1e-5)}});
      for (int i = 0; i < 3; ++i) {
        if (c.needs_grad(i)) c.set_grad(i, d[static_cast<size_t>(i)]);
      }
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "BatchNorm2DBackward";
    s.inputs = {"grad_y", "x", "gamma", "mean", "var", "grad_mean", "grad_var"};
    s.min_inputs = 5;
    s.outputs = {"dx", "dgamma", "dbeta"};
    s.dispatch_input = 1;
    s.formula = "dx = gamma*invstd/M * (M*g - sum(g) - xhat*sum(g*xhat)) [+ grad_mean/M + grad_var*2*(x-mean)/M]; "
                "dgamma = sum(g*xhat); dbeta = sum(g)";
    s.infer = [](const ShapeContext& ctx) {
      return backward_infer(ctx, {"gamma", "mean", "var", "grad_mean", "grad_var"}, 2, true);
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "BatchNorm2DInference";
    s.layer_parameter = "weight";  // gamma: the layer's weight
    s.inputs = {"x", "gamma", "beta", "running_mean", "running_var"};
    s.outputs = {"y"};
    s.formula = "y = gamma * (x - running_mean) / sqrt(running_var + eps) + beta, per channel";
    s.infer = [](const ShapeContext& ctx) {
      expect_nchw_float(ctx, 0);
      const char* names[] = {"", "gamma", "beta", "running_mean", "running_var"};
      for (int i = 1; i < 5; ++i) expect_channel_vector(ctx, i, 0, names[i]);
      eps_attr(ctx);
      ops::check_activation_attr(ctx);
      return std::vector<TensorInfo>{ctx.in(0)};
    };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      ValueId gy = c.grad_output(0);
      if (fused_relu(c.attrs())) gy = c.emit("ReLUBackward", {gy, c.output(0)});
      const auto d = c.emit_multi("BatchNorm2DInferenceBackward",
                                  {gy, c.input(0), c.input(1), c.input(3), c.input(4)},
                                  Attrs{{"eps", c.attrs().f("eps", 1e-5)}});
      // Outputs (dx, dgamma, dbeta, drunning_mean, drunning_var) line up with inputs 0, 1, 2, 3, 4.
      for (int i = 0; i < 5; ++i) {
        if (c.needs_grad(i)) c.set_grad(i, d[static_cast<size_t>(i)]);
      }
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "BatchNorm2DInferenceBackward";
    s.inputs = {"grad_y", "x", "gamma", "running_mean", "running_var"};
    s.outputs = {"dx", "dgamma", "dbeta", "drunning_mean", "drunning_var"};
    s.dispatch_input = 1;
    s.formula = "dx = g*gamma*invstd; dgamma = sum(g*xhat); dbeta = sum(g); "
                "drunning_mean = -gamma*invstd*sum(g); drunning_var = -gamma*invstd^2/2*sum(g*xhat)";
    s.infer = [](const ShapeContext& ctx) {
      return backward_infer(ctx, {"gamma", "running_mean", "running_var"}, 4, false);
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "BatchNormUpdateStats";
    s.inputs = {"running_mean", "running_var", "mean", "var"};
    s.outputs = {"running_mean", "running_var"};
    s.inplace = {{0, 0}, {1, 1}};
    s.formula = "running_mean = (1-m)*running_mean + m*mean; running_var = (1-m)*running_var + m*var*count/(count-1)";
    s.infer = [](const ShapeContext& ctx) {
      const TensorInfo& rm = ctx.in(0);
      ctx.expect_float(0);
      if (rm.rank() != 1) {
        ctx.fail(ErrorMessage("running_mean must be a vector [C], got " + shape_str(rm.shape)));
      }
      const char* names[] = {"running_mean", "running_var", "mean", "var"};
      for (int i = 1; i < 4; ++i) {
        if (ctx.in(i).shape != rm.shape) {
          ctx.fail(ErrorMessage(std::string(names[i]) + " has shape " + shape_str(ctx.in(i).shape) +
                                ", running_mean has shape " + shape_str(rm.shape))
                       .cause("the statistics come from a layer with a different number of channels"));
        }
        ctx.expect_same_dtype(0, i);
      }
      const double m = ctx.attrs().f("momentum", 0.1);
      if (!(m >= 0 && m <= 1)) ops::bad_attr(ctx, "momentum", "in [0, 1]", std::to_string(m), "momentum=0.1");
      const int64_t count = ctx.attrs().i("count");
      if (count < 2) {
        ops::bad_attr(ctx, "count", ">= 2 (the N*H*W values per channel of the batch)", std::to_string(count));
      }
      return std::vector<TensorInfo>{rm, ctx.in(1)};
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
