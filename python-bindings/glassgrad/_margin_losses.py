"""Margin and embedding losses with torch.nn.functional's names, arguments, defaults and formulas:
margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
multi_margin_loss, multilabel_soft_margin_loss (composites of elementwise ops and reductions)."""
from __future__ import annotations

from typing import Optional

from . import _C, _args, _autocast
from ._distances import pairwise_distance
from ._factories import arange
from ._losses import _reduce, _reduction, _tensor_like
from ._math import minimum
from ._tensor import Tensor
from .functional import where


@_autocast.op("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.margin_ranking_loss: max(0, -target (input1 - input2) + margin)."""
    reduction = _reduction(size_average, reduce, reduction, "margin_ranking_loss")
    t = _tensor_like(target, input1)
    if not input1.ndim == input2.ndim == t.ndim:   # PyTorch's check (broadcasting only between equal ranks)
        raise _C.ShapeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.size()!r}, input2: {input2.size()!r}, target: {t.size()!r}\n  fix: one target per pair, "
            f"e.g. target.expand_as(input1)")
    return _reduce((-t * (input1 - input2) + margin).clamp(min=0.0), reduction)


@_autocast.op("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """PyTorch's F.hinge_embedding_loss: input where target is 1, max(0, margin - input) where target
    is -1 (an element with another target value takes both terms, as PyTorch's)."""
    reduction = _reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    t = _tensor_like(target, input)
    margin = _args.real(margin, "margin", "hinge_embedding_loss", as_float=True)  # a bool is 0 or 1, as PyTorch's
    loss = where(t != 1, (margin - input).clamp(min=0.0), 0.0) + where(t != -1, input, 0.0)
    return _reduce(loss, reduction)


@_autocast.op("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.cosine_embedding_loss: 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) -
    margin) where it is -1; cos over dim 1 of (N, D) inputs or over the only dim of (D) ones, with
    1e-12 added to each squared magnitude."""
    where_ = "cosine_embedding_loss"
    reduction = _reduction(size_average, reduce, reduction, where_)
    if input1.ndim not in (1, 2) or tuple(input1.shape) != tuple(input2.shape):
        raise _C.ShapeError(f"{where_}: input1 {list(input1.shape)} and input2 {list(input2.shape)} must be both (N, D) "
                            f"or both (D)\n  fix: flatten each embedding, e.g. x.flatten(1)")
    dim = input1.ndim - 1
    t = _tensor_like(target, input1)
    eps = 1e-12
    margin = _args.real(margin, "margin", where_, as_float=True)  # a bool is 0 or 1, as PyTorch's
    cos = (input1 * input2).sum(dim) / (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    loss = where(t == 1, 1.0 - cos, 0.0) + where(t == -1, (cos - margin).clamp(min=0.0), 0.0)
    return _reduce(loss, reduction)


@_autocast.op("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """PyTorch's F.triplet_margin_loss: max(d(a, p) - d(a, n) + margin, 0) with d the
    pairwise_distance (p, eps); swap=True takes d(a, n) as min(d(a, n), d(p, n))."""
    where_ = "triplet_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, where_)
    if margin <= 0:
        raise _C.InvalidArgumentError(f"{where_}: margin must be greater than 0, got {margin}\n  fix: margin=1.0")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise _C.ShapeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                            f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                            f"{negative.ndim}D inputs\n  {where_}: anchor {list(anchor.shape)}, positive "
                            f"{list(positive.shape)}, negative {list(negative.shape)}\n  fix: (N, D) each, or (D) each")
    _args.python_bool(swap, "swap", where_, "swap=True or swap=False", 7)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp(min=0.0), reduction)


def multilabel_soft_margin_loss(input: Tensor, target, weight: Optional[Tensor] = None,
                                size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.multilabel_soft_margin_loss: -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times
    weight, averaged over the classes (the last dimension), then reduced over the samples."""
    reduction = _reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss", strict=True,
                           sentence="is not valid")  # PyTorch's sentence for this loss
    t = _tensor_like(target, input)
    # log sigmoid(x) = min(x, 0) - log(1 + exp(-|x|)), stable for either sign
    soft = (-input.abs()).exp().log1p()
    loss = -(t * (input.clamp(max=0.0) - soft) + (1.0 - t) * ((-input).clamp(max=0.0) - soft))
    if weight is not None:
        loss = loss * _tensor_like(weight, input)
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce(loss, reduction)


@_autocast.op("multi_margin_loss")
def multi_margin_loss(input: Tensor, target, p: int = 1, margin: float = 1.0,
                      weight: Optional[Tensor] = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """PyTorch's F.multi_margin_loss: for each sample, the sum over classes i != y of
    max(0, margin - x[y] + x[i])^p (times weight[y]), divided by the number of classes."""
    where_ = "multi_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, where_)
    if p not in (1, 2):
        raise _C.InvalidArgumentError(f"{where_}: only p == 1 and p == 2 are supported, got {p}\n  fix: p=1")
    t = target if isinstance(target, Tensor) else _tensor_like(target, input, dtype="int64")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    y = t.reshape(-1)
    if x.ndim != 2 or y.shape[0] != x.shape[0]:
        raise _C.ShapeError(f"{where_}: input {list(input.shape)} must be (N, C) or (C) with target (N) or (), got "
                            f"target {list(t.shape)}\n  fix: one class index per row of input")
    classes = x.shape[1]
    if y._h.realized and y.device.type == "cpu" and y.numel():  # PyTorch's CPU kernel checks at the call
        labels = y.numpy()
        bad = (labels < 0) | (labels >= classes)
        if bad.any():
            raise _C.InvalidArgumentError(f"target out of range\n  {where_}: target {int(labels[bad][0])} for {classes} "
                                          f"classes (input {list(input.shape)})\n  fix: class indices in [0, {classes})")
    x_y = x.gather(1, y.unsqueeze(1))
    z = (x - x_y + margin).clamp(min=0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _tensor_like(weight, input)[y].unsqueeze(1)
    others = y.unsqueeze(1) != arange(classes, device=y.device).unsqueeze(0)
    loss = where(others, z, 0.0).sum(1) / classes
    if input.ndim == 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction, node="MultiMarginLossBackward0")  # PyTorch's one node, every reduction
