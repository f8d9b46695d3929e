"""Views, copies and casts (autodiff-engine/src/ops/movement.cpp, creation.cpp): Reshape, Permute,
Slice, Expand, Concat as ONNX Reshape, Transpose, Slice, Expand, Concat; Contiguous, Detach and ToDevice are the
identity in an ONNX graph (it has no memory layout, gradient or device); Cast; Full as
ConstantOfShape; Where.

Target shapes are read from the recorded output shape (numbers, or polynomials of the dynamic
sizes, _symbolic.py), so a Reshape recorded with -1 or a dynamic batch size exports with the
shape it computes at every size.
"""
from __future__ import annotations

import numpy as np

from .._context import NodeContext
from .._registry import converts
from .._symbolic import Sym


# view_strides (a Reshape standing for unsqueeze, select or indexing) only sets the strides of the
# runtime's view (docs/inplace-and-views.md, "Strides"); ONNX tensors have none, so it is not read
# and may follow a dynamic axis.
@converts("Reshape", onnx="Reshape", dynamic_attrs=("shape", "view_strides"))
def reshape(ctx: NodeContext):
    target = list(ctx.out_shapes[0])
    dynamic = [i for i, d in enumerate(target) if isinstance(d, Sym)]
    if len(dynamic) == 1:  # the one size that follows a dynamic axis is what the others leave
        target[dynamic[0]] = -1
    return ctx.emit("Reshape", ctx.inputs[0], ctx.shape(target))


@converts("Permute", onnx="Transpose")
def permute(ctx: NodeContext):
    return ctx.emit("Transpose", ctx.inputs[0], perm=[int(d) % max(ctx.rank(), 1) for d in ctx.attr("dims")])


@converts("Slice", onnx="Slice", dynamic_attrs=("start", "stop"))
def slice_(ctx: NodeContext):
    dim, step = int(ctx.static_attr("dim")), int(ctx.static_attr("step", 1))
    start, stop = ctx.attr("start"), ctx.attr("stop")
    if isinstance(stop, Sym) and stop == ctx.in_shapes[0][dim]:
        stop = np.iinfo(np.int64).max   # to the end, whatever its size
    return ctx.emit("Slice", ctx.inputs[0], ctx.b.dim(start), ctx.b.dim(stop), ctx.ints([dim]), ctx.ints([step]))


@converts("Expand", onnx="Expand", dynamic_attrs=("shape",))
def expand(ctx: NodeContext):
    target = list(ctx.out_shapes[0])
    src = list(ctx.in_shapes[0])
    lead = len(target) - len(src)
    for i, d in enumerate(target):  # an axis the input already has at that size: 1 keeps it (broadcast)
        if i >= lead and src[i - lead] == d and isinstance(d, Sym):
            target[i] = 1
    return ctx.emit("Expand", ctx.inputs[0], ctx.shape(target))


@converts("Contiguous", "Detach", "ToDevice", onnx="(none: the input itself)")
def identity(ctx: NodeContext):
    return ctx.inputs[0]


@converts("Cast", onnx="Cast")
def cast(ctx: NodeContext):
    if ctx.in_dtypes[0] == ctx.out_dtypes[0]:
        return ctx.inputs[0]
    return ctx.cast(ctx.inputs[0], ctx.out_dtypes[0])


@converts("Full", onnx="ConstantOfShape", dynamic_attrs=("shape",))
def full(ctx: NodeContext):
    return ctx.filled(ctx.out_shapes[0], ctx.attr("value", 0.0), ctx.out_dtypes[0])


@converts("Where", onnx="Where")
def where(ctx: NodeContext):
    return ctx.emit("Where", *ctx.inputs)


@converts("SliceBackward", onnx="Pad (step 1) or Unsqueeze, Pad, Reshape, Slice",
          dynamic_attrs=("shape", "start", "stop"))
def slice_backward(ctx: NodeContext):
    """x placed into zeros of the recorded shape at start:stop:step along dim (what pad records)."""
    dim, step = int(ctx.static_attr("dim")), int(ctx.static_attr("step", 1))
    start = ctx.attr("start")
    full = list(ctx.out_shapes[0])
    rank = len(full)
    x = ctx.inputs[0]
    if step != 1:  # interleave: each element followed by step - 1 zeros, then shifted by start
        start = int(ctx.static_attr("start"))
        n = ctx.in_shapes[0][dim]
        if isinstance(n, Sym) or isinstance(full[dim], Sym):
            ctx.fail("a strided slice's gradient along a dynamic axis", "keep that axis static")
        spread = ctx.emit("Unsqueeze", x, ctx.ints([dim + 1]))
        pads = [0] * (2 * (rank + 1))
        pads[rank + 1 + dim + 1] = step - 1
        spread = ctx.emit("Pad", spread, ctx.ints(pads))
        shape = list(ctx.in_shapes[0])
        shape[dim] = int(n) * step
        x = ctx.emit("Reshape", spread, ctx.shape(shape))
        end = min(int(n) * step, int(full[dim]) - start)
        x = ctx.emit("Slice", x, ctx.ints([0]), ctx.ints([end]), ctx.ints([dim]))
        after = int(full[dim]) - start - end
    else:
        after = _minus(_minus(full[dim], start), ctx.in_shapes[0][dim])
    pads = [0] * (2 * rank)
    pads[dim], pads[rank + dim] = start, after
    return ctx.emit("Pad", x, ctx.shape(pads))


def _minus(a, b):
    """a - b for sizes that may be polynomials of the dynamic sizes."""
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    ta = a.terms if isinstance(a, Sym) else {frozenset(): a}
    tb = b.terms if isinstance(b, Sym) else {frozenset(): b}
    terms = dict(ta)
    for m, c in tb.items():
        terms[m] = terms.get(m, 0) - c
    out = Sym(terms)
    return out if out.symbols else out.constant


@converts("Concat", onnx="Concat")
def concat(ctx: NodeContext):
    """torch.cat and torch.stack's node: the pieces joined along dim."""
    return ctx.emit("Concat", *ctx.inputs, axis=int(ctx.static_attr("dim")))
