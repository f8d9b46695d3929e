"""Softmax, LogSoftmax and the cross-entropy loss (autodiff-engine/src/ops/softmax.cpp).

Softmax{dim} and LogSoftmax{dim} are ONNX's ops of the same names over one axis (opset 13's).
CrossEntropy(logits [N, C], labels [N], weight?){reduction, ignore_index, label_smoothing} is
ONNX SoftmaxCrossEntropyLoss, modelled on PyTorch's, when label_smoothing is 0; with smoothing e
the formula of softmax.cpp is written out over logp = LogSoftmax(logits):
    loss_n = -(1 - e) w_y logp[n, y] - (e / C) sum_c w_c logp[n, c]   (0 where y == ignore_index)
    mean: sum_n loss_n / sum_n w_y over the rows not ignored.
"""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts


@converts("Softmax", onnx="Softmax")
def softmax(ctx: NodeContext):
    return ctx.emit("Softmax", ctx.inputs[0], axis=int(ctx.attr("dim", -1)))


@converts("LogSoftmax", onnx="LogSoftmax")
def log_softmax(ctx: NodeContext):
    return ctx.emit("LogSoftmax", ctx.inputs[0], axis=int(ctx.attr("dim", -1)))


@converts("CrossEntropy", onnx="SoftmaxCrossEntropyLoss (LogSoftmax, GatherElements, ... with label smoothing)")
def cross_entropy(ctx: NodeContext):
    reduction = ctx.attr("reduction", "mean")
    ignore = int(ctx.attr("ignore_index", -100))
    e = float(ctx.attr("label_smoothing", 0.0))
    logits, labels = ctx.inputs[:2]
    weight = ctx.inputs[2] if ctx.has_input(2) else None
    if e == 0.0:
        return ctx.emit("SoftmaxCrossEntropyLoss", logits, labels, weight, reduction=reduction, ignore_index=ignore)
    dt = ctx.in_dtypes[0]
    classes = int(ctx.in_shapes[0][1])
    logp = ctx.emit("LogSoftmax", logits, axis=1)
    kept = ctx.emit("Not", ctx.emit("Equal", labels, ctx.scalar(ignore, "int64")))
    safe = ctx.emit("Where", kept, labels, ctx.scalar(0, "int64"))
    picked = ctx.emit("Squeeze", ctx.emit("GatherElements", logp, ctx.emit("Unsqueeze", safe, ctx.ints([1])), axis=1),
                      ctx.ints([1]))
    mask = ctx.cast(kept, dt)
    w_y = ctx.emit("Mul", ctx.emit("Gather", weight, safe, axis=0), mask) if weight else mask
    weighted = ctx.emit("Mul", logp, weight) if weight else logp
    smooth = ctx.reduce("ReduceSum", weighted, [1], False)
    loss = ctx.emit("Add", ctx.emit("Mul", ctx.emit("Mul", picked, w_y), ctx.scalar(-(1.0 - e), dt)),
                    ctx.emit("Mul", ctx.emit("Mul", smooth, mask), ctx.scalar(-e / classes, dt)))
    if reduction == "none":
        return loss
    total = ctx.reduce("ReduceSum", loss, None, False)
    if reduction == "sum":
        return total
    return ctx.emit("Div", total, ctx.reduce("ReduceSum", w_y, None, False))
