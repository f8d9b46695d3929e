"""Scaled dot-product attention (autodiff-engine/src/ops/attention.cpp, attention_geometry.h) as
the ops it stands for: MatMul, Softmax, MatMul.

    s = scale * q k^T [+ mask] [+ causal: -inf where key j > query i],  p = Softmax(s, last axis),
    out = p v,   lse = ReduceLogSumExp(s, last axis)   (only when something reads it)

The causal mask is a constant [L, S] when the sizes are fixed, and Trilu of ones (opset 14) when
they follow a dynamic axis. With an attention mask, a row whose scores are all -inf gives 0 (as
glassgrad's kernels and PyTorch's give) instead of Softmax's NaN. Dropout inside attention runs
only in training and is refused.
"""
from __future__ import annotations

import numpy as np

from .._builder import NUMPY_TYPES
from .._context import NodeContext
from .._registry import converts
from .._symbolic import Sym


def _causal_mask(ctx: NodeContext, rows, cols, dt: str) -> str:
    if not isinstance(rows, Sym) and not isinstance(cols, Sym):
        visible = np.tril(np.ones((int(rows), int(cols)), dtype=bool))
        return ctx.const(np.where(visible, 0.0, -np.inf).astype(NUMPY_TYPES[dt]))
    if ctx.opset < 14:
        ctx.fail("its causal mask follows a dynamic axis, which needs ONNX Trilu (opset 14)",
                 "opset_version=14 or more")
    lower = ctx.emit("Trilu", ctx.filled([rows, cols], 1.0, dt), upper=0)
    return ctx.emit("Where", ctx.emit("Greater", lower, ctx.scalar(0.5, dt)), ctx.scalar(0.0, dt),
                    ctx.scalar(-np.inf, dt))


@converts("ScaledDotProductAttention", onnx="MatMul, Softmax, MatMul (+ Add of the mask)")
def scaled_dot_product_attention(ctx: NodeContext):
    if float(ctx.attr("dropout_p", 0.0)) > 0.0:
        ctx.fail("dropout inside attention draws a new mask every call (training)",
                 "export in evaluation mode (model.eval(), or training=TrainingMode.EVAL)")
    q, k, v = ctx.inputs[:3]
    dt = ctx.in_dtypes[0]
    rank_k = ctx.rank(1)
    perm = list(range(rank_k - 2)) + [rank_k - 1, rank_k - 2]
    scores = ctx.emit("Mul", ctx.emit("MatMul", q, ctx.emit("Transpose", k, perm=perm)),
                      ctx.scalar(float(ctx.attr("scale")), dt))
    masked = bool(ctx.attr("masked", False))
    if masked:
        scores = ctx.emit("Add", scores, ctx.inputs[3])
    if ctx.attr("is_causal", False):
        scores = ctx.emit("Add", scores, _causal_mask(ctx, ctx.in_shapes[0][-2], ctx.in_shapes[1][-2], dt))
    p = ctx.emit("Softmax", scores, axis=-1)
    if masked:  # a row masked out entirely: 0, not NaN
        p = ctx.emit("Where", ctx.emit("IsNaN", p), ctx.scalar(0.0, dt), p)
    out = ctx.emit("MatMul", p, v)
    lse = ctx.reduce("ReduceLogSumExp", scores, [-1], False) if ctx.used_outputs[1] else None
    return [out, lse]
