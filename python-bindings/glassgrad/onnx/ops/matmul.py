"""MatMul (autodiff-engine/src/ops/matmul.cpp): NumPy's matmul, as ONNX MatMul (the same
broadcasting of batch axes and the same treatment of 1-D operands). A Linear layer's transpose,
MatMul and bias Add on a 2-D input export as one Gemm (_patterns.py)."""
from __future__ import annotations

from .._context import NodeContext
from .._registry import converts


@converts("MatMul", onnx="MatMul")
def matmul(ctx: NodeContext):
    return ctx.emit("MatMul", *ctx.inputs)


@converts("@Gemm", onnx="Gemm")
def gemm(ctx: NodeContext):
    """A Linear layer on a 2-D input: x [N, in] times its weight [out, in] transposed, plus the bias."""
    return ctx.emit("Gemm", *ctx.inputs, transB=1)
