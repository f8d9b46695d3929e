"""Regression and distribution losses with torch.nn.functional's names, arguments, defaults and
formulas: smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss, gaussian_nll_loss,
soft_margin_loss. Each is composed from elementwise ops and reductions (their gradients are the
composites' own: at |d| = beta or delta the two branches meet with slope sign(d), as PyTorch's).
"""
from __future__ import annotations

import math
import warnings
from typing import Optional

from . import _C, _args, _autocast, _trace
from ._losses import _broadcast_warning, _reduce, _reduction, _saves_for_backward, _tensor_like, elementwise_weight
from ._math import xlogy
from ._tensor import Tensor
from ._torch_operands import named_node
from .functional import where


@_autocast.op("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """PyTorch's F.smooth_l1_loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input -
    target, broadcast); beta = 0 is the L1 loss."""
    where_ = "smooth_l1_loss"
    reduction = _reduction(size_average, reduce, reduction, where_)
    beta = _args.real(beta, "beta", where_)
    if beta < 0:
        raise _C.InvalidArgumentError(f"{where_}: beta must be >= 0, got {beta} (smooth_l1_loss does not support "
                                      f"negative values for beta)\n  fix: smooth_l1_loss(x, y, beta=1.0)")
    t = _tensor_like(target, input)
    if not t.is_floating_point():  # as mse_loss's
        _args.floating_input(input, "smooth_l1_cpu")
    _broadcast_warning(input, t, where_)
    _saves_for_backward(where_, input, t)
    d = input - t
    a = d.abs()
    if beta == 0.0:  # PyTorch's is l1_loss then (its nodes: AbsBackward0 and the reduction's)
        return _reduce(a, reduction)
    return _reduce(where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta), reduction, node="SmoothL1LossBackward0")


@_autocast.op("huber_loss")
def huber_loss(input: Tensor, target, reduction: str = "mean", delta: float = 1.0,
               weight: Optional[Tensor] = None) -> Tensor:
    """PyTorch's F.huber_loss: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); with weight
    (input's size) the elementwise losses are multiplied by it before the reduction ("mean" is the
    mean of the weighted losses)."""
    where_ = "huber_loss"
    reduction = _reduction(None, None, reduction, where_)
    delta = _args.real(delta, "delta", where_, as_float=True)
    if delta <= 0:
        raise _C.InvalidArgumentError(f"{where_}: delta must be > 0, got {delta} (huber_loss does not support "
                                      f"non-positive values for delta)\n  fix: huber_loss(x, y, delta=1.0)")
    t = _tensor_like(target, input)
    if not t.is_floating_point():  # as mse_loss's
        _args.floating_input(input, "huber_cpu")
    _broadcast_warning(input, t, where_)
    _saves_for_backward(where_, input, t)
    d = input - t
    a = d.abs()
    # delta=inf (PyTorch takes it) is the squared error: the other branch's inf * 0 would give a
    # NaN gradient through where
    loss = d * d * 0.5 if math.isinf(delta) else where(a < delta, d * d * 0.5, (a - 0.5 * delta) * delta)
    w = elementwise_weight(weight, input, where_)
    if w is None:
        return _reduce(loss, reduction, node="HuberLossBackward0")
    return _reduce(loss * w, reduction)  # PyTorch weighs its 'none' loss: MulBackward0, then the reduction's


def refuse_integral_kl_div(input: Tensor, target: Tensor, call: str) -> None:
    """PyTorch's kl_div (F.kl_div and torch.kl_div alike) refuses an integer or bool input or
    target with RuntimeError 'Integral inputs not supported'."""
    if not all(t.dtype.is_floating_point or t.dtype.is_complex for t in (input, target)):
        raise RuntimeError(f"kl_div: Integral inputs not supported.\n  got input {input.dtype}, target {target.dtype}\n"
                           f"  fix: {call}(input.float(), target.float())")


@_autocast.op("kl_div")
def kl_div(input: Tensor, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """PyTorch's F.kl_div with input holding log-probabilities: target (log target - input), 0 where
    target is 0 (log_target=False), or exp(target) (target - input) (log_target=True). reduction
    "batchmean" divides the sum by input.size(0) (the KL divergence per sample); "mean" averages
    over every element, as PyTorch's (which warns that this is not the KL divergence)."""
    where_ = "kl_div"
    if reduction == "batchmean" and size_average is None and reduce is None:
        batchmean = True
        reduction = "sum"
    else:
        batchmean = False
        reduction = _reduction(size_average, reduce, reduction, where_)
        if reduction == "mean" and size_average is None and reduce is None:
            # PyTorch's text, word for word (its sentences join without a space)
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=_trace.user_stacklevel())
    _args.python_bool(log_target, "log_target", where_, "log_target=True or log_target=False")
    t = _tensor_like(target, input)
    refuse_integral_kl_div(input, t, "F.kl_div")
    if log_target:
        loss = t.exp() * (t - input)
    else:
        loss = xlogy(t, t) - t * input
    out = _reduce(loss, reduction)
    if batchmean and input.ndim != 0:
        out = out / input.shape[0]
    return out


@_autocast.op("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.poisson_nll_loss: exp(input) - target input (log_input=True), or input - target
    log(input + eps); full=True adds Stirling's term target log target - target + 0.5 log(2 pi target)
    where target > 1."""
    where_ = "poisson_nll_loss"
    reduction = _reduction(size_average, reduce, reduction, where_, strict=True)
    t = _tensor_like(target, input)
    loss = input.exp() - t * input if log_input else input - t * (input + eps).log()
    if full:
        # PyTorch's term, taken on the target as it is and masked to 0 where target <= 1: a target
        # that requires grad gets PyTorch's gradient there, nan at 0 (0 times log 0's infinities)
        stirling = t * t.log() - t + (t * (2 * math.pi)).log() * 0.5  # type: ignore[attr-defined, operator]
        loss = loss + where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """PyTorch's F.gaussian_nll_loss: 0.5 (log var + (input - target)^2 / var) (+ 0.5 log 2 pi with
    full), var clamped to eps for the value only (its gradient passes as if unclamped, as PyTorch's
    clamp under no_grad). var: input's size, or input's with the last dimension left out or one
    dimension 1 (one variance shared along it), or a float."""
    where_ = "gaussian_nll_loss"
    t = _tensor_like(target, input)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise _C.InvalidArgumentError(f"{where_}: var has negative entry/entries ({var})\n  fix: var >= 0")
        var = input.detach().new_full(tuple(input.shape), float(var))
    elif not isinstance(var, Tensor):
        _args.fail(where_, "var", "a tensor or a float", var, type_error=True)
    elif bool((var < 0).any().item()):
        raise _C.InvalidArgumentError(f"{where_}: var has negative entry/entries\n  fix: var.clamp(min=0)")
    vs, xs = tuple(var.shape), tuple(input.shape)
    if vs != xs:
        if xs[:-1] == vs:
            var = var.unsqueeze(-1)
        elif not (len(vs) == len(xs) and sum(v for x, v in zip(xs, vs) if x != v) == 1):
            raise _C.ShapeError(f"{where_}: var of shape {list(vs)} is of incorrect size for input {list(xs)} (var is "
                                f"of incorrect size)\n  fix: var of input's shape, or with one dimension 1, or "
                                f"input's shape without its last dimension")
    if reduction not in ("none", "mean", "sum"):
        raise _C.InvalidArgumentError(f"{where_}: {reduction} is not valid\n  fix: reduction='mean', 'sum' or 'none'")
    clamped = var + (var.clamp(min=eps) - var).detach()
    loss = (clamped.log() + (input - t) ** 2 / clamped) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@_autocast.op("soft_margin_loss")
def soft_margin_loss(input: Tensor, target, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """PyTorch's F.soft_margin_loss: log(1 + exp(-target input)), target in {1, -1}."""
    reduction = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    t = _tensor_like(target, input)
    _saves_for_backward("soft_margin_loss", input, t)
    z = -t * input
    loss = _reduce(z.clamp(min=0.0) + (-z.abs()).exp().log1p(), reduction)  # stable log(1 + exp(z))
    return named_node(loss, "SoftMarginLossBackward0", input)
