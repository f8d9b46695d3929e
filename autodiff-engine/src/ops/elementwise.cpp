// Elementwise ops: the rows of elementwise_ops.def (binary with NumPy broadcasting, scalar-
// attribute variants, unary maps, comparisons -> bool, the activations' backward maps) and
// Where. Each row's schema follows from its kind; its gradient from its Gradient column: a
// backward row ("<Row>"), "linear" (the backward maps of piecewise-linear activations), or one
// of the rules below ("custom"). Gradients of broadcast inputs are summed back to the input's
// shape (reduce_to).
#include <map>

#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/autodiff/family.h"
#include "op_helpers.h"

namespace glassgrad {

namespace {

using ops::with_shape;

const ElementwiseInfo kTable[] = {
#define GG_ELEMENTWISE(Name, Kind, DTypes, Scalar, Gradient, Formula, Value) \
  {ElementwiseOp::Name, #Name, ElementwiseKind::Kind, ElementwiseDTypes::DTypes, Scalar, Gradient, Formula},
#include "glassgrad/autodiff/elementwise_ops.def"
#undef GG_ELEMENTWISE
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(kElementwiseOpCount), "one row per code");

void check_dtypes(const ShapeContext& ctx, int i, ElementwiseDTypes d) {
  if (d == ElementwiseDTypes::Float) {
    ctx.expect_float(i);
  } else if (d == ElementwiseDTypes::Numeric && ctx.in(i).dtype == DType::Bool) {
    ctx.fail(ErrorMessage("expected a numeric tensor, got bool " + shape_str(ctx.in(i).shape))
                 .fix("convert with x.float() or x.long()"),
             true);
  }
}

OpSchema elementwise_schema(const std::string& name, const std::vector<std::string>& inputs, const std::string& formula) {
  OpSchema s;
  s.name = name;
  s.inputs = inputs;
  s.outputs = {"out"};
  s.elementwise = true;
  s.strided_inputs = true;
  s.formula = formula;
  return s;
}

// The shape rule of a row, from its kind.
ShapeFn infer_of(const ElementwiseInfo& e) {
  const ElementwiseDTypes d = e.dtypes;
  switch (e.kind) {
    case ElementwiseKind::Unary:
      return [d](const ShapeContext& ctx) {
        check_dtypes(ctx, 0, d);
        return std::vector<TensorInfo>{ctx.in(0)};
      };
    case ElementwiseKind::Binary:
    case ElementwiseKind::Compare: {
      const bool bool_out = e.kind == ElementwiseKind::Compare;
      return [d, bool_out](const ShapeContext& ctx) {
        check_dtypes(ctx, 0, d);
        ctx.expect_same_dtype(0, 1);
        TensorInfo t = with_shape(ctx.in(0), ops::broadcast_or_fail(ctx, 0, 1));
        if (bool_out) t.dtype = DType::Bool;
        return std::vector<TensorInfo>{t};
      };
    }
    case ElementwiseKind::BackwardX:
    case ElementwiseKind::BackwardY:
      return [](const ShapeContext& ctx) {
        ctx.expect_float(0);
        ctx.expect_same_dtype(0, 1);
        if (ctx.in(0).shape != ctx.in(1).shape) {
          ctx.fail(ErrorMessage("grad " + shape_str(ctx.in(0).shape) + " and saved tensor " +
                                shape_str(ctx.in(1).shape) + " must have one shape"));
        }
        return std::vector<TensorInfo>{ctx.in(0)};
      };
  }
  throw InternalError(std::string("elementwise_ops.def: unknown kind of ") + e.name);
}

std::vector<std::string> input_names(ElementwiseKind k) {
  switch (k) {
    case ElementwiseKind::Unary: return {"x"};
    case ElementwiseKind::BackwardX: return {"grad", "x"};
    case ElementwiseKind::BackwardY: return {"grad", "y"};
    default: return {"a", "b"};
  }
}

// The row's scalar attribute, passed on unchanged to the nodes its gradient emits.
Attrs scalar_attrs(const ElementwiseInfo& e, const GradContext& c) {
  return e.has_scalar() ? Attrs{{e.scalar, c.attrs().f(e.scalar)}} : Attrs{};
}

Attrs scalar_attr(const char* key, double v) { return Attrs{{key, v}}; }

// The gradients of a select out = cond ? input(ia) : input(ib): the incoming gradient where
// cond holds (else 0) for ia, the reverse for ib.
void select_gradient(GradContext& c, ValueId cond, int ia, int ib) {
  const ValueId g = c.grad_output(0);
  const ValueId zero = c.scalar(0.0, g);
  if (c.needs_grad(ia)) c.set_grad(ia, c.reduce_to(c.emit("Where", {cond, g, zero}), c.shape(c.input(ia))));
  if (c.needs_grad(ib)) c.set_grad(ib, c.reduce_to(c.emit("Where", {cond, zero, g}), c.shape(c.input(ib))));
}

// Maximum / Minimum (torch.maximum's subgradient): where a and b tie each gets half the
// gradient; elsewhere the one selected gets all of it. For Maximum:
//   da = where(a == b, g/2, g) masked to 0 where a < b,   db = the same masked where a > b.
GradFn extremum_gradient(bool is_max) {
  return [is_max](GradContext& c) {
    const ValueId g = c.grad_output(0);
    if (g == kNoValue) return;
    const ValueId a = c.input(0), b = c.input(1), zero = c.scalar(0.0, g);
    const ValueId shared = c.emit("Where", {c.emit("Equal", {a, b}), c.emit("MulScalar", {g}, Attrs{{"value", 0.5}}), g});
    const char* a_loses = is_max ? "Less" : "Greater";
    const char* b_loses = is_max ? "Greater" : "Less";
    if (c.needs_grad(0)) {
      c.set_grad(0, c.reduce_to(c.emit("Where", {c.emit(a_loses, {a, b}), zero, shared}), c.shape(a)));
    }
    if (c.needs_grad(1)) {
      c.set_grad(1, c.reduce_to(c.emit("Where", {c.emit(b_loses, {a, b}), zero, shared}), c.shape(b)));
    }
  };
}

// ---- the math rows' gradients (PyTorch's derivatives, emitted as nodes) ----
ValueId mul(GradContext& c, ValueId a, ValueId b) { return c.emit("Mul", {a, b}); }
ValueId scaled(GradContext& c, ValueId a, double k) { return c.emit("MulScalar", {a}, scalar_attr("value", k)); }
ValueId plus(GradContext& c, ValueId a, double k) { return c.emit("AddScalar", {a}, scalar_attr("value", k)); }
ValueId square(GradContext& c, ValueId a) { return mul(c, a, a); }

// A unary row whose gradient is grad * f(x, y) (x the input, y the output).
GradFn chain(ValueId (*df)(GradContext&, ValueId x, ValueId y)) {
  return [df](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    c.set_grad(0, mul(c, c.grad_output(0), df(c, c.input(0), c.output(0))));
  };
}

// Rows that are constant almost everywhere (sign, floor, ...): the input's gradient is zeros of its
// shape and dtype, as in PyTorch (x.grad is zeros after backward, not None), whatever the incoming
// gradient holds (an inf or NaN there gives 0 too).
void zero_gradient(GradContext& c) {
  if (c.grad_output(0) != kNoValue && c.needs_grad(0)) c.set_grad(0, ops::zeros_like(c, c.input(0)));
}

// A binary row out = f(a, b) with da = g * fa and db = g * fb (broadcast inputs reduced back).
void binary_gradient(GradContext& c, ValueId fa, ValueId fb) {
  const ValueId g = c.grad_output(0);
  if (c.needs_grad(0) && fa != kNoValue) c.set_grad(0, c.reduce_to(mul(c, g, fa), c.shape(c.input(0))));
  if (c.needs_grad(1) && fb != kNoValue) c.set_grad(1, c.reduce_to(mul(c, g, fb), c.shape(c.input(1))));
}

const double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
const double kTwoOverSqrtPi = 1.12837916709551257390;

// ---- the "custom" gradient rules, by row name ----
const std::map<std::string, GradFn>& gradient_rules() {
  static const std::map<std::string, GradFn> rules = {
      {"Add",
       [](GradContext& c) {
         const ValueId g = c.grad_output(0);
         if (g == kNoValue) return;
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(g, c.shape(c.input(0))));
         if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(g, c.shape(c.input(1))));
       }},
      {"Sub",
       [](GradContext& c) {
         const ValueId g = c.grad_output(0);
         if (g == kNoValue) return;
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(g, c.shape(c.input(0))));
         if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Neg", {g}), c.shape(c.input(1))));
       }},
      {"Mul",
       [](GradContext& c) {
         const ValueId g = c.grad_output(0);
         if (g == kNoValue) return;
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.emit("Mul", {g, c.input(1)}), c.shape(c.input(0))));
         if (c.needs_grad(1)) c.set_grad(1, c.reduce_to(c.emit("Mul", {g, c.input(0)}), c.shape(c.input(1))));
       }},
      {"Div",
       [](GradContext& c) {
         const ValueId g = c.grad_output(0);
         if (g == kNoValue) return;
         // d(a/b)/da = 1/b;  d(a/b)/db = -a/b^2 = -out/b
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.emit("Div", {g, c.input(1)}), c.shape(c.input(0))));
         if (c.needs_grad(1)) {
           const ValueId t = c.emit("Div", {c.emit("Mul", {g, c.output(0)}), c.input(1)});
           c.set_grad(1, c.reduce_to(c.emit("Neg", {t}), c.shape(c.input(1))));
         }
       }},
      {"Maximum", extremum_gradient(true)},
      {"Minimum", extremum_gradient(false)},
      // |x|' = sign(x): 0 at 0, as PyTorch's subgradient
      {"Abs", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Sign", {x}); })},
      {"Sign", zero_gradient},
      {"Floor", zero_gradient},
      {"Ceil", zero_gradient},
      {"Round", zero_gradient},
      {"Trunc", zero_gradient},
      {"Sin", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Cos", {x}); })},
      {"Cos", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Neg", {c.emit("Sin", {x})}); })},
      // tan' = 1 + tan^2
      {"Tan", chain([](GradContext& c, ValueId, ValueId y) { return plus(c, square(c, y), 1.0); })},
      // asin' = 1 / sqrt(1 - x^2), acos' = -asin'
      {"Asin", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("Rsqrt", {plus(c, c.emit("Neg", {square(c, x)}), 1.0)});
       })},
      {"Acos", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("Neg", {c.emit("Rsqrt", {plus(c, c.emit("Neg", {square(c, x)}), 1.0)})});
       })},
      // atan' = 1 / (1 + x^2)
      {"Atan", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("RDivScalar", {plus(c, square(c, x), 1.0)}, scalar_attr("value", 1.0));
       })},
      {"Sinh", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Cosh", {x}); })},
      {"Cosh", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Sinh", {x}); })},
      // asinh' = 1 / sqrt(x^2 + 1), acosh' = 1 / sqrt(x^2 - 1), atanh' = 1 / (1 - x^2)
      {"Asinh", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Rsqrt", {plus(c, square(c, x), 1.0)}); })},
      {"Acosh", chain([](GradContext& c, ValueId x, ValueId) { return c.emit("Rsqrt", {plus(c, square(c, x), -1.0)}); })},
      {"Atanh", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("RDivScalar", {plus(c, c.emit("Neg", {square(c, x)}), 1.0)}, scalar_attr("value", 1.0));
       })},
      // (2^x)' = 2^x ln 2, log2' = 1 / (x ln 2), log10' = 1 / (x ln 10), log1p' = 1 / (1 + x),
      // expm1' = exp(x) = y + 1, erf' = 2 / sqrt(pi) exp(-x^2), rsqrt' = -y^3 / 2
      {"Exp2", chain([](GradContext& c, ValueId, ValueId y) { return scaled(c, y, kLn2); })},
      {"Log2", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("RDivScalar", {x}, scalar_attr("value", 1.0 / kLn2));
       })},
      {"Log10", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("RDivScalar", {x}, scalar_attr("value", 1.0 / kLn10));
       })},
      {"Log1p", chain([](GradContext& c, ValueId x, ValueId) {
         return c.emit("RDivScalar", {plus(c, x, 1.0)}, scalar_attr("value", 1.0));
       })},
      {"Expm1", chain([](GradContext& c, ValueId, ValueId y) { return plus(c, y, 1.0); })},
      {"Erf", chain([](GradContext& c, ValueId x, ValueId) {
         return scaled(c, c.emit("Exp", {c.emit("Neg", {square(c, x)})}), kTwoOverSqrtPi);
       })},
      {"Rsqrt", chain([](GradContext& c, ValueId, ValueId y) { return scaled(c, mul(c, y, square(c, y)), -0.5); })},
      // d(a^b)/da = b a^(b-1), 0 where b = 0;  d(a^b)/db = a^b ln a, 0 where a = 0 and b >= 0
      {"Pow",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         const ValueId a = c.input(0), b = c.input(1), zero = c.scalar(0.0, c.output(0));
         ValueId fa = kNoValue, fb = kNoValue;
         if (c.needs_grad(0)) {
           const ValueId d = mul(c, b, c.emit("Pow", {a, plus(c, b, -1.0)}));
           fa = c.emit("Where", {c.emit("Equal", {b, c.scalar(0.0, b)}), zero, d});
         }
         if (c.needs_grad(1)) {
           const ValueId d = mul(c, c.output(0), c.emit("Log", {a}));
           const ValueId kept = c.emit("LogicalAnd", {c.emit("Equal", {a, c.scalar(0.0, a)}),
                                                      c.emit("GreaterEqual", {b, c.scalar(0.0, b)})});
           fb = c.emit("Where", {kept, zero, d});
         }
         binary_gradient(c, fa, fb);
       }},
      // atan2(a, b): da = b / (a^2 + b^2), db = -a / (a^2 + b^2)
      {"Atan2",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         const ValueId a = c.input(0), b = c.input(1);
         const ValueId r2 = c.emit("Add", {square(c, a), square(c, b)});
         binary_gradient(c, c.needs_grad(0) ? c.emit("Div", {b, r2}) : kNoValue,
                         c.needs_grad(1) ? c.emit("Div", {c.emit("Neg", {a}), r2}) : kNoValue);
       }},
      // remainder: da = 1, db = -floor(a / b);  fmod: da = 1, db = -trunc(a / b)
      {"Remainder",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         const ValueId a = c.input(0), b = c.input(1);
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.grad_output(0), c.shape(a)));
         if (c.needs_grad(1)) binary_gradient(c, kNoValue, c.emit("Neg", {c.emit("FloorDivide", {a, b})}));
       }},
      {"Fmod",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         const ValueId a = c.input(0), b = c.input(1);
         if (c.needs_grad(0)) c.set_grad(0, c.reduce_to(c.grad_output(0), c.shape(a)));
         if (c.needs_grad(1)) binary_gradient(c, kNoValue, c.emit("Neg", {c.emit("Trunc", {c.emit("Div", {a, b})})}));
       }},
      {"AddScalar",
       [](GradContext& c) {
         if (c.grad_output(0) != kNoValue) c.set_grad(0, c.grad_output(0));
       }},
      {"MulScalar",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         c.set_grad(0, c.emit("MulScalar", {c.grad_output(0)}, scalar_attr("value", c.attrs().f("value"))));
       }},
      {"PowScalar",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         const double p = c.attrs().f("exponent");
         if (p == 0.0) return zero_gradient(c);  // x^0 = 1 everywhere: zero gradient, at x = 0 too (PyTorch's)
         // d(x^p)/dx = p * x^(p-1)
         const ValueId d = c.emit("MulScalar", {c.emit("PowScalar", {c.input(0)}, scalar_attr("exponent", p - 1))},
                                  scalar_attr("value", p));
         c.set_grad(0, c.emit("Mul", {c.grad_output(0), d}));
       }},
      {"RDivScalar",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         // d(v/x)/dx = -v/x^2 = -out/x
         const ValueId t = c.emit("Div", {c.emit("Mul", {c.grad_output(0), c.output(0)}), c.input(0)});
         c.set_grad(0, c.emit("Neg", {t}));
       }},
      {"Neg",
       [](GradContext& c) {
         if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Neg", {c.grad_output(0)}));
       }},
      {"Exp",
       [](GradContext& c) {
         if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Mul", {c.grad_output(0), c.output(0)}));
       }},
      {"Log",
       [](GradContext& c) {
         if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("Div", {c.grad_output(0), c.input(0)}));
       }},
      {"Sqrt",
       [](GradContext& c) {
         if (c.grad_output(0) == kNoValue) return;
         // d sqrt(x)/dx = 1 / (2 sqrt(x))
         c.set_grad(0, c.emit("Div", {c.emit("MulScalar", {c.grad_output(0)}, scalar_attr("value", 0.5)), c.output(0)}));
       }},
      // Backward maps: the rule gives the saved value's gradient; grad's is generated (see gradient_of).
      {"SigmoidBackward",
       [](GradContext& c) {
         // d/dy [g y (1 - y)] = g (1 - 2y)
         const ValueId one_minus_2y = c.emit("AddScalar", {c.emit("MulScalar", {c.input(1)}, scalar_attr("value", -2.0))},
                                             scalar_attr("value", 1.0));
         c.set_grad(1, c.emit("Mul", {c.emit("Mul", {c.grad_output(0), c.input(0)}), one_minus_2y}));
       }},
      {"TanhBackward",
       [](GradContext& c) {
         // d/dy [g (1 - y^2)] = -2 g y
         const ValueId m2y = c.emit("MulScalar", {c.input(1)}, scalar_attr("value", -2.0));
         c.set_grad(1, c.emit("Mul", {c.emit("Mul", {c.grad_output(0), c.input(0)}), m2y}));
       }},
      // The activations' second derivatives (a gradient penalty through a critic's GELU, SiLU or ELU).
      {"GELUBackward",
       [](GradContext& c) {
         // d/dx [g (Phi(x) + x phi(x))] = g phi(x) (2 - x^2), phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
         const ValueId x = c.input(1), x2 = square(c, x);
         const ValueId phi = scaled(c, c.emit("Exp", {scaled(c, x2, -0.5)}), 0.3989422804014327);
         const ValueId d = mul(c, phi, plus(c, c.emit("Neg", {x2}), 2.0));
         c.set_grad(1, mul(c, mul(c, c.grad_output(0), c.input(0)), d));
       }},
      {"SiLUBackward",
       [](GradContext& c) {
         // d/dx [g s (1 + x (1 - s))] = g s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x)
         const ValueId x = c.input(1), s = c.emit("Sigmoid", {x});
         const ValueId t = mul(c, s, plus(c, c.emit("Neg", {s}), 1.0));
         const ValueId d = mul(c, t, plus(c, mul(c, x, plus(c, scaled(c, s, -2.0), 1.0)), 2.0));
         c.set_grad(1, mul(c, mul(c, c.grad_output(0), c.input(0)), d));
       }},
      {"ELUBackward",
       [](GradContext& c) {
         // d/dx [x <= 0 ? g alpha exp(x) : g] = x <= 0 ? g alpha exp(x) : 0
         const ValueId x = c.input(1);
         const ValueId d = scaled(c, c.emit("Exp", {x}), c.attrs().f("alpha"));
         const ValueId in_neg = c.emit("LessEqual", {x, c.scalar(0.0, x)});
         c.set_grad(1, c.emit("Where", {in_neg, mul(c, mul(c, c.grad_output(0), c.input(0)), d), c.scalar(0.0, x)}));
       }},
      {"SoftplusBackward",
       [](GradContext& c) {
         // d/dx [x > threshold ? g : g s] = x > threshold ? 0 : g s (1 - s), s = sigmoid(x)
         const ValueId x = c.input(1), sg = c.emit("Sigmoid", {x});
         const ValueId d = mul(c, sg, plus(c, c.emit("Neg", {sg}), 1.0));
         const ValueId above = c.emit("Greater", {x, c.scalar(c.attrs().f("threshold"), x)});
         c.set_grad(1, c.emit("Where", {above, c.scalar(0.0, x), mul(c, mul(c, c.grad_output(0), c.input(0)), d)}));
       }},
      {"HardswishBackward",
       [](GradContext& c) {
         // d/dx [g (x / 3 + 1/2)] = g / 3 strictly inside (-3, 3), else 0 (PyTorch's bounds)
         const ValueId x = c.input(1);
         const ValueId inside = c.emit("LogicalAnd", {c.emit("Greater", {x, c.scalar(-3.0, x)}),
                                                      c.emit("Less", {x, c.scalar(3.0, x)})});
         const ValueId d = scaled(c, mul(c, c.grad_output(0), c.input(0)), 1.0 / 3.0);
         c.set_grad(1, c.emit("Where", {inside, d, c.scalar(0.0, x)}));
       }},
      {"MishBackward",
       [](GradContext& c) {
         // d/dx [g (t + x s (1 - t^2))] = g (1 - t^2) (2 s + x s (1 - s) - 2 x s^2 t),
         // t = tanh(softplus(x)), s = sigmoid(x) (dt/dx = (1 - t^2) s)
         const ValueId x = c.input(1), sg = c.emit("Sigmoid", {x});
         const ValueId t = c.emit("Tanh", {c.emit("Log1p", {c.emit("Exp", {x})})});
         const ValueId one_t2 = plus(c, c.emit("Neg", {square(c, t)}), 1.0);
         const ValueId xs = mul(c, x, sg);
         const ValueId inner = c.emit("Sub", {c.emit("Add", {scaled(c, sg, 2.0), mul(c, xs, plus(c, c.emit("Neg", {sg}), 1.0))}),
                                              scaled(c, mul(c, mul(c, xs, sg), t), 2.0)});
         c.set_grad(1, mul(c, mul(c, c.grad_output(0), c.input(0)), mul(c, one_t2, inner)));
       }},
      {"GELUTanhBackward",
       [](GradContext& c) {
         // With z = k (x + a x^3), k = sqrt(2 / pi), a = 0.044715, t = tanh(z), z' = k (1 + 3 a x^2):
         // d/dx [g ((1 + t) / 2 + x (1 - t^2) z' / 2)] = g (1 - t^2) (z' - x t z'^2 + 3 k a x^2)
         const double k = 0.79788456080286535588, a = 0.044715;
         const ValueId x = c.input(1), x2 = square(c, x);
         const ValueId t = c.emit("Tanh", {scaled(c, c.emit("Add", {x, scaled(c, mul(c, x2, x), a)}), k)});
         const ValueId dz = plus(c, scaled(c, x2, 3 * a * k), k);
         const ValueId inner = c.emit("Sub", {c.emit("Add", {dz, scaled(c, x2, 3 * k * a)}), mul(c, mul(c, x, t), square(c, dz))});
         const ValueId one_t2 = plus(c, c.emit("Neg", {square(c, t)}), 1.0);
         c.set_grad(1, mul(c, mul(c, c.grad_output(0), c.input(0)), mul(c, one_t2, inner)));
       }},
  };
  return rules;
}

// The gradient rule a row's Gradient column names; checks the column against the table.
GradFn gradient_of(const ElementwiseInfo& e) {
  const std::string how = e.gradient;
  auto bad = [&](const std::string& why) {
    return InternalError(std::string("elementwise_ops.def, row ") + e.name + ": " + why);
  };
  if (how.empty()) return nullptr;
  const auto rule = gradient_rules().find(e.name);
  const bool custom = how == "custom";
  if (custom && rule == gradient_rules().end()) throw bad("Gradient \"custom\" but no rule in src/ops/elementwise.cpp");
  if (e.is_backward()) {
    if (!custom && how != "linear") throw bad("a BackwardX / BackwardY row's Gradient is \"linear\" or \"custom\"");
    // Linear in grad: its gradient is the same map of the incoming one. The saved value's:
    // zero ("linear": piecewise constant) or the custom rule's.
    const GradFn saved = custom ? rule->second : nullptr;
    return [e, saved](GradContext& c) {
      if (c.grad_output(0) == kNoValue) return;
      if (c.needs_grad(0)) c.set_grad(0, c.emit(e.name, {c.grad_output(0), c.input(1)}, scalar_attrs(e, c)));
      if (saved && c.needs_grad(1)) saved(c);
    };
  }
  if (custom) return rule->second;
  const ElementwiseInfo* bwd = find_elementwise(how);
  if (e.kind != ElementwiseKind::Unary || !bwd || !bwd->is_backward() || std::string(bwd->scalar) != e.scalar) {
    throw bad("Gradient \"" + how + "\" must name a BackwardX / BackwardY row with the same Scalar, from a Unary row");
  }
  const bool saves_input = bwd->kind == ElementwiseKind::BackwardX;
  return [how, saves_input, e](GradContext& c) {
    if (c.grad_output(0) == kNoValue) return;
    const ValueId saved = saves_input ? c.input(0) : c.output(0);
    c.set_grad(0, c.emit(how, {c.grad_output(0), saved}, scalar_attrs(e, c)));
  };
}

// Where (families/elementwise.def): a select over a bool condition and two values, read with
// any strides; the values' dtype picks the kernel.
void where(OpSchema& s) {
  s.elementwise = true;
  s.strided_inputs = true;
  s.dispatch_input = 1;
  s.infer = [](const ShapeContext& ctx) {
    ctx.expect_dtype(0, DType::Bool);
    ctx.expect_same_dtype(1, 2);
    // condition, input, other: PyTorch's operand order, so a failure names the shapes as its error does
    return std::vector<TensorInfo>{with_shape(ctx.in(1), ops::broadcast_inputs_or_fail(ctx, {0, 1, 2}))};
  };
  s.gradient = [](GradContext& c) {
    if (c.grad_output(0) != kNoValue) select_gradient(c, c.input(0), 1, 2);
  };
}

// AddScalarInPlace: AddScalar written into its input's buffer (a counter's increment, e.g.
// BatchNorm's num_batches_tracked: one launch instead of an AddScalar and an Assign's copy).
// The kernels are AddScalar's, whose output buffer here is the input's: each element is
// read before it is written. Not a fusion candidate (its output is a persistent target).
void add_scalar_in_place(OpSchema& s) {
  s.strided_inputs = true;
  s.inplace = {{0, 0}};
  s.stops_gradient = true;
  s.infer = infer_of(kTable[static_cast<int>(ElementwiseOp::AddScalar)]);
}

}  // namespace

const ElementwiseInfo* elementwise_table() { return kTable; }

const ElementwiseInfo& elementwise_info(ElementwiseOp op) {
  const int i = static_cast<int>(op);
  if (i < 0 || i >= kElementwiseOpCount) throw InternalError("unknown elementwise op code " + std::to_string(i));
  return kTable[i];
}

const ElementwiseInfo* find_elementwise(const std::string& name) {
  for (const ElementwiseInfo& e : kTable) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

void register_elementwise_ops(OpRegistry& r) {
  size_t custom = 0;
  for (const ElementwiseInfo& e : kTable) {
    OpSchema s = elementwise_schema(e.name, input_names(e.kind), e.formula);
    s.infer = infer_of(e);
    s.gradient = gradient_of(e);
    custom += std::string(e.gradient) == "custom";
    r.add(std::move(s));
  }
  if (custom != gradient_rules().size()) {
    throw InternalError("src/ops/elementwise.cpp has a gradient rule for a row whose Gradient is not \"custom\"");
  }

#define GG_OP GG_ADD_OP_SCHEMA
#include "glassgrad/autodiff/families/elementwise.def"
}

}  // namespace glassgrad
