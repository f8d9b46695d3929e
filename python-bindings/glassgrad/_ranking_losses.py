"""multilabel_margin_loss and triplet_margin_with_distance_loss with torch.nn.functional's names,
arguments and formulas, composed from elementwise ops and reductions (their gradients are those
ops' rules). The reductions are _losses._reduce's ("mean" over the samples)."""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from . import _C, _args, _autocast
from ._distances import pairwise_distance
from ._losses import _reduce, _reduction
from ._math import minimum
from ._tensor import Tensor, tensor


def _label_counts(target, classes: int, rows: int, where_: str) -> np.ndarray:
    """(rows, classes) counts of each class among a row's targets: the entries before the row's
    first -1 (PyTorch's multilabel target layout). Targets are data, read here."""
    t = np.asarray(target.numpy(force=True) if isinstance(target, Tensor) else target).reshape(rows, -1)
    if t.dtype.kind not in "iu":
        raise _C.DTypeError(f"{where_}: target must hold int64 class indices, got {t.dtype}\n  fix: target.long()")
    counts = np.zeros((rows, classes))
    for n, row in enumerate(t):
        for v in row:
            if v == -1:
                break
            if not 0 <= v < classes:
                # PyTorch's RuntimeError ("argument #2 'target' is out of range"), an IndexError too
                raise _args.OutOfRangeError(f"{where_}: argument #2 'target' is out of range: target {int(v)} in row {n} "
                                            f"is out of range for {classes} "
                                            f"classes\n  fix: class indices in [0, {classes}), then -1 to end the "
                                            f"row's targets")
            counts[n, v] += 1
    return counts


@_autocast.op("multilabel_margin_loss")
def multilabel_margin_loss(input: Tensor, target, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """PyTorch's F.multilabel_margin_loss: input (C) or (N, C), target of the same shape holding
    each sample's class indices up to the first -1. Per sample,
        sum over its targets j and the classes i not among them of max(0, 1 - (x[j] - x[i])) / C."""
    where_ = "multilabel_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, where_)
    if input.ndim not in (1, 2):
        raise _C.ShapeError(f"{where_}: expected a 1-d (C) or 2-d (N, C) input, got {list(input.shape)}\n"
                            f"  fix: input.reshape(N, C)")
    tshape = tuple(np.shape(target.numpy(force=True) if isinstance(target, Tensor) else target))
    if tshape != tuple(input.shape):
        raise _C.ShapeError(f"{where_}: inconsistent target size: {list(tshape)} for input of size "
                            f"{list(input.shape)}\n  fix: a target of the input's shape, each row's classes then -1")
    x = input.reshape(1, -1) if input.ndim == 1 else input
    rows, classes = x.shape
    counts = _label_counts(target, classes, rows, where_)
    others = (counts == 0).astype(np.float64)
    # pair[n, j, i] = max(0, 1 - x[n, j] + x[n, i]), counted once per target j and each non-target i
    pair = (1.0 - x.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0.0)
    scale = tensor(counts[:, :, None] * others[:, None, :], dtype=input.dtype, device=input.device)
    loss = (pair * scale).sum((1, 2)) / classes
    if input.ndim == 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction, node="MultilabelMarginLossBackward0")  # PyTorch's one node, every reduction


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable] = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """PyTorch's F.triplet_margin_with_distance_loss: max(d(a, p) - d(a, n) + margin, 0) with d
    distance_function (default pairwise_distance); swap=True takes d(a, n) as min(d(a, n), d(p, n))."""
    where_ = "triplet_margin_with_distance_loss"
    reduction = _reduction(None, None, reduction, where_, strict=True)
    margin = _args.real(margin, "margin", where_)
    swap = _args.switch(swap)  # PyTorch reads it in Python (`if swap:`)
    if margin <= 0:
        raise _C.InvalidArgumentError(f"{where_}: margin must be greater than 0, got {margin}\n  fix: margin=1.0")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise _C.ShapeError(f"{where_}: The anchor, positive, and negative tensors are expected to have the same "
                            f"number of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
                            f"negative {negative.ndim}D inputs\n  fix: (N, D) each, or (D) each")
    d = pairwise_distance if distance_function is None else distance_function
    d_pos, d_neg = d(anchor, positive), d(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, d(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp(min=0.0), reduction)
