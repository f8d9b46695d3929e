// Pooling ops (rows of families/pool.def): MaxPool2D, MaxPool2DBackward, AvgPool2D,
// AvgPool2DBackward, and the family's geometry (families/pool.h: output sizes, attributes and
// their defaults). Padding is at most half the window, so every window holds at least one real
// element and a padded position never wins a max. In ceil mode the last windows may reach past
// the padding; that overhang is neither read nor counted.
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
// With attrs activation="relu" (set by the fusion pass when x is a ReLU's output and
// ReLUBackward(dx, x) was the only reader of dx) MaxPool2DBackward returns that ReLUBackward's
// result: dx[e] = x[e] > 0 ? dx[e] : 0.
//
// MaxPool2DBackward's own gradient (a double backward, a MAML step through max pooling): dx = A g
// puts each grad_y at its window's argmax, A fixed by x, so d/dx = 0 (almost everywhere, as
// PyTorch's) and d/dgrad_y = A^T u, u at each window's argmax. Outputs r = ceil(k/s) apart along
// an axis have disjoint windows; for each of the r_h * r_w phases of outputs (i mod r_h, j mod r_w)
// the marks of its argmaxes, A applied to the phase's indicator, hold one position per window, so
// a window sum of u times them (AvgPool2D with divisor_override 1) is A^T u at that phase's
// outputs (docs/autograd.md, "Second-order rules"). First maximum wins ties, as in A itself.
#include "glassgrad/autodiff/families/pool.h"

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

int64_t pooled_size(int64_t n, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  const int64_t span = n + 2 * p - k;
  if (span < 0) return 0;  // a window wider than the padded input fits nowhere
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;
  return out;
}

Pool2DGeometry Pool2DGeometry::from(const Shape& x, const Attrs& a) {
  Pool2DGeometry g;
  g.n = x[0], g.c = x[1], g.h = x[2], g.w = x[3];
  const auto& k = a.ints("kernel");
  g.kh = k[0], g.kw = k[1];
  g.sh = g.kh, g.sw = g.kw;  // stride: the window by default
  if (a.has("stride")) {
    const auto& s = a.ints("stride");
    g.sh = s[0], g.sw = s[1];
  }
  if (a.has("padding")) {
    const auto& p = a.ints("padding");
    g.ph = p[0], g.pw = p[1];
  }
  g.ceil_mode = a.b("ceil_mode", false);
  g.count_include_pad = a.b("count_include_pad", true);
  g.divisor_override = a.i("divisor_override", 0);
  const bool valid = g.kh >= 1 && g.kw >= 1 && g.sh >= 1 && g.sw >= 1 && g.ph >= 0 && g.pw >= 0 &&
                     2 * g.ph <= g.kh && 2 * g.pw <= g.kw && g.h + 2 * g.ph >= g.kh && g.w + 2 * g.pw >= g.kw;
  if (valid) {
    g.ho = pooled_size(g.h, g.kh, g.sh, g.ph, g.ceil_mode);
    g.wo = pooled_size(g.w, g.kw, g.sw, g.pw, g.ceil_mode);
  }
  return g;
}

namespace {

std::string pair_str(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

// A list attribute, when present, must be a pair [rows, cols].
void expect_pair(const ShapeContext& ctx, const char* key) {
  if (!ctx.attrs().has(key)) return;
  const auto& v = ctx.attrs().ints(key);
  if (v.size() != 2) {
    ops::bad_attr(ctx, key, "a pair [rows, cols]", shape_str(v),
                  std::string(key) + "=[" + (v.empty() ? "2" : std::to_string(v[0])) + ", " +
                      (v.empty() ? "2" : std::to_string(v[0])) + "]");
  }
}

// Validates the attributes against an NCHW input shape and returns the geometry.
Pool2DGeometry pool_geometry(const ShapeContext& ctx, const Shape& x) {
  (void)ctx.attrs().ints("kernel");  // required: a missing kernel is reported by the attribute reader
  for (const char* key : {"kernel", "stride", "padding"}) expect_pair(ctx, key);
  const Pool2DGeometry g = Pool2DGeometry::from(x, ctx.attrs());
  if (g.kh < 1 || g.kw < 1) ops::bad_attr(ctx, "kernel", "at least [1, 1]", pair_str(g.kh, g.kw));
  if (g.sh < 1 || g.sw < 1) {
    ops::bad_attr(ctx, "stride", "at least [1, 1]", pair_str(g.sh, g.sw),
                  "stride=" + pair_str(g.kh, g.kw) + " (the window size) is the usual choice");
  }
  if (g.ph < 0 || g.pw < 0 || 2 * g.ph > g.kh || 2 * g.pw > g.kw) {
    ctx.fail(ErrorMessage("padding " + pair_str(g.ph, g.pw) + " is too large for the " + std::to_string(g.kh) + "x" +
                          std::to_string(g.kw) + " window")
                 .detail("padding must be >= 0 and at most half the window: at most " +
                         pair_str(g.kh / 2, g.kw / 2) + " here")
                 .cause("with more padding a window could hold only padding")
                 .fix("padding=" + pair_str(g.kh / 2, g.kw / 2) + " (or a larger kernel)"));
  }
  if (g.h + 2 * g.ph < g.kh || g.w + 2 * g.pw < g.kw) {
    ctx.fail(ErrorMessage("the " + std::to_string(g.kh) + "x" + std::to_string(g.kw) + " window does not fit in the " +
                          std::to_string(x[2]) + "x" + std::to_string(x[3]) + " input (padding " +
                          pair_str(g.ph, g.pw) + ")")
                 .detail("input: " + shape_str(x))
                 .cause("the feature map was already shrunk by earlier conv/pool layers")
                 .fix("use a smaller kernel, add padding, or pool fewer times"));
  }
  if (g.divisor_override < 0) {
    ops::bad_attr(ctx, "divisor_override", "> 0 (or absent)", std::to_string(g.divisor_override));
  }
  return g;
}

Shape pooled_shape(const Pool2DGeometry& g) { return {g.n, g.c, g.ho, g.wo}; }

// The shape rule shared by MaxPool2D and AvgPool2D.
std::vector<TensorInfo> pool_forward_infer(const ShapeContext& ctx) {
  ctx.expect_rank(0, 4, "NCHW");
  ctx.expect_float(0);
  return {ops::with_shape(ctx.in(0), pooled_shape(pool_geometry(ctx, ctx.in(0).shape)))};
}

// grad_y (input `gi`) must have the pooled shape of `x_shape`.
void expect_pooled_grad(const ShapeContext& ctx, int gi, const Shape& x_shape) {
  const Shape want = pooled_shape(pool_geometry(ctx, x_shape));
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

void max_pool2d(OpSchema& s) {
  s.infer = pool_forward_infer;
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    c.set_grad(0, c.emit("MaxPool2DBackward", {c.grad_output(0), c.input(0)}, pool_attrs(c.attrs())));
  };
}

// The gradient rule of MaxPool2DBackward (the file comment).
void max_pool2d_backward_gradient(GradContext& c) {
  const ValueId x = c.input(1);
  if (c.needs_grad(1)) c.set_grad(1, ops::zeros_like(c, x));
  ValueId u = c.grad_output(0);
  if (u == kNoValue || !c.needs_grad(0)) return;
  const Attrs& at = c.attrs();
  const TensorInfo xi = c.info(x);
  if (at.has("activation") && at.s("activation") == "relu") {
    u = c.emit("Mul", {u, c.emit("Cast", {c.emit("Greater", {x, c.scalar(0.0, x)})}, Attrs{{"dtype", std::string(dtype_name(xi.dtype))}})});
  }
  const Pool2DGeometry geo = Pool2DGeometry::from(xi.shape, at);
  const int64_t rh = (geo.kh + geo.sh - 1) / geo.sh, rw = (geo.kw + geo.sw - 1) / geo.sw;
  const Shape out{geo.n, geo.c, geo.ho, geo.wo};
  const std::string dt = dtype_name(xi.dtype);
  auto full = [&](const Shape& shape, double v) {
    return c.emit("Full", {}, Attrs{{"shape", shape}, {"value", v}, {"dtype", dt}, {"device", xi.device.str()}});
  };
  Attrs sum_attrs = pool_attrs(at);
  sum_attrs.set("divisor_override", AttrValue(int64_t{1}));
  ValueId total = kNoValue;
  for (int64_t a = 0; a < rh && a < geo.ho; ++a) {
    for (int64_t b = 0; b < rw && b < geo.wo; ++b) {
      ValueId phase = full(out, 1.0);
      if (rh > 1 || rw > 1) {  // ones at outputs (a + rh*i, b + rw*j)
        const int64_t la = (geo.ho - a + rh - 1) / rh, lb = (geo.wo - b + rw - 1) / rw;
        const ValueId cols = c.emit("SliceScatter", {full({geo.n, geo.c, la, geo.wo}, 0.0), full({geo.n, geo.c, la, lb}, 1.0)},
                                    Attrs{{"dim", int64_t{3}}, {"start", b}, {"stop", geo.wo}, {"step", rw}});
        phase = c.emit("SliceScatter", {full(out, 0.0), cols},
                       Attrs{{"dim", int64_t{2}}, {"start", a}, {"stop", geo.ho}, {"step", rh}});
      }
      const ValueId marks = c.emit("MaxPool2DBackward", {phase, x}, pool_attrs(at));
      ValueId picked = c.emit("AvgPool2D", {c.emit("Mul", {u, marks})}, sum_attrs);
      if (rh > 1 || rw > 1) picked = c.emit("Mul", {picked, phase});
      total = total == kNoValue ? picked : c.emit("Add", {total, picked});
    }
  }
  c.set_grad(0, total);
}

void max_pool2d_backward(OpSchema& s) {
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_rank(1, 4, "NCHW");
    ctx.expect_float(1);
    ctx.expect_same_dtype(1, 0);
    expect_pooled_grad(ctx, 0, ctx.in(1).shape);
    return std::vector<TensorInfo>{ctx.in(1)};
  };
  s.gradient = max_pool2d_backward_gradient;
}

void avg_pool2d(OpSchema& s) {
  s.infer = pool_forward_infer;
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue || !c.needs_grad(0)) return;
    Attrs a = pool_attrs(c.attrs());
    a.set("input_shape", c.shape(c.input(0)));
    c.set_grad(0, c.emit("AvgPool2DBackward", {c.grad_output(0)}, a));
  };
}

void avg_pool2d_backward(OpSchema& s) {
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
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/pool.def"
}

}  // namespace glassgrad
