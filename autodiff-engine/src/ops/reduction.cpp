// Reductions over chosen axes (rows of families/reduction.def): Sum, Mean, Max, ArgMax, Var.
// `dims` empty or absent means all axes; `keepdim` keeps reduced axes as size 1 (the family's
// attributes: families/reduction.h). Gradients broadcast the output gradient back over the
// reduced axes (Reshape to the keepdim shape, then Expand).
#include "glassgrad/autodiff/families/reduction.h"

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

ReductionAttrs ReductionAttrs::from(const Attrs& a, int rank, bool argmax) {
  ReductionAttrs r;
  if (argmax) {
    const int64_t d = a.i("dim");
    r.axes.push_back(d < 0 ? d + rank : d);
  } else if (!a.has("dims") || a.ints("dims").empty()) {
    for (int i = 0; i < rank; ++i) r.axes.push_back(i);
  } else {
    for (int64_t d : a.ints("dims")) r.axes.push_back(d < 0 ? d + rank : d);
  }
  r.keepdim = a.b("keepdim", r.keepdim);
  r.correction = a.i("correction", r.correction);
  return r;
}

bool ReductionAttrs::reduces(int d) const {
  for (int64_t a : axes) {
    if (a == d) return true;
  }
  return false;
}

int64_t ReductionAttrs::count(const Shape& in) const {
  int64_t n = 1;
  for (int64_t ax : axes) n *= in[static_cast<size_t>(ax)];
  return n;
}

namespace {

struct Reduced {
  std::vector<int64_t> axes;
  Shape keep_shape;   // the output shape with keepdim
  int64_t count = 1;  // elements reduced into each output element
};

Reduced reduced_of(const Shape& in, const Attrs& attrs) {
  const ReductionAttrs a = ReductionAttrs::from(attrs, static_cast<int>(in.size()));
  return Reduced{a.axes, ops::reduced_shape(in, a.axes, true), a.count(in)};
}

// g (the output gradient) broadcast back to the input's shape.
ValueId spread(GradContext& c, ValueId g) {
  const Shape& in = c.shape(c.input(0));
  const Reduced r = reduced_of(in, c.attrs());
  ValueId k = g;
  if (c.shape(g) != r.keep_shape) k = c.emit("Reshape", {g}, Attrs{{"shape", r.keep_shape}});
  if (r.keep_shape != in) k = c.emit("Expand", {k}, Attrs{{"shape", in}});
  return k;
}

// The shape rule of Sum, Mean, Max and Var (float_only: Mean and Var).
void reduction(OpSchema& s, bool float_only) {
  s.strided_inputs = true;
  s.infer = [float_only](const ShapeContext& ctx) {
    if (float_only) ctx.expect_float(0);
    if (ctx.in(0).dtype == DType::Bool) {
      ctx.fail(ErrorMessage("cannot reduce a bool tensor").fix("convert first: mask.float().sum()"), true);
    }
    const auto axes = ops::axes_attr(ctx, "dims", ctx.in(0).rank());
    const bool keep = ReductionAttrs::from(ctx.attrs(), ctx.in(0).rank()).keepdim;
    return std::vector<TensorInfo>{ops::with_shape(ctx.in(0), ops::reduced_shape(ctx.in(0).shape, axes, keep))};
  };
}

void sum(OpSchema& s) {
  reduction(s, false);
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) != kNoValue) c.set_grad(0, spread(c, c.grad_output(0)));
  };
}

void mean(OpSchema& s) {
  reduction(s, true);
  s.infer = [base = s.infer](const ShapeContext& ctx) {
    auto out = base(ctx);
    if (ctx.in(0).numel() == 0) ctx.fail(ErrorMessage("mean of an empty tensor " + shape_str(ctx.in(0).shape)));
    return out;
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    const Reduced rd = reduced_of(c.shape(c.input(0)), c.attrs());
    const ValueId scaled = c.emit("MulScalar", {c.grad_output(0)}, Attrs{{"value", 1.0 / static_cast<double>(rd.count)}});
    c.set_grad(0, spread(c, scaled));
  };
}

void max(OpSchema& s) {
  reduction(s, false);
  s.infer = [base = s.infer](const ShapeContext& ctx) {
    if (ctx.in(0).numel() == 0) ctx.fail(ErrorMessage("max of an empty tensor " + shape_str(ctx.in(0).shape)));
    return base(ctx);
  };
  // The gradient is shared equally by every element equal to the maximum (like torch.amax).
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    const ValueId x = c.input(0);
    const DType dt = c.info(x).dtype;
    const ValueId is_max = c.emit("Equal", {x, spread(c, c.output(0))});
    const ValueId mask = c.emit("Cast", {is_max}, Attrs{{"dtype", std::string(dtype_name(dt))}});
    Attrs keep = c.attrs();
    keep.set("keepdim", true);
    const ValueId count = c.emit("Sum", {mask}, keep);
    const ValueId share = c.emit("Div", {mask, count});
    c.set_grad(0, c.emit("Mul", {share, spread(c, c.grad_output(0))}));
  };
}

void argmax(OpSchema& s) {
  s.strided_inputs = true;
  s.infer = [](const ShapeContext& ctx) {
    const int rank = ctx.in(0).rank();
    const int d = ctx.axis("dim", ctx.attrs().i("dim"), rank);
    if (ctx.in(0).shape[static_cast<size_t>(d)] == 0) ctx.fail(ErrorMessage("argmax over an empty axis of " + shape_str(ctx.in(0).shape)));
    if (ctx.in(0).dtype == DType::Bool) ctx.fail(ErrorMessage("argmax of a bool tensor").fix("x.float().argmax(dim)"), true);
    const bool keep = ReductionAttrs::from(ctx.attrs(), rank, true).keepdim;
    const Shape out = ops::reduced_shape(ctx.in(0).shape, {d}, keep);
    return std::vector<TensorInfo>{ops::with_dtype(ops::with_shape(ctx.in(0), out), DType::Int64)};
  };
}

void var(OpSchema& s) {
  reduction(s, true);
  s.infer = [base = s.infer](const ShapeContext& ctx) {
    auto out = base(ctx);
    // No degrees of freedom left (count <= correction) is accepted: Var divides by 0 there,
    // NaN or inf, as PyTorch (ReductionAttrs::var_divisor). An empty input is refused, as by Mean.
    const int64_t corr = ReductionAttrs::from(ctx.attrs(), ctx.in(0).rank()).correction;
    if (corr < 0) ops::bad_attr(ctx, "correction", ">= 0", std::to_string(corr));
    if (ctx.in(0).numel() == 0) ctx.fail(ErrorMessage("variance of an empty tensor " + shape_str(ctx.in(0).shape)));
    return out;
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    // d var / dx_i = 2 (x_i - mean) / max(0, count - correction)   (inf or NaN with no degrees of freedom)
    const Shape in = c.shape(c.input(0));
    const Reduced rd = reduced_of(in, c.attrs());
    const double denom =
        static_cast<double>(ReductionAttrs::from(c.attrs(), static_cast<int>(in.size())).var_divisor(rd.count));
    const ValueId mean = c.emit("Mean", {c.input(0)}, Attrs{{"dims", rd.axes}, {"keepdim", true}});
    const ValueId centered = c.emit("Sub", {c.input(0), mean});
    const ValueId scaled = c.emit("MulScalar", {centered}, Attrs{{"value", 2.0 / denom}});
    c.set_grad(0, c.emit("Mul", {scaled, spread(c, c.grad_output(0))}));
  };
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/reduction.def"
}

}  // namespace glassgrad
