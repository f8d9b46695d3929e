"""Dropout (autodiff-engine/src/ops/dropout.cpp): Dropout(x, seed){p} -> x * keep / (1 - p) with a
mask drawn from the seed. It is recorded only in training mode (evaluation-mode dropout is the
identity and records nothing), so it appears in an export with training=TrainingMode.TRAINING:
ONNX Dropout with ratio p in training mode, which draws its own mask each run (the runtime's
generator, not glassgrad's seed: the same distribution, other masks). ONNX Dropout takes ratios
below 1 only; p = 1 drops everything, which the op computes as x * 0 and the export as Mul(x, 0)."""
from __future__ import annotations

import numpy as np

from .._builder import NUMPY_TYPES
from .._context import NodeContext
from .._registry import cannot, converts


@converts("Dropout", onnx="Dropout (training_mode true; p = 1: Mul by 0)")
def dropout(ctx: NodeContext):
    dt, p = ctx.in_dtypes[0], float(ctx.attr("p"))
    if p >= 1.0:
        return ctx.emit("Mul", ctx.inputs[0], ctx.const(np.asarray(0.0, NUMPY_TYPES[dt])))
    ratio = ctx.const(np.asarray(p, NUMPY_TYPES[dt]))
    return ctx.emit("Dropout", ctx.inputs[0], ratio, ctx.const(np.bool_(True)))


cannot("AlphaDropout", "alpha dropout is recorded only in training mode, and ONNX has no op for it (PyTorch's exporter "
       "refuses it in training mode too)")
