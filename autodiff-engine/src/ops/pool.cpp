// Pooling ops: MaxPool2D, MaxPool2DBackward, AvgPool2D, AvgPool2DBackward.
//
// Geometry (PyTorch semantics): for an input [N, C, H, W], window [kh, kw], stride [sh, sw]
// (default: the window) and symmetric zero padding [ph, pw],
//   Ho = floor((H + 2*ph - kh) / sh) + 1                 (ceil_mode false, the default)
//   Ho = ceil((H + 2*ph - kh) / sh) + 1, minus 1 if the last window would start at or past
//        H + ph (it must start inside the input or its left padding)      (ceil_mode true)
// and the same for Wo. Padding is at most half the window, so every window holds at least one
// real element and a padded position never wins a max. In ceil mode the last windows may reach
// past the padding; that overhang is neither read nor counted.
//
// AvgPool2D's divisor (PyTorch's): divisor_override when given (> 0); else with
// count_include_pad the window's size clipped to the padded input, (min(i*sh - ph + kh, H + ph)
// - (i*sh - ph)) times the same for columns (kh*kw except for ceil mode's overhang); without it
// the number of real elements in the window.
//
// MaxPool2D's gradient is MaxPool2DBackward(grad_y, x), which recomputes each window's argmax
// from x (first maximum wins on ties) instead of storing an index tensor.
// AvgPool2D's gradient is AvgPool2DBackward(grad_y) with the input shape as an attribute; that
// op is linear, and its own gradient is AvgPool2D again (the two are adjoint).
// MaxPool2DBackward has no gradient rule: differentiating through a max-pool gradient (double
// backward) raises UnsupportedError naming the op. With attrs activation="relu" (set by the
// fusion pass when x is a ReLU's output and ReLUBackward(dx, x) was the only reader of dx) it
// returns that ReLUBackward's result: dx[e] = x[e] > 0 ? dx[e] : 0.
#include "op_helpers.h"

namespace glassgrad {

namespace {

struct PoolGeometry {
  int64_t kh, kw, sh, sw, ph, pw, ho, wo;
};

std::string pair_str(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

const std::vector<int64_t>& pair_attr(const ShapeContext& ctx, const char* key) {
  const auto& v = ctx.attrs().ints(key);
  if (v.size() != 2) {
    ops::bad_attr(ctx, key, "a pair [rows, cols]", shape_str(v),
                  std::string(key) + "=[" + (v.empty() ? "2" : std::to_string(v[0])) + ", " +
                      (v.empty() ? "2" : std::to_string(v[0])) + "]");
  }
  return v;
}

// Output size along one axis (see the header): floor or ceil mode.
int64_t pooled_size(int64_t n, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  const int64_t span = n + 2 * p - k;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;
  return out;
}

// Validates the attributes against an NCHW input shape and returns the geometry.
PoolGeometry pool_geometry(const ShapeContext& ctx, const Shape& x) {
  const auto& k = pair_attr(ctx, "kernel");
  const std::vector<int64_t> s = ctx.attrs().has("stride") ? pair_attr(ctx, "stride") : k;
  const std::vector<int64_t> p = ctx.attrs().has("padding") ? pair_attr(ctx, "padding") : std::vector<int64_t>{0, 0};
  PoolGeometry g{k[0], k[1], s[0], s[1], p[0], p[1], 0, 0};
  if (g.kh < 1 || g.kw < 1) ops::bad_attr(ctx, "kernel", "at least [1, 1]", shape_str(k));
  if (g.sh < 1 || g.sw < 1) ops::bad_attr(ctx, "stride", "at least [1, 1]", shape_str(s), "stride=" + shape_str(k) + " (the window size) is the usual choice");
  if (g.ph < 0 || g.pw < 0 || 2 * g.ph > g.kh || 2 * g.pw > g.kw) {
    ctx.fail(ErrorMessage("padding " + shape_str(p) + " is too large for the " + std::to_string(g.kh) + "x" +
                          std::to_string(g.kw) + " window")
                 .detail("padding must be >= 0 and at most half the window: at most " +
                         pair_str(g.kh / 2, g.kw / 2) + " here")
                 .cause("with more padding a window could hold only padding")
                 .fix("padding=" + pair_str(g.kh / 2, g.kw / 2) + " (or a larger kernel)"));
  }
  const int64_t hp = x[2] + 2 * g.ph, wp = x[3] + 2 * g.pw;
  if (hp < g.kh || wp < g.kw) {
    ctx.fail(ErrorMessage("the " + std::to_string(g.kh) + "x" + std::to_string(g.kw) + " window does not fit in the " +
                          std::to_string(x[2]) + "x" + std::to_string(x[3]) + " input (padding " + shape_str(p) + ")")
                 .detail("input: " + shape_str(x))
                 .cause("the feature map was already shrunk by earlier conv/pool layers")
                 .fix("use a smaller kernel, add padding, or pool fewer times"));
  }
  const bool ceil_mode = ctx.attrs().b("ceil_mode", false);
  g.ho = pooled_size(x[2], g.kh, g.sh, g.ph, ceil_mode);
  g.wo = pooled_size(x[3], g.kw, g.sw, g.pw, ceil_mode);
  if (ctx.attrs().i("divisor_override", 0) < 0) {
    ops::bad_attr(ctx, "divisor_override", "> 0 (or absent)", std::to_string(ctx.attrs().i("divisor_override")));
  }
  return g;
}

Shape pooled_shape(const Shape& x, const PoolGeometry& g) { return {x[0], x[1], g.ho, g.wo}; }

// The shape rule shared by MaxPool2D and AvgPool2D.
TensorInfo pool_forward_info(const ShapeContext& ctx) {
  ctx.expect_rank(0, 4, "NCHW");
  ctx.expect_float(0);
  return ops::with_shape(ctx.in(0), pooled_shape(ctx.in(0).shape, pool_geometry(ctx, ctx.in(0).shape)));
}

// grad_y (input `gi`) must have the pooled shape of `x_shape` and the dtype of input `like`.
void expect_pooled_grad(const ShapeContext& ctx, int gi, const Shape& x_shape) {
  const Shape want = pooled_shape(x_shape, pool_geometry(ctx, x_shape));
  if (ctx.in(gi).shape != want) {
    ctx.fail(ErrorMessage("grad_y has shape " + shape_str(ctx.in(gi).shape) + ", the pooled output of " +
                          shape_str(x_shape) + " has shape " + shape_str(want))
                 .cause("the attributes differ from the forward op's"));
  }
}

Attrs pool_attrs(const Attrs& a) {
  Attrs out;
  for (const char* key : {"kernel", "stride", "padding", "count_include_pad", "ceil_mode", "divisor_override"}) {
    if (const AttrValue* v = a.find(key)) out.set(key, *v);
  }
  return out;
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  {
    OpSchema s;
    s.name = "MaxPool2D";
    s.inputs = {"x"};
    s.outputs = {"y"};
    s.formula = "y[n,c,i,j] = max over the window at (i*sh - ph, j*sw - pw) of x[n,c,:,:] (padding never wins)";
    s.infer = [](const ShapeContext& ctx) { return std::vector<TensorInfo>{pool_forward_info(ctx)}; };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
      c.set_grad(0, c.emit("MaxPool2DBackward", {c.grad_output(0), c.input(0)}, pool_attrs(c.attrs())));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "MaxPool2DBackward";
    s.inputs = {"grad_y", "x"};
    s.outputs = {"dx"};
    s.formula = "dx = zeros_like(x); dx[argmax of each window of x] += grad_y (first maximum wins ties); "
                "activation relu: dx = x > 0 ? dx : 0";
    s.infer = [](const ShapeContext& ctx) {
      ctx.expect_rank(1, 4, "NCHW");
      ctx.expect_float(1);
      ctx.expect_same_dtype(1, 0);
      expect_pooled_grad(ctx, 0, ctx.in(1).shape);
      return std::vector<TensorInfo>{ctx.in(1)};
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "AvgPool2D";
    s.inputs = {"x"};
    s.outputs = {"y"};
    s.formula = "y[n,c,i,j] = sum of the window / (divisor_override, or its size within the padded input if "
                "count_include_pad, else its count of real elements)";
    s.infer = [](const ShapeContext& ctx) { return std::vector<TensorInfo>{pool_forward_info(ctx)}; };
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
      Attrs a = pool_attrs(c.attrs());
      a.set("input_shape", c.shape(c.input(0)));
      c.set_grad(0, c.emit("AvgPool2DBackward", {c.grad_output(0)}, a));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s;
    s.name = "AvgPool2DBackward";
    s.inputs = {"grad_y"};
    s.outputs = {"dx"};
    s.formula = "dx[window of (i,j)] += grad_y[n,c,i,j] / divisor(i,j); dx has shape input_shape";
    s.infer = [](const ShapeContext& ctx) {
      ctx.expect_float(0);
      const Shape x = ctx.attrs().ints("input_shape");
      if (x.size() != 4) ops::bad_attr(ctx, "input_shape", "an NCHW shape [N, C, H, W]", shape_str(x));
      for (int64_t d : x) {
        if (d < 0) ops::bad_attr(ctx, "input_shape", "made of sizes >= 0", shape_str(x));
      }
      expect_pooled_grad(ctx, 0, x);
      return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), x)};
    };
    // Linear in grad_y with the transposed map of AvgPool2D, so its adjoint is AvgPool2D.
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
      c.set_grad(0, c.emit("AvgPool2D", {c.grad_output(0)}, pool_attrs(c.attrs())));
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
