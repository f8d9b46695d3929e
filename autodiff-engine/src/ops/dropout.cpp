// Dropout with a counter-based mask (core-runtime/kernels/dropout_rules.h; docs/gpt-step.md),
// the ops of families/dropout.def:
//
//   Dropout(x, seed){p} -> y = x * keep / (1 - p)   (x * 0 where dropped, as PyTorch's x * mask)
//       keep(i) for element i of the flat row-major x: word i % 4 of Philox4x32-10 at counter
//       i / 4 under the seed is at least round(p * 2^32). p = 1 keeps nothing (y = x * 0).
//   Dropout(x, seed, residual){p} -> y = (x * keep / (1 - p)) + residual, the product rounded
//       first: a residual block's Add fused into its dropout (fuse_dropout_residual, fusion.h).
//       dresidual = the incoming gradient.
//
// The seed is an int64 scalar input, not an attribute: glassgrad's generator draws a new one
// every call (and every replay of a compiled step), which changes data, not the plan. The
// mask is a function of the seed and the element's position alone, so the op is linear in x
// with a fixed mask: its gradient is the same op on the incoming gradient under the same seed
// (the mask regenerated, never stored), and so is every higher derivative.
//
//   AlphaDropout(x, seed){p} -> y = x * (keep ? a : 0) + (keep ? alpha*a*p : alpha*a*(p - 1))
//       PyTorch's alpha_dropout: dropped elements take SELU's negative saturation value
//       -alpha, and the affine map a*(.) + alpha*a*p keeps a zero-mean, unit-variance input so;
//       a = 1/sqrt((alpha^2 p + 1)(1 - p)), alpha = 1.7580993408473766. p = 1: y = x * 0.
//   AlphaDropoutBackward(grad_y, seed){p} -> dx = grad_y * (keep ? a : 0) (0 for p = 1), the
//       same mask; linear in grad_y, so its own gradient is itself.
#include "glassgrad/autodiff/families/dropout.h"

#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

DropoutAttrs DropoutAttrs::from(const Attrs& a) {
  DropoutAttrs d;
  d.p = a.f("p");
  return d;
}

namespace {

// x floating, p in [0, 1], the seed an int64 scalar; y is x's shape and dtype.
std::vector<TensorInfo> dropout_shape(const ShapeContext& ctx) {
  ctx.expect_float(0);
  if (ctx.num_inputs() > 2 && !(ctx.in(2) == ctx.in(0))) {
    ctx.fail(ErrorMessage("the residual must have x's shape, dtype and device").detail("x: " + ctx.in(0).str())
                 .detail("residual: " + ctx.in(2).str())
                 .fix("add a residual of another shape with a separate Add: dropout(x) + residual"));
  }
  const double p = DropoutAttrs::from(ctx.attrs()).p;
  if (!(p >= 0.0 && p <= 1.0)) ops::bad_attr(ctx, "p", "in [0, 1]", std::to_string(p), "p=0.1");
  const TensorInfo& seed = ctx.in(1);
  if (seed.dtype != DType::Int64 || seed.rank() != 0) {
    ctx.fail(ErrorMessage("the dropout seed must be an int64 scalar, got " + seed.str())
                 .fix("let glassgrad.nn.functional.dropout draw it"));
  }
  return std::vector<TensorInfo>{ctx.in(0)};
}

// The gradient of an op whose output is its input 0 times a mask fixed by the seed (times a
// constant, plus a constant): `op` of the incoming gradient under the same seed and attributes.
auto masked_gradient(const char* op) {
  return [op](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue || !c.needs_grad(0)) return;
    c.set_grad(0, c.emit(op, {g, c.input(1)}, c.attrs()));
    if (c.num_inputs() > 2 && c.needs_grad(2)) c.set_grad(2, g);  // Dropout's fused residual
  };
}

}  // namespace

void dropout(OpSchema& s) {
  s.infer = dropout_shape;
  s.gradient = masked_gradient("Dropout");
}

void alpha_dropout(OpSchema& s) {
  s.infer = dropout_shape;
  s.gradient = masked_gradient("AlphaDropoutBackward");
}

void alpha_dropout_backward(OpSchema& s) {
  s.infer = dropout_shape;
  s.gradient = masked_gradient("AlphaDropoutBackward");
}

// --8<-- [start:register]
void register_dropout_ops(OpRegistry& r) {
#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/dropout.def"
}
// --8<-- [end:register]

}  // namespace glassgrad
