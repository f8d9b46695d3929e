"""Scans, sorts and reversals along one axis (autodiff-engine/src/ops/scan.cpp).

CumSum{dim, reverse} is ONNX CumSum. Flip{dim} is a Slice with step -1. Sort{dim, descending}
and TopK{dim, k, largest} are ONNX TopK (k the axis's size for Sort), which puts equal values in
index order, so both are stable as glassgrad's; NaN sorts as the largest value in glassgrad, so
TopK orders a copy with NaN replaced by +inf, and the values are gathered from the input by the
indices it returns. CumProd{dim} has no ONNX op: out_j = prod_i where(i <= j, x_i, 1), a ReduceProd
over a new axis of x against a triangular mask (n^2 values for an axis of n: exact, zeros and
negative factors included, for the short axes a model multiplies along).
"""
from __future__ import annotations

import numpy as np

from .._context import NodeContext
from .._registry import converts
from .._symbolic import Sym


def _dim(ctx: NodeContext) -> int:
    rank = max(ctx.rank(0), 1)
    return int(ctx.static_attr("dim")) % rank


@converts("CumSum", onnx="CumSum")
def cumsum(ctx: NodeContext):
    return ctx.emit("CumSum", ctx.inputs[0], ctx.const(np.int64(_dim(ctx))),
                    reverse=int(bool(ctx.attr("reverse", False))))


@converts("Flip", onnx="Slice (step -1)")
def flip(ctx: NodeContext):
    lowest = np.iinfo(np.int64).min
    return ctx.emit("Slice", ctx.inputs[0], ctx.ints([-1]), ctx.ints([lowest]), ctx.ints([_dim(ctx)]), ctx.ints([-1]))


@converts("CumProd", onnx="Unsqueeze, Where, ReduceProd (a triangular mask)")
def cumprod(ctx: NodeContext):
    d = _dim(ctx)
    n = ctx.in_shapes[0][d]
    if isinstance(n, Sym):
        ctx.fail(f"a cumulative product along a dynamic axis (dim {d}): its ONNX form is a [n, n] mask of the "
                 f"axis's size", "keep that axis static (leave it out of dynamic_axes)")
    n, rank = int(n), ctx.rank(0)
    # x as [..., 1 (j), n (i), ...]: factor i of output j, kept where i <= j.
    factors = ctx.emit("Unsqueeze", ctx.inputs[0], ctx.ints([d]))
    mask = np.tril(np.ones((n, n), dtype=bool)).reshape((n, n) + (1,) * (rank - 1 - d))
    one = ctx.scalar(1, ctx.in_dtypes[0])
    kept = ctx.emit("Where", ctx.const(mask), factors, one)
    return ctx.reduce("ReduceProd", kept, [d + 1], False)


def _ordered(ctx: NodeContext, k, largest: bool):
    x, dt = ctx.inputs[0], ctx.in_dtypes[0]
    d = _dim(ctx)
    key = x
    if dt.startswith("float"):
        key = ctx.emit("Where", ctx.emit("IsNaN", x), ctx.scalar(np.inf, dt), x)
    count = ctx.b.dim(k)
    values, indices = ctx.node("TopK", [key, count], 2, axis=d, largest=int(largest), sorted=1)
    if key is not x:
        values = ctx.emit("GatherElements", x, indices, axis=d)
    return [values, indices]


@converts("Sort", onnx="TopK (k the axis's size)")
def sort(ctx: NodeContext):
    return _ordered(ctx, ctx.in_shapes[0][_dim(ctx)], bool(ctx.attr("descending", False)))


@converts("TopK", onnx="TopK")
def topk(ctx: NodeContext):
    return _ordered(ctx, int(ctx.static_attr("k")), bool(ctx.attr("largest", True)))
