"""Indexing ops (autodiff-engine/src/ops/indexing.cpp) as ONNX's gathers and scatters.

Gather{dim} is GatherElements (x cut first to the index's size along the other axes: glassgrad's
index may be smaller there); Scatter{dim, reduce} is ScatterElements (reduction add or mul, src
cut to the index's shape); IndexSelect{dim} is Gather; IndexAdd{dim} and SliceScatter{dim, start,
stop, step} are ScatterElements with the 1-d positions broadcast along src (reduction add for
IndexAdd: repeated indices add up). Index{dims} (NumPy's advanced indexing) is Gather for one
index tensor; for several, x is transposed so the indexed axes come first, the indices are
broadcast and stacked, GatherND reads, and where the indexed axes are adjacent the broadcast axes
move back to their place (NumPy's rule, indexing.h). IndexPut{dims, accumulate} is the same
transposition with ScatterND (reduction add when accumulating), values broadcast to the shape
of x[indices] and laid out as the transposed x's. Negative index values count from the end
(Where(i < 0, i + size, i)). Every scatter needs opset 16 (its reduction attribute).
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .._context import NodeContext
from .._registry import converts
from .._symbolic import Dim


def _dim(ctx: NodeContext) -> int:
    return int(ctx.static_attr("dim")) % max(ctx.rank(0), 1)


def _along(ctx: NodeContext, index: str, dim: int, rank: int, like: str) -> str:
    """A 1-d index as a tensor of `like`'s shape: index[j] at every position whose dim-th
    coordinate is j."""
    shape = [1] * rank
    shape[dim] = -1
    return ctx.emit("Expand", ctx.emit("Reshape", index, ctx.ints(shape)), ctx.emit("Shape", like))


def _cut(ctx: NodeContext, x: str, have: Sequence[Dim], want: Sequence[Dim], skip: int = -1) -> str:
    """x cut to the sizes `want` along the axes (but `skip`) where they differ from `have`."""
    axes = [a for a in range(len(want)) if a != skip and want[a] != have[a]]
    if not axes:
        return x
    return ctx.emit("Slice", x, ctx.ints([0] * len(axes)), ctx.b.shape([want[a] for a in axes]), ctx.ints(axes))


def _wrapped(ctx: NodeContext, index: str, size: Dim) -> str:
    """Negative index values counted from the end of an axis of `size`."""
    zero = ctx.scalar(0, "int64")
    return ctx.emit("Where", ctx.emit("Less", index, zero), ctx.emit("Add", index, ctx.b.dim(size)), index)


@converts("Gather", onnx="GatherElements")
def gather(ctx: NodeContext):
    d = _dim(ctx)
    x = _cut(ctx, ctx.inputs[0], ctx.in_shapes[0], ctx.in_shapes[1], skip=d)
    return ctx.emit("GatherElements", x, ctx.inputs[1], axis=d)


_REDUCTIONS = {"none": "none", "add": "add", "multiply": "mul"}


@converts("Scatter", onnx="ScatterElements", min_opset=16)
def scatter(ctx: NodeContext):
    d = _dim(ctx)
    src = _cut(ctx, ctx.inputs[2], ctx.in_shapes[2], ctx.in_shapes[1])
    return ctx.emit("ScatterElements", ctx.inputs[0], ctx.inputs[1], src, axis=d,
                    reduction=_REDUCTIONS[ctx.attr("reduce", "none")])


@converts("IndexSelect", onnx="Gather")
def index_select(ctx: NodeContext):
    index = ctx.inputs[1]
    if ctx.rank(1) == 0:
        index = ctx.emit("Reshape", index, ctx.ints([1]))
    return ctx.emit("Gather", ctx.inputs[0], index, axis=_dim(ctx))


@converts("IndexAdd", onnx="ScatterElements (reduction add)", min_opset=16)
def index_add(ctx: NodeContext):
    x, index, src = ctx.inputs[:3]
    rank = ctx.rank(0)
    if rank == 0:  # a 0-d x: its one element plus the one of src
        return ctx.emit("Add", x, ctx.emit("Reshape", src, ctx.ints([])))
    d = _dim(ctx)
    if ctx.rank(1) == 0:
        index = ctx.emit("Reshape", index, ctx.ints([1]))
    return ctx.emit("ScatterElements", x, _along(ctx, index, d, rank, src), src, axis=d, reduction="add")


@converts("SliceScatter", onnx="ScatterElements")
def slice_scatter(ctx: NodeContext):
    x, src = ctx.inputs[:2]
    d = int(ctx.static_attr("dim"))
    start, stop = int(ctx.static_attr("start")), int(ctx.static_attr("stop"))
    step = int(ctx.static_attr("step", 1))
    positions = ctx.const(np.arange(start, stop, step, dtype=np.int64))
    return ctx.emit("ScatterElements", x, _along(ctx, positions, d, ctx.rank(0), src), src, axis=d)


# ---- advanced indexing ----

def _broadcast(shapes: Sequence[Sequence[Dim]]) -> List[Dim]:
    n = max(len(s) for s in shapes)
    out: List[Dim] = [1] * n
    for s in shapes:
        for a, v in enumerate([1] * (n - len(s)) + list(s)):
            if v != 1:
                out[a] = v
    return out


class _Advanced:
    """x[..., i_0, ..., i_k-1, ...] at the ascending axes dims: the transposition that puts them
    first, the stacked indices [*B, k], and where the broadcast axes B go in the result."""

    def __init__(self, ctx: NodeContext, first: int):
        self.dims = [int(d) for d in ctx.static_attr("dims")]
        x_shape = list(ctx.in_shapes[0])
        rank = len(x_shape)
        self.rest = [a for a in range(rank) if a not in self.dims]
        self.perm = self.dims + self.rest
        idx_shapes = [list(s) for s in ctx.in_shapes[first:first + len(self.dims)]]
        self.b = _broadcast(idx_shapes)
        adjacent = self.dims == list(range(self.dims[0], self.dims[0] + len(self.dims)))
        # B's place among the rest's axes in the result: at the first indexed axis when adjacent.
        self.front = self.dims[0] if adjacent else 0
        nb = len(self.b)
        rest_shape = [x_shape[a] for a in self.rest]
        self.result = rest_shape[:self.front] + self.b + rest_shape[self.front:]
        # result axes from the gathered layout [*B, *rest]
        self.to_result = (list(range(nb, nb + self.front)) + list(range(nb)) +
                          list(range(nb + self.front, nb + len(self.rest))))
        shape_b = ctx.shape(self.b + [1])
        pieces = []
        for j, d in enumerate(self.dims):
            i = _wrapped(ctx, ctx.inputs[first + j], x_shape[d])
            i = ctx.emit("Unsqueeze", i, ctx.ints([-1]))
            pieces.append(ctx.emit("Expand", i, shape_b))
        self.stacked = pieces[0] if len(pieces) == 1 else ctx.emit("Concat", *pieces, axis=-1)

    def moved(self, ctx: NodeContext, x: str) -> str:
        return x if self.perm == sorted(self.perm) else ctx.emit("Transpose", x, perm=self.perm)

    def moved_back(self, ctx: NodeContext, xt: str) -> str:
        if self.perm == sorted(self.perm):
            return xt
        return ctx.emit("Transpose", xt, perm=[int(a) for a in np.argsort(self.perm)])


def _identity(perm: Sequence[int]) -> bool:
    return list(perm) == list(range(len(perm)))


@converts("Index", onnx="Gather (one index) or Transpose, Concat, GatherND")
def index(ctx: NodeContext):
    dims = [int(d) for d in ctx.static_attr("dims")]
    x = ctx.inputs[0]
    if len(dims) == 1:
        return ctx.emit("Gather", x, _wrapped(ctx, ctx.inputs[1], ctx.in_shapes[0][dims[0]]), axis=dims[0])
    adv = _Advanced(ctx, 1)
    out = ctx.emit("GatherND", adv.moved(ctx, x), adv.stacked)
    return out if _identity(adv.to_result) else ctx.emit("Transpose", out, perm=adv.to_result)


@converts("IndexPut", onnx="Transpose, Concat, Expand, ScatterND", min_opset=16)
def index_put(ctx: NodeContext):
    x, values = ctx.inputs[:2]
    adv = _Advanced(ctx, 2)
    values = ctx.emit("Expand", values, ctx.shape(adv.result))
    if not _identity(adv.to_result):  # the result's layout back to the gathered one [*B, *rest]
        values = ctx.emit("Transpose", values, perm=[int(a) for a in np.argsort(adv.to_result)])
    reduction = "add" if ctx.attr("accumulate", False) else "none"
    out = ctx.emit("ScatterND", adv.moved(ctx, x), adv.stacked, values, reduction=reduction)
    return adv.moved_back(ctx, out)
