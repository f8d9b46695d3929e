// Batch normalization ops over (N, C, ...) inputs of 2 to 5 axes: (N, C), (N, C, L), (N, C, H, W),
// (N, C, D, H, W). Statistics per channel c (axis 1), over the M = N * (product of the axes after
// C) values of that channel; the kernels see x as [N, C, I] (I = that product), so one op serves
// BatchNorm1D, BatchNorm2D and batch_norm without a reshape, and the rules see the user's shape.
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
//   BatchNorm2DTrainUpdate(x, gamma, beta, running_mean, running_var, counter)
//       {eps, momentum, count, counter_add[, activation]}
//       -> (y, mean, var, running_mean, running_var, counter), the last three written in place:
//       BatchNorm2DTrain, then BatchNormUpdateStats on its mean and var, then counter +=
//       counter_add (an int64 scalar: a BatchNorm layer's num_batches_tracked), in one node.
//       Made by the fusion pass (fusion.h) from those three nodes of one layer, after the
//       gradients are built: no gradient rule (the backward reads its mean and var as it read
//       BatchNorm2DTrain's).
//
//
// Group normalization (Wu and He 2018; PyTorch's group_norm) over (N, C, ...) inputs of 2 or more
// axes: statistics per sample n and group k of the G = num_groups groups of C/G consecutive
// channels, over that group's channels and the axes after C (S = C/G * I values, contiguous).
//
//   GroupNorm(x[, weight[, bias]]){num_groups, eps} -> (y, mean, rstd)
//       mean = E[x], rstd = 1/sqrt(E[(x - mean)^2] + eps) per (n, k) ([N, G] each),
//       y = (x - mean) * rstd * weight[c] + bias[c] (weight 1, bias 0 when absent).
//   GroupNormBackward(grad_y, x, mean, rstd[, weight]){num_groups, eps} -> (dx, dweight, dbias)
//       with xhat = (x - mean) * rstd, g = grad_y, w = weight[c] (1 when absent), over a group:
//       dx = rstd * (g*w - sum(g*w)/S - xhat * sum(g*w*xhat)/S),
//       dweight = sum(g * xhat), dbias = sum(g) over N and the axes after C.
//       mean and rstd are saved for the backward only (the Python API returns y alone): a
//       gradient reaching them is refused (UnsupportedError) rather than dropped.
//
// BatchNorm2DBackward and BatchNorm2DInferenceBackward have gradient rules (norm_second_order.cpp:
// a second backward through batch norm), and so has GroupNormBackward
// (layer_group_norm_second_order.cpp); BatchNormUpdateStats has none (buffers).
//
// Checks: the rules check everything the inputs decide (x's rank, every per-channel vector
// against x's channels, dtypes, values per channel), for nn.BatchNorm* and functional
// batch_norm alike. When a BatchNorm layer recorded the node (NodeMeta::layer), an input whose
// channel count is not the layer's is said for the layer first (batchnorm_checks.h). Which
// ranks a layer takes (BatchNorm1D: 2 or 3 axes, BatchNorm2D: 4) is the layer's contract, not
// the op's, and stays with the Python layer.
#include "glassgrad/autodiff/families/norm.h"

#include "glassgrad/autodiff/batchnorm_checks.h"
#include "glassgrad/autodiff/family.h"
#include "glassgrad/autodiff/fusion.h"
#include "layer_group_norm_second_order.h"
#include "norm_second_order.h"
#include "op_helpers.h"

namespace glassgrad {

NormAttrs NormAttrs::from(const Attrs& a) {
  NormAttrs n;
  n.eps = a.f("eps", n.eps);
  n.momentum = a.f("momentum", n.momentum);
  n.count = a.i("count", n.count);
  n.counter_add = a.i("counter_add", n.counter_add);
  n.num_groups = a.i("num_groups", n.num_groups);
  return n;
}

NormGeometry NormGeometry::from(const Shape& x, const Attrs& a) {
  NormGeometry g;
  g.n = x.empty() ? 1 : x[0];
  g.c = x.size() > 1 ? x[1] : 1;
  for (size_t d = 2; d < x.size(); ++d) g.i *= x[d];
  g.attrs = NormAttrs::from(a);
  return g;
}

Attrs norm_backward_attrs(const Attrs& a) {
  Attrs out;
  for (const char* key : {"eps", "num_groups"}) {
    if (const AttrValue* v = a.find(key)) out.set(key, *v);
  }
  return out;
}

namespace {

double eps_attr(const ShapeContext& ctx) {
  const double eps = NormAttrs::from(ctx.attrs()).eps;
  if (!(eps >= 0)) ops::bad_attr(ctx, "eps", ">= 0", std::to_string(eps), "eps=1e-5");
  return eps;
}

// The layer class that normalizes x's rank, for fixes: "BatchNorm1D", "BatchNorm2D", or "" (5 axes).
std::string layer_class_for(const TensorInfo& x) {
  return x.rank() <= 3 ? "BatchNorm1D" : x.rank() == 4 ? "BatchNorm2D" : "";
}

// How functional batch_norm names the op's inputs (its arguments weight and bias are gamma and beta).
std::string argument_name(const std::string& input) {
  return input == "gamma" ? "gamma (batch_norm's weight)" : input == "beta" ? "beta (batch_norm's bias)" : input;
}

// Input i must be a [C] vector with x's dtype (x is input xi). `what` names it in messages.
void expect_channel_vector(const ShapeContext& ctx, int i, int xi, const std::string& what) {
  const TensorInfo& x = ctx.in(xi);
  const TensorInfo& v = ctx.in(i);
  const int64_t c = x.shape[1];
  if (v.shape != Shape{c}) {
    const std::string cs = std::to_string(c), cls = layer_class_for(x);
    ctx.fail(ErrorMessage(what + " has shape " + shape_str(v.shape) + ", expected [" + cs + "] (one value per channel)")
                 .detail("x:    " + x.str())
                 .detail(what + ": " + v.str())
                 .cause("the layer was built for a different number of channels")
                 .fix((cls.empty() ? "" : "build the layer as " + cls + "(" + cs + "), or ") + "give " +
                      argument_name(what) + " shape [" + cs + "]"));
  }
  ctx.expect_same_dtype(xi, i);
}

// x (input i): a float (N, C, ...) tensor of 2 to 5 axes.
void expect_channels_first_float(const ShapeContext& ctx, int i) {
  const TensorInfo& x = ctx.in(i);
  if (x.rank() < 2 || x.rank() > 5) {
    ctx.fail(ErrorMessage("expected a 2-d to 5-d input (N, C, ...), got " + std::to_string(x.rank()) + "-d " +
                          shape_str(x.shape))
                 .fix("batch norm normalizes axis 1 (channels) over the batch and the other axes"));
  }
  ctx.expect_float(i);
}

// A layer's class, as messages name layers: "BatchNorm1D 'head.1'" -> "BatchNorm1D".
std::string class_of(const std::string& layer) { return layer.substr(0, layer.find(' ')); }

// The class of the BatchNorm layer that recorded the node (SyncBatchNorm and subclasses named
// ...BatchNorm... too), or "" when none did: a functional batch_norm, or another module calling
// it, whose class would be no fix.
std::string batchnorm_layer_class(const std::string& layer) {
  std::string cls = class_of(layer);
  return cls.find("BatchNorm") == std::string::npos ? std::string() : cls;
}

// x (input 0) of the layer's channel count, said for the layer: its gamma (input 1) is the layer's
// weight, or ones of its num_features when it has none (nn/batchnorm.py).
void expect_layer_channels(const ShapeContext& ctx) {
  const std::string& layer = ctx.meta().layer;
  if (batchnorm_layer_class(layer).empty() || ctx.in(1).rank() != 1) return;
  check_batchnorm_channels(layer, ctx.in(0), ctx.in(1).shape[0]);
}

Shape channels(const TensorInfo& x) { return {x.shape[1]}; }

// N times the axes after C: the values each channel's statistics are taken over (<= numel: no
// overflow).
int64_t values_per_channel(const Shape& s) {
  int64_t m = s[0];
  for (size_t i = 2; i < s.size(); ++i) m *= s[i];
  return m;
}

// Batch statistics need at least 2 values per channel (M >= 2): of one value the mean is
// x and the variance 0 (the output would be beta whatever x is), and of none (an empty batch)
// both are undefined: computing them anyway gave NaN gradients and, worse, running statistics
// updated with zeros. Channels-free inputs (C = 0) have nothing to normalize and pass.
void expect_batch_statistics(const ShapeContext& ctx, int input) {
  const TensorInfo& x = ctx.in(input);
  if (x.shape[1] == 0) return;
  const int64_t m = values_per_channel(x.shape);
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
               .cause("a batch of one image whose feature map is 1x1, or of one sample of (N, C) input")
               .fix("use a batch of at least 2, or call model.eval() to normalize with the running statistics"));
}

// The backward ops' rule: grad_y and x (inputs 0 and 1) (N, C, ...) floats of one shape and dtype, then
// the per-channel vectors `vectors` from input 2 on (those present); outputs dx (like x) and
// `stats` per-channel gradients. batch_statistics: x must hold 2 or more values per channel.
std::vector<TensorInfo> backward_infer(const ShapeContext& ctx, const std::vector<const char*>& vectors, int stats,
                                       bool batch_statistics) {
  expect_channels_first_float(ctx, 1);
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

// The training ops' rule, in two halves around what only one of them has (the residual, the
// running statistics): x, its layer's channels, gamma and beta; then eps, the activation, at
// least 2 values per channel, and the outputs y, mean, var.
void expect_training_inputs(const ShapeContext& ctx) {
  expect_channels_first_float(ctx, 0);
  expect_layer_channels(ctx);
  expect_channel_vector(ctx, 1, 0, "gamma");
  expect_channel_vector(ctx, 2, 0, "beta");
}
std::vector<TensorInfo> training_outputs(const ShapeContext& ctx) {
  eps_attr(ctx);
  ops::check_activation_attr(ctx);
  expect_batch_statistics(ctx, 0);
  const TensorInfo& x = ctx.in(0);
  const TensorInfo stat = ops::with_shape(x, channels(x));
  return std::vector<TensorInfo>{x, stat, stat};
}

void momentum_attr(const ShapeContext& ctx) {
  const double m = NormAttrs::from(ctx.attrs()).momentum;
  if (!(m >= 0 && m <= 1)) ops::bad_attr(ctx, "momentum", "in [0, 1]", std::to_string(m), "momentum=0.1");
}

}  // namespace

void check_batchnorm_channels(const std::string& layer, const TensorInfo& x, int64_t num_features) {
  if (x.rank() < 2 || x.shape[1] == num_features) return;
  const std::string c = std::to_string(x.shape[1]);
  throw ShapeError(layer + ": " +
                   ErrorMessage("the input has " + c + " channels (axis 1) but the layer normalizes " +
                                std::to_string(num_features))
                       .detail("input: " + x.str())
                       .fix("build the layer as " + class_of(layer) + "(" + c + ")")
                       .str());
}

void check_batchnorm_running_stats(const std::string& where, const TensorInfo& running_mean,
                                   const TensorInfo& running_var, const TensorInfo& mean, const TensorInfo& var) {
  // mean and var are the batch's statistics (BatchNorm2DTrain's [C] outputs): a running
  // statistic of another shape is the one to fix.
  const std::pair<const char*, const TensorInfo*> others[] = {
      {"var", &var}, {"running_mean", &running_mean}, {"running_var", &running_var}};
  for (const auto& [name, t] : others) {
    if (t->shape == mean.shape) continue;
    const std::string what = name;
    ErrorMessage msg(what + " has shape " + shape_str(t->shape) + " but the batch mean has shape " + shape_str(mean.shape));
    msg.detail(what + ": " + t->str()).detail("mean: " + mean.str());
    if (t == &var) {
      msg.cause("mean and var come from different batches");
    } else {
      msg.cause("the running statistics were made for a different number of channels")
          .fix("give " + what + " shape " + shape_str(mean.shape) + " (one value per channel of the input)");
    }
    throw ShapeError(where + ": " + msg.str());
  }
}

// attrs "activation": "none" (default) or "relu": y = relu(batchnorm(x)) in one pass. Set by
// the fusion pass (fusion.h, fused_relu); the gradient first passes through ReLUBackward(g, y).

// The rules of each row of families/norm.def.
namespace {

// GroupNorm's input (input xi): float, (N, C, ...) of 2 or more axes, C divisible by num_groups
// (required, >= 1); eps >= 0. Returns the family's geometry.
NormGeometry group_norm_geometry(const ShapeContext& ctx, int xi) {
  const TensorInfo& x = ctx.in(xi);
  if (x.rank() < 2) {
    ctx.fail(ErrorMessage("expected an input (N, C, ...) of 2 or more axes, got " + std::to_string(x.rank()) + "-d " +
                          shape_str(x.shape))
                 .cause("group norm normalizes groups of channels (axis 1) of each sample (axis 0)")
                 .fix("give the input a batch axis: x.reshape(1, *x.shape)"));
  }
  ctx.expect_float(xi);
  (void)ctx.attrs().i("num_groups");  // required: a missing one is reported by the attribute reader
  const NormGeometry g = NormGeometry::from(x.shape, ctx.attrs());
  if (g.groups() < 1) {
    ops::bad_attr(ctx, "num_groups", ">= 1", std::to_string(g.groups()), "num_groups=1 (one group: all channels)");
  }
  if (g.c % g.groups() != 0) {
    int64_t divisor = g.groups();  // the nearest smaller number of groups that divides C
    while (divisor > 1 && g.c % divisor != 0) --divisor;
    const std::string cs = std::to_string(g.c), gs = std::to_string(g.groups());
    ctx.fail(ErrorMessage("the input's " + cs + " channels cannot be split into num_groups=" + gs + " groups")
                 .detail("x: " + x.str())
                 .cause("each group holds C / num_groups channels, so num_groups must divide the channels")
                 .fix("num_groups=" + std::to_string(divisor) + " (a divisor of " + cs + "), or an input of a multiple of " +
                      gs + " channels"));
  }
  eps_attr(ctx);
  return g;
}

// weight or bias (input i, named `what`) of GroupNorm: a [C] vector of x's (input xi's) dtype.
void expect_group_norm_vector(const ShapeContext& ctx, int i, int xi, const std::string& what, const NormGeometry& g) {
  const TensorInfo& v = ctx.in(i);
  if (v.shape != Shape{g.c}) {
    const std::string cs = std::to_string(g.c);
    ErrorMessage m(what + " has shape " + shape_str(v.shape) + ", expected [" + cs + "] (one value per channel)");
    m.detail("x:      " + ctx.in(xi).str()).detail(what + ": " + v.str());
    if (class_of(ctx.meta().layer) == "GroupNorm" && v.rank() == 1) {  // said for the layer
      m.cause("the layer was built for " + std::to_string(v.shape[0]) + " channels and the input has " + cs)
          .fix("build the layer as GroupNorm(" + std::to_string(g.groups()) + ", " + cs + ")");
      throw ShapeError(ctx.layer_where() + ": " + m.str());
    } else {
      m.fix("give " + what + " shape [" + cs + "]");
    }
    ctx.fail(m);
  }
  ctx.expect_same_dtype(xi, i);
}

// GroupNorm's saved statistics (input i, named `what`): [N, num_groups] of x's dtype.
void expect_group_statistics(const ShapeContext& ctx, int i, int xi, const std::string& what, const NormGeometry& g) {
  const Shape want{g.n, g.groups()};
  if (ctx.in(i).shape != want) {
    ctx.fail(ErrorMessage(what + " has shape " + shape_str(ctx.in(i).shape) + ", expected " + shape_str(want) +
                          " (one value per sample and group)")
                 .cause("it does not come from GroupNorm of this input and num_groups"));
  }
  ctx.expect_same_dtype(xi, i);
}

void batch_norm_train(OpSchema& s) {
  s.layer_parameter = "weight";  // gamma: the layer's weight
  s.infer = [](const ShapeContext& ctx) {
    expect_training_inputs(ctx);
    if (ctx.num_inputs() > 3) {
      ctx.expect_same_dtype(0, 3);
      if (ctx.in(3).shape != ctx.in(0).shape) {
        ctx.fail(ErrorMessage("the residual has shape " + shape_str(ctx.in(3).shape) + ", expected x's " +
                              shape_str(ctx.in(0).shape))
                     .fix("add a residual of the normalized tensor's shape"));
      }
    }
    return training_outputs(ctx);
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
    const auto d = c.emit_multi("BatchNorm2DBackward", in, norm_backward_attrs(c.attrs()));
    for (int i = 0; i < 3; ++i) {
      if (c.needs_grad(i)) c.set_grad(i, d[static_cast<size_t>(i)]);
    }
  };
}

void batch_norm_backward(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    return backward_infer(ctx, {"gamma", "mean", "var", "grad_mean", "grad_var"}, 2, true);
  };
  s.gradient = ops::batch_norm_backward_gradient;
}

void batch_norm_inference(OpSchema& s) {
  s.layer_parameter = "weight";  // gamma: the layer's weight
  s.infer = [](const ShapeContext& ctx) {
    expect_channels_first_float(ctx, 0);
    expect_layer_channels(ctx);
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
                                norm_backward_attrs(c.attrs()));
    // Outputs (dx, dgamma, dbeta, drunning_mean, drunning_var) line up with inputs 0, 1, 2, 3, 4.
    for (int i = 0; i < 5; ++i) {
      if (c.needs_grad(i)) c.set_grad(i, d[static_cast<size_t>(i)]);
    }
  };
}

void batch_norm_inference_backward(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    return backward_infer(ctx, {"gamma", "running_mean", "running_var"}, 4, false);
  };
  s.gradient = ops::batch_norm_inference_backward_gradient;
}

void batch_norm_update_stats(OpSchema& s) {
  s.inplace = {{0, 0}, {1, 1}};
  s.infer = [](const ShapeContext& ctx) {
    const TensorInfo& rm = ctx.in(0);
    ctx.expect_float(0);
    if (rm.rank() != 1) {
      ctx.fail(ErrorMessage("running_mean must be a vector [C], got " + shape_str(rm.shape)));
    }
    check_batchnorm_running_stats(ctx.where(), rm, ctx.in(1), ctx.in(2), ctx.in(3));
    for (int i = 1; i < 4; ++i) ctx.expect_same_dtype(0, i);
    momentum_attr(ctx);
    const int64_t count = ctx.attrs().i("count");
    if (count < 2) {
      ops::bad_attr(ctx, "count", ">= 2 (the values per channel of the batch: N times the axes after C)", std::to_string(count));
    }
    return std::vector<TensorInfo>{rm, ctx.in(1)};
  };
}

void batch_norm_train_update(OpSchema& s) {
  s.layer_parameter = "weight";
  s.inplace = {{3, 3}, {4, 4}, {5, 5}};
  s.stops_gradient = true;
  s.infer = [](const ShapeContext& ctx) {
    expect_training_inputs(ctx);
    expect_channel_vector(ctx, 3, 0, "running_mean");
    expect_channel_vector(ctx, 4, 0, "running_var");
    if (ctx.in(0).shape[1] == 0) {  // the fusion pass leaves such layers unfused
      ctx.fail(ErrorMessage("x has no channels: there are no running statistics to update")
                   .fix("use BatchNorm2DTrain and BatchNormUpdateStats"));
    }
    ctx.expect_dtype(5, DType::Int64);
    if (ctx.in(5).numel() != 1) {
      ctx.fail(ErrorMessage("counter must hold one value (num_batches_tracked), got shape " + shape_str(ctx.in(5).shape)));
    }
    std::vector<TensorInfo> out = training_outputs(ctx);
    momentum_attr(ctx);
    if (ctx.attrs().i("count") != values_per_channel(ctx.in(0).shape)) {
      ops::bad_attr(ctx, "count", "x's values per channel (N times the axes after C)",
                    std::to_string(ctx.attrs().i("count")));
    }
    (void)ctx.attrs().i("counter_add");
    out.insert(out.end(), {ctx.in(3), ctx.in(4), ctx.in(5)});
    return out;
  };
}

void group_norm(OpSchema& s) {
  s.layer_parameter = "weight";
  s.infer = [](const ShapeContext& ctx) {
    const NormGeometry g = group_norm_geometry(ctx, 0);
    if (ctx.num_inputs() > 1) expect_group_norm_vector(ctx, 1, 0, "weight", g);
    if (ctx.num_inputs() > 2) expect_group_norm_vector(ctx, 2, 0, "bias", g);
    const TensorInfo stat = ops::with_shape(ctx.in(0), Shape{g.n, g.groups()});
    return std::vector<TensorInfo>{ctx.in(0), stat, stat};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(1) != kNoValue || c.grad_output(2) != kNoValue) {
      throw UnsupportedError(ErrorMessage(node_where("GroupNorm", c.node().meta.scope) +
                                          ": a gradient reaches the saved mean or rstd, which has no rule")
                                 .cause("they are GroupNorm's statistics for its backward, not meant to be computed with")
                                 .fix("compute the statistics with x.mean() and x.var() where a gradient must "
                                      "flow through them")
                                 .str());
    }
    const bool affine = c.num_inputs() > 1;
    bool any = c.needs_grad(0);
    for (int i = 1; i < c.num_inputs(); ++i) any = any || c.needs_grad(i);
    if (c.grad_output(0) == kNoValue || !any) return;
    std::vector<ValueId> in = {c.grad_output(0), c.input(0), c.output(1), c.output(2)};
    if (affine) in.push_back(c.input(1));
    const auto d = c.emit_multi("GroupNormBackward", in, norm_backward_attrs(c.attrs()));
    // Outputs (dx, dweight, dbias) line up with inputs (x, weight, bias).
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (c.needs_grad(i)) c.set_grad(i, d[static_cast<size_t>(i)]);
    }
  };
}

void group_norm_backward(OpSchema& s) {
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    const NormGeometry g = group_norm_geometry(ctx, 1);
    ctx.expect_same_dtype(1, 0);
    ops::expect_same_shape(ctx, 0, 1, "grad_y", "x");
    expect_group_statistics(ctx, 2, 1, "mean", g);
    expect_group_statistics(ctx, 3, 1, "rstd", g);
    if (ctx.num_inputs() > 4) expect_group_norm_vector(ctx, 4, 1, "weight", g);
    const TensorInfo vec = ops::with_shape(ctx.in(1), Shape{g.c});
    return std::vector<TensorInfo>{ctx.in(1), vec, vec};
  };
  s.gradient = ops::group_norm_backward_gradient;
}

}  // namespace

// --8<-- [start:register]
void register_norm_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/norm.def"
}
// --8<-- [end:register]

}  // namespace glassgrad
