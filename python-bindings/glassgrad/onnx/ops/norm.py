"""Batch, group and layer normalization (autodiff-engine/src/ops/norm.cpp, layer_norm.cpp).

BatchNorm2DInference(x, gamma, beta, running_mean, running_var){eps} is ONNX BatchNormalization.
BatchNorm2DTrain(x, gamma, beta[, residual]){eps} normalizes with the batch's statistics (a
layer in training mode, or one without running statistics): written out per channel (axis 1),
    mean = ReduceMean(x over every axis but 1), var = ReduceMean((x - mean)^2),
    y = (x - mean) / Sqrt(var + eps) * gamma + beta [+ residual],
with gamma and beta shaped [C, 1, ...] to broadcast; its mean and var outputs are the [C] vectors.
A fused activation (activation="relu") follows as Relu.
GroupNorm(x[, weight[, bias]]){num_groups, eps} is written out over x seen as [N, G, rest]
(group_norm below): ONNX GroupNormalization scales per group before opset 21, per channel after.
LayerNorm is ONNX LayerNormalization from opset 17 (layer_norm_op below), and so is the
decomposition a layer norm of Mean and Var ops records (_patterns.py).
"""
from __future__ import annotations

import numpy as np

from .._builder import NUMPY_TYPES
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
        shape = [int(d) for d in ctx.attr("normalized_shape")]
        inputs.insert(1, ctx.const(np.ones(shape, NUMPY_TYPES[ctx.in_dtypes[0]])))
    return ctx.emit("LayerNormalization", *inputs, axis=int(ctx.attr("axis")), epsilon=float(ctx.attr("eps")))


@converts("GroupNorm", onnx="Reshape, ReduceMean, Sub, Mul, Sqrt, Reciprocal, Add")
def group_norm(ctx: NodeContext):
    """GroupNorm(x[, weight[, bias]]){num_groups, eps} -> (y, mean, rstd), written out over x seen
    as [N, G, rest] (its group's channels and the axes after C):
        mean = ReduceMean(x over rest), rstd = 1 / Sqrt(ReduceMean((x - mean)^2) + eps),
        y = (x - mean) * rstd, back in x's shape, times weight[c] plus bias[c] (shaped [C, 1, ...]);
    mean and rstd are the [N, G] statistics."""
    x, dt, rank = ctx.inputs[0], ctx.in_dtypes[0], ctx.rank(0)
    groups = int(ctx.static_attr("num_groups"))
    grouped = ctx.emit("Reshape", x, ctx.ints([0, groups, -1]))   # 0: N as it is (dynamic or not)
    mean = ctx.reduce("ReduceMean", grouped, [2], True)
    centered = ctx.emit("Sub", grouped, mean)
    var = ctx.reduce("ReduceMean", ctx.emit("Mul", centered, centered), [2], True)
    rstd = ctx.emit("Reciprocal", ctx.emit("Sqrt", ctx.emit("Add", var, ctx.scalar(float(ctx.attr("eps", 1e-5)), dt))))
    y = ctx.emit("Reshape", ctx.emit("Mul", centered, rstd), ctx.emit("Shape", x))
    per_channel = ctx.ints([-1] + [1] * (rank - 2))
    if ctx.has_input(1):
        y = ctx.emit("Mul", y, ctx.emit("Reshape", ctx.inputs[1], per_channel))
    if ctx.has_input(2):
        y = ctx.emit("Add", y, ctx.emit("Reshape", ctx.inputs[2], per_channel))
    stats = ctx.ints([0, groups])
    mean_out = ctx.emit("Reshape", mean, stats) if ctx.used_outputs[1] else None
    rstd_out = ctx.emit("Reshape", rstd, stats) if ctx.used_outputs[2] else None
    return [y, mean_out, rstd_out]


@converts("LayerNorm", onnx="LayerNormalization (opset 17+; before, ReduceMean, Sub, Mul, Sqrt, Reciprocal, Add)")
def layer_norm_op(ctx: NodeContext):
    """LayerNorm(x[, weight][, bias]){normalized_shape, eps, weight, bias} -> (y, mean, rstd) over x's
    last len(normalized_shape) axes: ONNX LayerNormalization from opset 17 (a scale of ones when
    the layer has none), whose Mean and InvStdDev keep the normalized axes as 1s and are reshaped
    to x's outer shape; before opset 17 the formula written out (mean, the biased variance,
    rstd = 1 / Sqrt(var + eps), y = (x - mean) * rstd * weight + bias), and for float64 too, which
    LayerNormalization would compute in float32 (its stash_type is float32 or bfloat16)."""
    x, dt, rank = ctx.inputs[0], ctx.in_dtypes[0], ctx.rank(0)
    normalized = [int(d) for d in ctx.static_attr("normalized_shape")]
    axis = rank - len(normalized)
    eps = float(ctx.attr("eps", 1e-5))
    has_weight, has_bias = bool(ctx.attr("weight", False)), bool(ctx.attr("bias", False))
    weight = ctx.inputs[1] if has_weight else None
    bias = ctx.inputs[2 if has_weight else 1] if has_bias else None
    if ctx.opset >= 17 and dt != "float64":  # LayerNormalization computes in float32 at most
        scale = weight if weight is not None else ctx.const(np.ones(normalized, NUMPY_TYPES[dt]))
        y, mean, rstd = ctx.node("LayerNormalization", [x, scale, bias], 3, axis=axis, epsilon=eps)
        if dt != "float32":  # its statistics are float32 (stash_type) whatever x is
            mean, rstd = ctx.cast(mean, dt), ctx.cast(rstd, dt)
    else:
        axes = list(range(axis, rank))
        mean = ctx.reduce("ReduceMean", x, axes, True)
        centered = ctx.emit("Sub", x, mean)
        var = ctx.reduce("ReduceMean", ctx.emit("Mul", centered, centered), axes, True)
        rstd = ctx.emit("Reciprocal", ctx.emit("Sqrt", ctx.emit("Add", var, ctx.scalar(eps, dt))))
        y = ctx.emit("Mul", centered, rstd)
        if weight is not None:
            y = ctx.emit("Mul", y, weight)
        if bias is not None:
            y = ctx.emit("Add", y, bias)
    outer = ctx.shape(ctx.out_shapes[1])
    mean_out = ctx.emit("Reshape", mean, outer) if ctx.used_outputs[1] else None
    rstd_out = ctx.emit("Reshape", rstd, outer) if ctx.used_outputs[2] else None
    return [y, mean_out, rstd_out]
