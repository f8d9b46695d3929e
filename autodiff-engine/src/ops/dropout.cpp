// Dropout with a counter-based mask (core-runtime/kernels/dropout_rules.h; docs/gpt-step.md):
//
//   Dropout(x, seed){p} -> y = x * keep / (1 - p)   (x * 0 where dropped, as PyTorch's x * mask)
//       keep(i) for element i of the flat row-major x: word i % 4 of Philox4x32-10 at counter
//       i / 4 under the seed is at least round(p * 2^32). p = 1 keeps nothing (y = x * 0).
//
// The seed is an int64 scalar input, not an attribute: glassgrad's generator draws a new one
// every call (and every replay of a compiled step), which changes data, not the plan. The
// mask is a function of the seed and the element's position alone, so the op is linear in x
// with a fixed mask: its gradient is the same op on the incoming gradient under the same seed
// (the mask regenerated, never stored), and so is every higher derivative.
#include "op_helpers.h"

namespace glassgrad {

void register_dropout_ops(OpRegistry& r) {
  OpSchema s;
  s.name = "Dropout";
  s.inputs = {"x", "seed"};
  s.outputs = {"y"};
  s.formula = "y = x * keep / (1 - p), keep = Philox4x32-10 word of the element's index under the seed >= p * 2^32";
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_float(0);
    const double p = ctx.attrs().f("p");
    if (!(p >= 0.0 && p <= 1.0)) ops::bad_attr(ctx, "p", "in [0, 1]", std::to_string(p), "p=0.1");
    const TensorInfo& seed = ctx.in(1);
    if (seed.dtype != DType::Int64 || seed.rank() != 0) {
      ctx.fail(ErrorMessage("the dropout seed must be an int64 scalar, got " + seed.str())
                   .fix("let glassgrad.nn.functional.dropout draw it"));
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  s.gradient = [](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue || !c.needs_grad(0)) return;
    c.set_grad(0, c.emit("Dropout", {g, c.input(1)}, c.attrs()));
  };
  r.add(std::move(s));
}

}  // namespace glassgrad
