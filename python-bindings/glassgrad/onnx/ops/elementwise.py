"""The rows of the elementwise table (autodiff-engine/include/glassgrad/autodiff/elementwise_ops.def)
as ONNX ops. Each entry computes one row's formula from ONNX names of its operands, so the same
functions serve the ops themselves and the instructions of a FusedElementwise program (fused.py).

Where ONNX has no op of the same formula, the formula is spelled out: SiLU = x * Sigmoid(x), GELU
before opset 20 = x/2 * (1 + Erf(x / sqrt 2)) (its tanh form likewise), Softplus with PyTorch's
threshold = Where(x > threshold, x, Softplus(x)), NotEqual = Not(Equal).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List

from ... import _C
from .._context import NodeContext
from .._registry import converts

# fn(ctx, operands, scalar attribute value, dtype of the result's operands) -> output name
Formula = Callable[[NodeContext, List[str], float, str], str]
FORMULAS: Dict[str, Formula] = {}
SCALAR_ATTR: Dict[str, str] = {}   # op -> the attribute holding its scalar


def _simple(onnx_op: str) -> Formula:
    return lambda ctx, xs, s, dt: ctx.emit(onnx_op, *xs)


def _gelu(ctx: NodeContext, xs, s, dt, approximate: str = "none") -> str:
    x = xs[0]
    if ctx.opset >= 20:
        return ctx.emit("Gelu", x, approximate=approximate)
    half = ctx.emit("Mul", x, ctx.scalar(0.5, dt))
    if approximate == "tanh":  # x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
        cube = ctx.emit("Mul", ctx.emit("Mul", x, x), x)
        inner = ctx.emit("Add", x, ctx.emit("Mul", cube, ctx.scalar(0.044715, dt)))
        t = ctx.emit("Tanh", ctx.emit("Mul", inner, ctx.scalar(math.sqrt(2.0 / math.pi), dt)))
    else:  # x/2 * (1 + erf(x / sqrt 2))
        t = ctx.emit("Erf", ctx.emit("Mul", x, ctx.scalar(1.0 / math.sqrt(2.0), dt)))
    return ctx.emit("Mul", half, ctx.emit("Add", t, ctx.scalar(1.0, dt)))


def _softplus(ctx: NodeContext, xs, threshold, dt) -> str:
    x = xs[0]
    return ctx.emit("Where", ctx.emit("Greater", x, ctx.scalar(threshold, dt)), x, ctx.emit("Softplus", x))


def _is_float(dt: str) -> bool:
    return dt.startswith("float") or dt == "bfloat16"


def _whole(onnx_op: str) -> Formula:
    """Floor, Ceil, Round: ONNX's op on floats; an integer is already whole."""
    return lambda ctx, xs, s, dt: ctx.emit(onnx_op, xs[0]) if _is_float(dt) else xs[0]


def _sign(ctx: NodeContext, xs, s, dt) -> str:
    """Sign, with 0 for NaN as the kernel (and PyTorch) give."""
    x = xs[0]
    if not _is_float(dt):
        return ctx.emit("Sign", x)
    return ctx.emit("Where", ctx.emit("IsNaN", x), ctx.scalar(0.0, dt), ctx.emit("Sign", x))


def _trunc(ctx: NodeContext, xs, s, dt) -> str:
    x = xs[0]
    if not _is_float(dt):
        return x
    return ctx.emit("Where", ctx.emit("Less", x, ctx.scalar(0, dt)), ctx.emit("Ceil", x), ctx.emit("Floor", x))


def _log_base(base: float) -> Formula:
    return lambda ctx, xs, s, dt: ctx.emit("Div", ctx.emit("Log", xs[0]), ctx.scalar(math.log(base), dt))


def _log1p(ctx: NodeContext, xs, s, dt) -> str:
    """log(1 + x) without losing small x: with u = 1 + x rounded, x * log(u) / (u - 1), and x
    itself where u rounds to 1 (Goldberg, "What every computer scientist should know about
    floating-point arithmetic", theorem 4)."""
    x = xs[0]
    u = ctx.emit("Add", x, ctx.scalar(1.0, dt))
    d = ctx.emit("Sub", u, ctx.scalar(1.0, dt))
    exact = ctx.emit("Mul", x, ctx.emit("Div", ctx.emit("Log", u), d))
    return ctx.emit("Where", ctx.emit("Equal", d, ctx.scalar(0.0, dt)), x, exact)


def _expm1(ctx: NodeContext, xs, s, dt) -> str:
    """exp(x) - 1 without losing small x: with u = exp(x), (u - 1) * x / log(u) (Kahan's), x where
    u rounds to 1, and u - 1 itself where u is 0 or infinite."""
    x = xs[0]
    u = ctx.emit("Exp", x)
    d = ctx.emit("Sub", u, ctx.scalar(1.0, dt))
    exact = ctx.emit("Div", ctx.emit("Mul", d, x), ctx.emit("Log", u))
    edge = ctx.emit("Or", ctx.emit("Equal", u, ctx.scalar(0.0, dt)), ctx.emit("IsInf", u))
    return ctx.emit("Where", ctx.emit("Equal", d, ctx.scalar(0.0, dt)), x, ctx.emit("Where", edge, d, exact))


def _atan2(ctx: NodeContext, xs, s, dt) -> str:
    """atan2(a, b) = atan(a / b), plus pi when b < 0 and a >= 0, minus pi when b < 0 and a < 0
    (b = 0 needs no case: a / b is an infinity of a's sign, and atan of it +-pi/2); 0 where both
    are 0."""
    a, b = xs
    zero = ctx.scalar(0.0, dt)
    base = ctx.emit("Atan", ctx.emit("Div", a, b))
    turn = ctx.emit("Where", ctx.emit("Less", a, zero), ctx.scalar(-math.pi, dt), ctx.scalar(math.pi, dt))
    out = ctx.emit("Where", ctx.emit("Less", b, zero), ctx.emit("Add", base, turn), base)
    both_zero = ctx.emit("And", ctx.emit("Equal", a, zero), ctx.emit("Equal", b, zero))
    return ctx.emit("Where", both_zero, zero, out)


def _int_divisor(ctx: NodeContext, b: str, dt: str):
    """An integer divisor with 0 and -1 replaced by 1 (a runtime traps on x / 0 and on INT_MIN / -1),
    and the masks of where they were."""
    is_zero = ctx.emit("Equal", b, ctx.scalar(0, dt))
    is_minus_one = ctx.emit("Equal", b, ctx.scalar(-1, dt))
    safe = ctx.emit("Where", ctx.emit("Or", is_zero, is_minus_one), ctx.scalar(1, dt), b)
    return safe, is_zero, is_minus_one


def _differs_in_sign(ctx: NodeContext, m: str, b: str, dt: str) -> str:
    """m != 0 and (m < 0) != (b < 0): where a truncated quotient or remainder needs the floor's
    correction."""
    zero = ctx.scalar(0, dt)
    return ctx.emit("And", ctx.emit("Not", ctx.emit("Equal", m, zero)),
                    ctx.emit("Xor", ctx.emit("Less", m, zero), ctx.emit("Less", b, zero)))


def _fmod(ctx: NodeContext, xs, s, dt) -> str:
    """C's fmod (the sign of a); for integers 0 where b is 0 or -1, as glassgrad's kernel."""
    a, b = xs
    if _is_float(dt):
        return ctx.emit("Mod", a, b, fmod=1)
    safe, is_zero, is_minus_one = _int_divisor(ctx, b, dt)
    m = ctx.emit("Mod", a, safe, fmod=1)
    return ctx.emit("Where", ctx.emit("Or", is_zero, is_minus_one), ctx.scalar(0, dt), m)


def _remainder(ctx: NodeContext, xs, s, dt) -> str:
    """Python's remainder (the sign of b), from fmod as the kernel computes it: m + b where m is
    not 0 and differs from b in sign."""
    a, b = xs
    m = _fmod(ctx, xs, s, dt)
    return ctx.emit("Where", _differs_in_sign(ctx, m, b, dt), ctx.emit("Add", m, b), m)


def _floor_divide(ctx: NodeContext, xs, s, dt) -> str:
    """floor(a / b) as the kernel computes it. Floats (PyTorch's div_floor_floating): m = fmod(a, b),
    q = (a - m) / b, minus 1 where m differs from b in sign, then the nearest whole number below
    q (rounded up when q is more than a half above it); a / b where b is 0. Integers: the truncated
    quotient, minus 1 where the remainder differs from b in sign; 0 where b is 0, -a where b is -1."""
    a, b = xs
    if _is_float(dt):
        one = ctx.scalar(1.0, dt)
        m = ctx.emit("Mod", a, b, fmod=1)
        q = ctx.emit("Div", ctx.emit("Sub", a, m), b)
        q = ctx.emit("Where", _differs_in_sign(ctx, m, b, dt), ctx.emit("Sub", q, one), q)
        f = ctx.emit("Floor", q)
        f = ctx.emit("Where", ctx.emit("Greater", ctx.emit("Sub", q, f), ctx.scalar(0.5, dt)), ctx.emit("Add", f, one), f)
        return ctx.emit("Where", ctx.emit("Equal", b, ctx.scalar(0.0, dt)), ctx.emit("Div", a, b), f)
    safe, is_zero, is_minus_one = _int_divisor(ctx, b, dt)
    q = ctx.emit("Div", a, safe)
    r = ctx.emit("Sub", a, ctx.emit("Mul", q, safe))
    q = ctx.emit("Where", _differs_in_sign(ctx, r, safe, dt), ctx.emit("Sub", q, ctx.scalar(1, dt)), q)
    q = ctx.emit("Where", is_minus_one, ctx.emit("Neg", a), q)
    return ctx.emit("Where", is_zero, ctx.scalar(0, dt), q)


def _truth(ctx: NodeContext, x: str, dt: str) -> str:
    return x if dt == "bool" else ctx.emit("Not", ctx.emit("Equal", x, ctx.scalar(0, dt)))


def _logical(onnx_op: str) -> Formula:
    return lambda ctx, xs, s, dt: ctx.emit(onnx_op, *[_truth(ctx, x, dt) for x in xs])


def _hardswish(ctx: NodeContext, xs, s, dt) -> str:
    # x * min(max(x + 3, 0), 6) / 6: ONNX HardSwish is x * max(0, min(1, x/6 + 1/2)), the same
    # function rounded otherwise; written as the kernel computes it.
    x = xs[0]
    return ctx.emit("Div", ctx.emit("Mul", x, _relu6(ctx, ctx.emit("Add", x, ctx.scalar(3.0, dt)), dt)),
                    ctx.scalar(6.0, dt))


def _relu6(ctx: NodeContext, x: str, dt: str) -> str:
    return ctx.emit("Min", ctx.emit("Max", x, ctx.scalar(0.0, dt)), ctx.scalar(6.0, dt))


def _clamp(bound_is_min: bool) -> Formula:
    """HardtanhMin / HardtanhMax: x where it does not clamp (NaN stays NaN), the bound where it does."""
    def formula(ctx: NodeContext, xs, s, dt) -> str:
        x, bound = xs[0], ctx.scalar(s, dt)
        beyond = ctx.emit("Less" if bound_is_min else "Greater", x, bound)
        return ctx.emit("Where", beyond, bound, x)
    return formula


def _mish(ctx: NodeContext, xs, s, dt) -> str:
    x = xs[0]
    return ctx.emit("Mul", x, ctx.emit("Tanh", ctx.emit("Softplus", x)))


_TABLE = {
    # binary
    "Add": _simple("Add"), "Sub": _simple("Sub"), "Mul": _simple("Mul"), "Div": _simple("Div"),
    "Maximum": _simple("Max"), "Minimum": _simple("Min"),
    # unary
    "Neg": _simple("Neg"), "Exp": _simple("Exp"), "Log": _simple("Log"), "Sqrt": _simple("Sqrt"),
    "ReLU": _simple("Relu"), "Sigmoid": _simple("Sigmoid"), "Tanh": _simple("Tanh"),
    "AddScalar": lambda ctx, xs, s, dt: ctx.emit("Add", xs[0], ctx.scalar(s, dt)),
    "MulScalar": lambda ctx, xs, s, dt: ctx.emit("Mul", xs[0], ctx.scalar(s, dt)),
    "PowScalar": lambda ctx, xs, s, dt: ctx.emit("Pow", xs[0], ctx.scalar(s, dt)),
    "RDivScalar": lambda ctx, xs, s, dt: ctx.emit("Div", ctx.scalar(s, dt), xs[0]),
    "LeakyReLU": lambda ctx, xs, s, dt: ctx.emit("LeakyRelu", xs[0], alpha=float(s)),
    "GELU": lambda ctx, xs, s, dt: _gelu(ctx, xs, s, dt),
    "GELUTanh": lambda ctx, xs, s, dt: _gelu(ctx, xs, s, dt, "tanh"),
    "SiLU": lambda ctx, xs, s, dt: ctx.emit("Mul", xs[0], ctx.emit("Sigmoid", xs[0])),
    "ELU": lambda ctx, xs, s, dt: ctx.emit("Elu", xs[0], alpha=float(s)),
    "Softplus": _softplus,
    # comparisons (bool results)
    "Equal": _simple("Equal"), "Less": _simple("Less"), "LessEqual": _simple("LessOrEqual"),
    "Greater": _simple("Greater"), "GreaterEqual": _simple("GreaterOrEqual"),
    "NotEqual": lambda ctx, xs, s, dt: ctx.emit("Not", ctx.emit("Equal", *xs)),
    # PyTorch's math functions
    "Abs": _simple("Abs"), "Sign": _sign, "Sin": _simple("Sin"), "Cos": _simple("Cos"),
    "Tan": _simple("Tan"), "Asin": _simple("Asin"), "Acos": _simple("Acos"), "Atan": _simple("Atan"),
    "Sinh": _simple("Sinh"), "Cosh": _simple("Cosh"), "Asinh": _simple("Asinh"), "Acosh": _simple("Acosh"),
    "Atanh": _simple("Atanh"), "Erf": _simple("Erf"),
    "Exp2": lambda ctx, xs, s, dt: ctx.emit("Pow", ctx.scalar(2.0, dt), xs[0]),
    "Log2": _log_base(2.0), "Log10": _log_base(10.0), "Log1p": _log1p, "Expm1": _expm1,
    "Rsqrt": lambda ctx, xs, s, dt: ctx.emit("Reciprocal", ctx.emit("Sqrt", xs[0])),
    "Floor": _whole("Floor"), "Ceil": _whole("Ceil"), "Round": _whole("Round"), "Trunc": _trunc,
    "Pow": _simple("Pow"), "Atan2": _atan2, "Remainder": _remainder, "Fmod": _fmod, "FloorDivide": _floor_divide,
    "LogicalAnd": _logical("And"), "LogicalOr": _logical("Or"), "LogicalXor": _logical("Xor"),
    # the hard activations and Mish
    "HardtanhMin": _clamp(True), "HardtanhMax": _clamp(False), "Hardswish": _hardswish,
    "Hardsigmoid": lambda ctx, xs, s, dt: ctx.emit("Div", _relu6(ctx, ctx.emit("Add", xs[0], ctx.scalar(3.0, dt)), dt),
                                                   ctx.scalar(6.0, dt)),
    "Mish": _mish,
}
_ONNX_NAMES = {
    "Maximum": "Max", "Minimum": "Min", "ReLU": "Relu", "AddScalar": "Add", "MulScalar": "Mul", "PowScalar": "Pow",
    "RDivScalar": "Div", "LeakyReLU": "LeakyRelu", "GELU": "Gelu (opset 20+) or Erf, Mul, Add",
    "GELUTanh": "Gelu (opset 20+) or Tanh, Mul, Add", "SiLU": "Sigmoid, Mul", "ELU": "Elu",
    "Softplus": "Softplus, Greater, Where", "LessEqual": "LessOrEqual", "GreaterEqual": "GreaterOrEqual",
    "NotEqual": "Equal, Not",
    "Exp2": "Pow", "Log2": "Log, Div", "Log10": "Log, Div", "Log1p": "Log, Add, Sub, Div, Mul, Where",
    "Expm1": "Exp, Sub, Mul, Div, Log, Where", "Rsqrt": "Sqrt, Reciprocal", "Sign": "Sign (NaN: IsNaN, Where)", "Floor": "Floor (integers: none)",
    "Ceil": "Ceil (integers: none)", "Round": "Round (integers: none)", "Trunc": "Floor, Ceil, Where (integers: none)",
    "Atan2": "Div, Atan, Add, Where", "Remainder": "Mod, Add, Where", "Fmod": "Mod",
    "FloorDivide": "Mod, Sub, Div, Floor, Where (integers: Div, Mul, Sub, Where)", "LogicalAnd": "And",
    "LogicalOr": "Or", "LogicalXor": "Xor", "HardtanhMin": "Less, Where", "HardtanhMax": "Greater, Where",
    "Hardswish": "Add, Max, Min, Mul, Div", "Hardsigmoid": "Add, Max, Min, Div", "Mish": "Softplus, Tanh, Mul",
}
# The attribute each row reads its scalar from, as the engine's table says.
_SCALARS = {row["name"]: row["scalar"] for row in _C.elementwise_ops() if row["scalar"]}


def _register(op: str, formula: Formula) -> None:
    FORMULAS[op] = formula
    if op in _SCALARS:
        SCALAR_ATTR[op] = _SCALARS[op]

    @converts(op, onnx=_ONNX_NAMES.get(op, op))
    def convert(ctx: NodeContext, op=op, formula=formula):
        dt = ctx.in_dtypes[0]
        scalar = ctx.attr(SCALAR_ATTR[op]) if op in SCALAR_ATTR else 0.0
        return formula(ctx, list(ctx.inputs), scalar, dt)


for _op, _formula in _TABLE.items():
    _register(_op, _formula)
