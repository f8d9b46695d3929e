"""Reductions (autodiff-engine/src/ops/reduction.cpp): Sum, Mean, Max{dims, keepdim} as ONNX
ReduceSum, ReduceMean, ReduceMax (no dims: every axis); Var{dims, keepdim, correction} as
ReduceMean((x - mean)^2) * count / (count - correction), count being the number of values
reduced (read from the input's shape at run time when it follows a dynamic axis);
ArgMax{dim, keepdim} as ArgMax (the first maximum, as glassgrad's)."""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts
from .._symbolic import Sym


def _dims(ctx: NodeContext):
    dims = ctx.attr("dims")
    return None if not dims else [int(d) for d in dims]


def _reduce(onnx_op: str):
    def convert(ctx: NodeContext):
        return ctx.reduce(onnx_op, ctx.inputs[0], _dims(ctx), bool(ctx.attr("keepdim", False)))
    return convert


converts("Sum", onnx="ReduceSum")(_reduce("ReduceSum"))
converts("Mean", onnx="ReduceMean")(_reduce("ReduceMean"))
converts("Max", onnx="ReduceMax")(_reduce("ReduceMax"))


@converts("Var", onnx="ReduceMean, Sub, Mul (and the count's correction)")
def var(ctx: NodeContext):
    x, dt = ctx.inputs[0], ctx.in_dtypes[0]
    dims = _dims(ctx)
    keep = bool(ctx.attr("keepdim", False))
    centered = ctx.emit("Sub", x, ctx.reduce("ReduceMean", x, dims, True))
    out = ctx.reduce("ReduceMean", ctx.emit("Mul", centered, centered), dims, keep)
    correction = int(ctx.attr("correction", 1))
    if correction == 0:
        return out
    shape = ctx.in_shapes[0]
    axes = range(len(shape)) if dims is None else [d % len(shape) for d in dims]
    sizes = [shape[a] for a in axes]
    if not any(isinstance(s, Sym) for s in sizes):
        count = 1
        for s in sizes:
            count *= int(s)
        return ctx.emit("Mul", out, ctx.scalar(count / (count - correction) if count != correction else float("inf"),
                                               dt))
    counted = ctx.reduce("ReduceProd", ctx.emit("Gather", ctx.emit("Shape", x), ctx.ints(list(axes)), axis=0), None,
                         False)
    count = ctx.cast(counted, dt)
    return ctx.emit("Mul", out, ctx.emit("Div", count, ctx.emit("Sub", count, ctx.scalar(correction, dt))))


@converts("ArgMax", onnx="ArgMax")
def argmax(ctx: NodeContext):
    return ctx.emit("ArgMax", ctx.inputs[0], axis=int(ctx.attr("dim")), keepdims=int(bool(ctx.attr("keepdim", False))),
                    select_last_index=0)
