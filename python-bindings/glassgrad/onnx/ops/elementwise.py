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
}
_ONNX_NAMES = {
    "Maximum": "Max", "Minimum": "Min", "ReLU": "Relu", "AddScalar": "Add", "MulScalar": "Mul", "PowScalar": "Pow",
    "RDivScalar": "Div", "LeakyReLU": "LeakyRelu", "GELU": "Gelu (opset 20+) or Erf, Mul, Add",
    "GELUTanh": "Gelu (opset 20+) or Tanh, Mul, Add", "SiLU": "Sigmoid, Mul", "ELU": "Elu",
    "Softplus": "Softplus, Greater, Where", "LessEqual": "LessOrEqual", "GreaterEqual": "GreaterOrEqual",
    "NotEqual": "Equal, Not",
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
