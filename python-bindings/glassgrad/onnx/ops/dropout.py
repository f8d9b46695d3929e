"""Dropout (autodiff-engine/src/ops/dropout.cpp): Dropout(x, seed){p} -> x * keep / (1 - p) with a
mask drawn from the seed. It is recorded only in training mode (evaluation-mode dropout is the
identity and records nothing), so it appears in an export with training=TrainingMode.TRAINING:
ONNX Dropout with ratio p in training mode, which draws its own mask each run (the runtime's
generator, not glassgrad's seed: the same distribution, other masks)."""
from __future__ import annotations

import numpy as np

from .._builder import NUMPY_TYPES
from .._context import NodeContext
from .._registry import converts


@converts("Dropout", onnx="Dropout (training_mode true)")
def dropout(ctx: NodeContext):
    dt = ctx.in_dtypes[0]
    ratio = ctx.const(np.asarray(float(ctx.attr("p")), NUMPY_TYPES[dt]))
    return ctx.emit("Dropout", ctx.inputs[0], ratio, ctx.const(np.bool_(True)))
