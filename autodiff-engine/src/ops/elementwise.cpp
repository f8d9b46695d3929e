// Elementwise ops: binary with NumPy broadcasting (inputs of one dtype), scalar-attribute
// variants, unary maps, comparisons (-> bool), Where, and the backward maps of the
// activations. Gradients of broadcast inputs are summed back to the input's shape (reduce_to).
#include "op_helpers.h"

namespace glassgrad {

namespace {

using ops::with_dtype;
using ops::with_shape;

enum class Kinds { Float, Numeric, Any };

void check_kind(const ShapeContext& ctx, int i, Kinds k) {
  const DType dt = ctx.in(i).dtype;
  if (k == Kinds::Float) {
    ctx.expect_float(i);
  } else if (k == Kinds::Numeric && dt == DType::Bool) {
    ctx.fail(ErrorMessage("expected a numeric tensor, got bool " + shape_str(ctx.in(i).shape))
                 .fix("convert with x.float() or x.long()"),
             true);
  }
}

OpSchema binary(const std::string& name, Kinds kinds, const std::string& formula, bool bool_out = false) {
  OpSchema s;
  s.name = name;
  s.inputs = {"a", "b"};
  s.outputs = {"out"};
  s.elementwise = true;
  s.strided_inputs = true;
  s.formula = formula;
  s.infer = [kinds, bool_out](const ShapeContext& ctx) {
    check_kind(ctx, 0, kinds);
    ctx.expect_same_dtype(0, 1);
    TensorInfo t = with_shape(ctx.in(0), ops::broadcast_or_fail(ctx, 0, 1));
    if (bool_out) t.dtype = DType::Bool;
    return std::vector<TensorInfo>{t};
  };
  return s;
}

OpSchema unary(const std::string& name, Kinds kinds, const std::string& formula) {
  OpSchema s;
  s.name = name;
  s.inputs = {"x"};
  s.outputs = {"out"};
  s.elementwise = true;
  s.strided_inputs = true;
  s.formula = formula;
  s.infer = [kinds](const ShapeContext& ctx) {
    check_kind(ctx, 0, kinds);
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  return s;
}

// (grad, saved) -> grad-shaped map, for the activations' backward ops.
OpSchema backward_map(const std::string& name, const std::string& saved, const std::string& formula) {
  OpSchema s;
  s.name = name;
  s.inputs = {"grad", saved};
  s.outputs = {"dx"};
  s.elementwise = true;
  s.strided_inputs = true;
  s.formula = formula;
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_float(0);
    ctx.expect_same_dtype(0, 1);
    if (ctx.in(0).shape != ctx.in(1).shape) {
      ctx.fail(ErrorMessage("grad " + shape_str(ctx.in(0).shape) + " and saved tensor " +
                            shape_str(ctx.in(1).shape) + " must have one shape"));
    }
    return std::vector<TensorInfo>{ctx.in(0)};
  };
  return s;
}

Attrs scalar_attr(const char* key, double v) { return Attrs{{key, v}}; }

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  // ---- binary, broadcasting ----
  {
    OpSchema s = binary("Add", Kinds::Numeric, "out = a + b");
    s.gradient = [](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(g, c.shape(c.input(0))));
      if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(g, c.shape(c.input(1))));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = binary("Sub", Kinds::Numeric, "out = a - b");
    s.gradient = [](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(g, c.shape(c.input(0))));
      if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Neg", {g}), c.shape(c.input(1))));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = binary("Mul", Kinds::Numeric, "out = a * b");
    s.gradient = [](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.emit("Mul", {g, c.input(1)}), c.shape(c.input(0))));
      if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Mul", {g, c.input(0)}), c.shape(c.input(1))));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = binary("Div", Kinds::Float, "out = a / b");
    s.gradient = [](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      // d(a/b)/da = 1/b;  d(a/b)/db = -a/b^2 = -out/b
      if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.emit("Div", {g, c.input(1)}), c.shape(c.input(0))));
      if (c.needs_grad(1)) {
        const ValueId t = c.emit("Div", {c.emit("Mul", {g, c.output(0)}), c.input(1)});
        c.set_grad(1, c.reduce_to(c.emit("Neg", {t}), c.shape(c.input(1))));
      }
    };
    r.add(std::move(s));
  }
  for (const char* name : {"Maximum", "Minimum"}) {
    const bool is_max = std::string(name) == "Maximum";
    OpSchema s = binary(name, Kinds::Numeric, is_max ? "out = max(a, b)" : "out = min(a, b)");
    // Subgradient: where a and b tie, the whole gradient goes to a.
    s.gradient = [is_max](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      const ValueId a_wins = c.emit(is_max ? "GreaterEqual" : "LessEqual", {c.input(0), c.input(1)});
      const ValueId zero = c.scalar(0.0, g);
      if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.emit("Where", {a_wins, g, zero}), c.shape(c.input(0))));
      if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Where", {a_wins, zero, g}), c.shape(c.input(1))));
    };
    r.add(std::move(s));
  }
  const std::pair<const char*, const char*> comparisons[] = {
      {"Equal", "out = (a == b)"}, {"NotEqual", "out = (a != b)"}, {"Less", "out = (a < b)"},
      {"LessEqual", "out = (a <= b)"}, {"Greater", "out = (a > b)"}, {"GreaterEqual", "out = (a >= b)"}};
  for (const auto& cmp : comparisons) r.add(binary(cmp.first, Kinds::Any, cmp.second, true));
  {
    OpSchema s;
    s.name = "Where";
    s.inputs = {"cond", "a", "b"};
    s.outputs = {"out"};
    s.elementwise = true;
    s.strided_inputs = true;
    s.dispatch_input = 1;
    s.formula = "out = cond ? a : b";
    s.infer = [](const ShapeContext& ctx) {
      ctx.expect_dtype(0, DType::Bool);
      ctx.expect_same_dtype(1, 2);
      Shape ab = ops::broadcast_or_fail(ctx, 1, 2), all;
      if (!broadcast_shapes(ctx.in(0).shape, ab, all)) {
        ctx.fail(ErrorMessage("condition " + shape_str(ctx.in(0).shape) + " cannot be broadcast with " + shape_str(ab)));
      }
      return std::vector<TensorInfo>{with_shape(ctx.in(1), all)};
    };
    s.gradient = [](GradContext& c) {
      const ValueId g = c.grad_output(0);
      if (g == kNoValue) return;
      const ValueId zero = c.scalar(0.0, g);
      if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Where", {c.input(0), g, zero}), c.shape(c.input(1))));
      if (c.needs_grad(2)) c.set_grad(2, c.reduce_to(c.emit("Where", {c.input(0), zero, g}), c.shape(c.input(2))));
    };
    r.add(std::move(s));
  }

  // ---- scalar-attribute variants ----
  {
    OpSchema s = unary("AddScalar", Kinds::Numeric, "out = x + value");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.grad_output(0));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("MulScalar", Kinds::Numeric, "out = x * value");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      c.set_grad(0, c.emit("MulScalar", {c.grad_output(0)}, scalar_attr("value", c.attrs().f("value"))));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("PowScalar", Kinds::Float, "out = x ^ exponent");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      const double p = c.attrs().f("exponent");
      // d(x^p)/dx = p * x^(p-1)
      const ValueId d = c.emit("MulScalar", {c.emit("PowScalar", {c.input(0)}, scalar_attr("exponent", p - 1))},
                               scalar_attr("value", p));
      c.set_grad(0, c.emit("Mul", {c.grad_output(0), d}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("RDivScalar", Kinds::Float, "out = value / x");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      // d(v/x)/dx = -v/x^2 = -out/x
      const ValueId t = c.emit("Div", {c.emit("Mul", {c.grad_output(0), c.output(0)}), c.input(0)});
      c.set_grad(0, c.emit("Neg", {t}));
    };
    r.add(std::move(s));
  }

  // ---- unary ----
  {
    OpSchema s = unary("Neg", Kinds::Numeric, "out = -x");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Neg", {c.grad_output(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("Exp", Kinds::Float, "out = exp(x)");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Mul", {c.grad_output(0), c.output(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("Log", Kinds::Float, "out = log(x)");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Div", {c.grad_output(0), c.input(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("Sqrt", Kinds::Float, "out = sqrt(x)");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      // d sqrt(x)/dx = 1 / (2 sqrt(x))
      c.set_grad(0, c.emit("Div", {c.emit("MulScalar", {c.grad_output(0)}, scalar_attr("value", 0.5)), c.output(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("ReLU", Kinds::Float, "out = max(x, 0)");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("ReLUBackward", {c.grad_output(0), c.input(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("Sigmoid", Kinds::Float, "out = 1 / (1 + exp(-x))");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("SigmoidBackward", {c.grad_output(0), c.output(0)}));
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = unary("Tanh", Kinds::Float, "out = tanh(x)");
    s.gradient = [](GradContext& c) {
      if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("TanhBackward", {c.grad_output(0), c.output(0)}));
    };
    r.add(std::move(s));
  }

  // ---- the activations' backward maps (and their own gradients, for double backward) ----
  {
    OpSchema s = backward_map("ReLUBackward", "x", "dx = x > 0 ? grad : 0");
    s.gradient = [](GradContext& c) {
      // Linear in grad; piecewise constant in x (zero gradient almost everywhere).
      if (c.grad_output(0) != kNoValue && c.needs_grad(0)) {
        c.set_grad(0, c.emit("ReLUBackward", {c.grad_output(0), c.input(1)}));
      }
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = backward_map("SigmoidBackward", "y", "dx = grad * y * (1 - y)   (y = sigmoid(x))");
    s.gradient = [](GradContext& c) {
      const ValueId gg = c.grad_output(0);
      if (gg == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.emit("SigmoidBackward", {gg, c.input(1)}));
      if (c.needs_grad(1)) {
        // d/dy [g y (1 - y)] = g (1 - 2y)
        const ValueId one_minus_2y = c.emit("AddScalar", {c.emit("MulScalar", {c.input(1)}, scalar_attr("value", -2.0))},
                                            scalar_attr("value", 1.0));
        c.set_grad(1, c.emit("Mul", {c.emit("Mul", {gg, c.input(0)}), one_minus_2y}));
      }
    };
    r.add(std::move(s));
  }
  {
    OpSchema s = backward_map("TanhBackward", "y", "dx = grad * (1 - y^2)   (y = tanh(x))");
    s.gradient = [](GradContext& c) {
      const ValueId gg = c.grad_output(0);
      if (gg == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.emit("TanhBackward", {gg, c.input(1)}));
      if (c.needs_grad(1)) {
        // d/dy [g (1 - y^2)] = -2 g y
        const ValueId m2y = c.emit("MulScalar", {c.input(1)}, scalar_attr("value", -2.0));
        c.set_grad(1, c.emit("Mul", {c.emit("Mul", {gg, c.input(0)}), m2y}));
      }
    };
    r.add(std::move(s));
  }
}

}  // namespace glassgrad
