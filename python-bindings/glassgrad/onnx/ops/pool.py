"""Pooling (autodiff-engine/src/ops/pool.cpp): MaxPool2D and AvgPool2D{kernel, stride, padding
[ph, pw], ceil_mode, count_include_pad, divisor_override} as ONNX MaxPool and AveragePool, whose
ceil_mode and count_include_pad are PyTorch's. divisor_override d: the window's sum over d, which
is AveragePool with the padding counted, times kh * kw / d (every window whole: no ceil mode)."""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts


def _attrs(ctx: NodeContext):
    kernel = [int(k) for k in ctx.static_attr("kernel")]
    stride = [int(s) for s in ctx.static_attr("stride", kernel)]
    ph, pw = ctx.static_attr("padding", [0, 0])
    return dict(kernel_shape=kernel, strides=stride, pads=[ph, pw, ph, pw],
                ceil_mode=int(bool(ctx.static_attr("ceil_mode", False))))


@converts("MaxPool2D", onnx="MaxPool")
def max_pool2d(ctx: NodeContext):
    return ctx.emit("MaxPool", ctx.inputs[0], **_attrs(ctx))


@converts("AvgPool2D", onnx="AveragePool")
def avg_pool2d(ctx: NodeContext):
    a = _attrs(ctx)
    divisor = int(ctx.static_attr("divisor_override", 0) or 0)
    if divisor <= 0:
        return ctx.emit("AveragePool", ctx.inputs[0], count_include_pad=int(bool(ctx.attr("count_include_pad", True))),
                        **a)
    if a["ceil_mode"]:
        ctx.fail("divisor_override with ceil_mode: its last windows are partial, and ONNX AveragePool cannot sum "
                 "them", "ceil_mode=False, or no divisor_override")
    kh, kw = a["kernel_shape"]
    mean = ctx.emit("AveragePool", ctx.inputs[0], count_include_pad=1, **a)
    return ctx.emit("Mul", mean, ctx.scalar(kh * kw / divisor, ctx.in_dtypes[0]))
