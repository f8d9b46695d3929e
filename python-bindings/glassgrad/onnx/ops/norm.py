"""Batch normalization (autodiff-engine/src/ops/norm.cpp).

BatchNorm2DInference(x, gamma, beta, running_mean, running_var){eps} is ONNX BatchNormalization.
BatchNorm2DTrain(x, gamma, beta[, residual]){eps} normalizes with the batch's statistics (a
layer in training mode, or one without running statistics): written out per channel (axis 1),
    mean = ReduceMean(x over every axis but 1), var = ReduceMean((x - mean)^2),
    y = (x - mean) / Sqrt(var + eps) * gamma + beta [+ residual],
with gamma and beta shaped [C, 1, ...] to broadcast; its mean and var outputs are the [C] vectors.
A fused activation (activation="relu") follows as Relu.
"""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts
from .conv import _activation


@converts("BatchNorm2DInference", onnx="BatchNormalization")
def batch_norm_inference(ctx: NodeContext):
    y = ctx.emit("BatchNormalization", *ctx.inputs[:5], epsilon=float(ctx.attr("eps", 1e-5)))
    return _activation(ctx, y)


@converts("BatchNorm2DTrain", onnx="ReduceMean, Sub, Mul, Sqrt, Div, Add")
def batch_norm_train(ctx: NodeContext):
    x, gamma, beta = ctx.inputs[:3]
    dt, rank = ctx.in_dtypes[0], ctx.rank(0)
    axes = [0] + list(range(2, rank))
    mean = ctx.reduce("ReduceMean", x, axes, True)
    centered = ctx.emit("Sub", x, mean)
    var = ctx.reduce("ReduceMean", ctx.emit("Mul", centered, centered), axes, True)
    std = ctx.emit("Sqrt", ctx.emit("Add", var, ctx.scalar(float(ctx.attr("eps", 1e-5)), dt)))
    per_channel = ctx.ints([-1] + [1] * (rank - 2))
    y = ctx.emit("Mul", ctx.emit("Div", centered, std), ctx.emit("Reshape", gamma, per_channel))
    y = ctx.emit("Add", y, ctx.emit("Reshape", beta, per_channel))
    if ctx.has_input(3):
        y = ctx.emit("Add", y, ctx.inputs[3])
    y = _activation(ctx, y)
    flat = ctx.ints([-1])
    mean_c = ctx.emit("Reshape", mean, flat) if ctx.used_outputs[1] else None
    var_c = ctx.emit("Reshape", var, flat) if ctx.used_outputs[2] else None
    return [y, mean_c, var_c]


@converts("@LayerNormalization", onnx="LayerNormalization", min_opset=17)
def layer_norm(ctx: NodeContext):
    """The decomposition nn.LayerNorm records, as one op (_patterns.py); a layer without an affine
    scale gets ones."""
    inputs = list(ctx.inputs)
    if not ctx.attr("has_scale"):
        import numpy as np
        from .._builder import NUMPY_TYPES
        shape = [int(d) for d in ctx.attr("normalized_shape")]
        inputs.insert(1, ctx.const(np.ones(shape, NUMPY_TYPES[ctx.in_dtypes[0]])))
    return ctx.emit("LayerNormalization", *inputs, axis=int(ctx.attr("axis")), epsilon=float(ctx.attr("eps")))
