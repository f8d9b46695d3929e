"""Convolutions (autodiff-engine/src/ops/conv.cpp, glassgrad/autodiff/conv_geometry.h).

Conv2D(x, w[, b]){stride, padding [top, bottom, left, right], dilation, groups, activation} is
ONNX Conv (pads [top, left, bottom, right]), followed by Relu when the fusion pass fused one.

Conv2DBackwardInput(gy, w){..., input_shape} is the adjoint of that convolution, which is what
nn.ConvTranspose2d records: ONNX ConvTranspose with the same weight (ONNX's layout [C_in,
C_out / groups, kh, kw] is Conv2D's [K, C / G, R, S] read from the other side). ONNX's output size is
stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pad_begin - pad_end; the
output_padding that gives input_shape's size is written out.
"""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts


def _geometry(ctx: NodeContext):
    stride = list(ctx.static_attr("stride", [1, 1]))
    pt, pb, pl, pr = ctx.static_attr("padding", [0, 0, 0, 0])
    dilation = list(ctx.static_attr("dilation", [1, 1]))
    groups = int(ctx.static_attr("groups", 1))
    return stride, [pt, pl, pb, pr], dilation, groups


def _activation(ctx: NodeContext, y: str) -> str:
    act = ctx.attr("activation", "")
    if act in ("", "none"):
        return y
    if act == "relu":
        return ctx.emit("Relu", y)
    ctx.fail(f"its fused activation '{act}' has no mapping", "export with glassgrad.set_fusion(False)")


@converts("Conv2D", onnx="Conv (+ Relu when fused)")
def conv2d(ctx: NodeContext):
    stride, pads, dilation, groups = _geometry(ctx)
    kernel = [int(d) for d in ctx.in_shapes[1][2:]]
    y = ctx.emit("Conv", *ctx.inputs, kernel_shape=kernel, strides=stride, pads=pads, dilations=dilation,
                 group=groups)
    return _activation(ctx, y)


@converts("Conv2DBackwardInput", onnx="ConvTranspose", dynamic_attrs=("input_shape",))
def conv_transpose2d(ctx: NodeContext):
    stride, pads, dilation, groups = _geometry(ctx)
    kernel = [int(d) for d in ctx.in_shapes[1][2:]]
    out_hw = [int(d) for d in ctx.out_shapes[0][2:]]
    in_hw = [int(d) for d in ctx.in_shapes[0][2:]]
    output_padding = [out_hw[i] - (stride[i] * (in_hw[i] - 1) + dilation[i] * (kernel[i] - 1) + 1
                                   - pads[i] - pads[i + 2]) for i in range(2)]
    if min(output_padding) < 0:
        ctx.fail(f"its output size {out_hw} is smaller than ONNX ConvTranspose makes with these pads",
                 "report this with the layer's arguments")
    y = ctx.emit("ConvTranspose", *ctx.inputs, kernel_shape=kernel, strides=stride, pads=pads,
                 dilations=dilation, group=groups, output_padding=output_padding)
    return _activation(ctx, y)
