"""torch.nn.functional.ctc_loss (nn.CTCLoss), composed of gathers, a logsumexp per step and
wheres: the forward (alpha) recursion of connectionist temporal classification in log space over
each sample's extended label sequence (blank, l1, blank, l2, ..., blank), all samples at once.

alpha_0 holds log_probs[0] at positions 0 (blank) and 1 (the first label); then
    alpha_t(s) = log_probs[t, l'_s] + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1), alpha_{t-1}(s - 2)),
the third term only where l'_s is a label different from l'_{s-2}; a sample's alpha stops at its
input length, and its loss is -logsumexp of the last two positions of its sequence. Unreachable
positions hold -1e30 (not -inf, so that no 0 * inf reaches a gradient); a loss above 1e29 is an
impossible alignment, inf as PyTorch's (0, with a zero gradient, under zero_infinity; without it
a gradient of nan at that sample's frames before its input length, as PyTorch's: inf is written
-log(0 * s), s the sum of those frames' log_probs, whose derivative is -1/0 * 0).

The gradient is PyTorch's: its CTC backward returns exp(log_probs) - occupation for each frame
before the input length (the gradient of the logits when log_probs = log_softmax(logits), which
it adds to the true gradient of log_probs, -occupation). So a zero-valued term
exp(log_probs) * (log_probs - log_probs.detach()) over those frames is added to each loss.
"""
from __future__ import annotations

import numpy as np

from . import _C, _args, _autocast, _math
from ._losses import _reduction
from ._reductions import logsumexp
from ._shapes import stack
from ._spatial import cat
from ._tensor import Tensor, tensor
from ._torch_operands import named_node
from .functional import where

_UNREACHABLE = -1e30


def _lengths(value, n: int, name: str) -> np.ndarray:
    v = np.asarray(value.numpy(force=True) if isinstance(value, Tensor) else value, dtype=np.int64).reshape(-1)
    if v.shape[0] != n:
        raise _C.ShapeError(f"ctc_loss: {name} must have one length per sample ({n}), got {v.shape[0]}\n"
                            f"  fix: {name}=glassgrad.tensor([...]) with {n} values")
    return v


def _label_rows(targets, target_lengths: np.ndarray) -> list:
    """Each sample's labels: the first target_lengths[b] of row b of a padded (N, S) targets, or
    consecutive slices of a concatenated 1-d targets."""
    t = np.asarray(targets.numpy(force=True) if isinstance(targets, Tensor) else targets, dtype=np.int64)
    if t.ndim == 2:
        if (target_lengths > t.shape[1]).any():
            raise _C.ShapeError(f"ctc_loss: Expected tensor to have size at least {int(target_lengths.max())} at "
                                f"dimension 1, but got size {t.shape[1]} for targets {list(t.shape)}\n  fix: "
                                f"target_lengths at most the padded targets' length")
        return [t[b, :n] for b, n in enumerate(target_lengths)]
    if t.ndim != 1:
        raise _C.ShapeError(f"ctc_loss: targets must be (N, S) or 1-d (concatenated), got {list(t.shape)}")
    ends = np.cumsum(target_lengths)
    if ends[-1] != t.shape[0]:
        raise _C.ShapeError(f"ctc_loss: Expected tensor to have size {int(ends[-1])} at dimension 0, but got size "
                            f"{t.shape[0]} for targets (the target lengths' sum)\n  fix: concatenated targets of "
                            f"every sample's labels, or (N, S) targets padded")
    return [t[e - n:e] for e, n in zip(ends, target_lengths)]


@_autocast.op("ctc_loss")
def ctc_loss(log_probs: Tensor, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """PyTorch's F.ctc_loss: log_probs (T, N, C) (or unbatched (T, C)), targets (N, S) padded or
    1-d concatenated, input_lengths and target_lengths (N); 'mean' divides each loss by its
    target length (at least 1), then averages over the batch."""
    where_ = "ctc_loss"
    reduction = _reduction(None, None, reduction, where_)
    blank = _args.integer(blank, "blank", where_, minimum=0)
    zero_infinity = _args.flag(zero_infinity, "zero_infinity", where_)
    unbatched = log_probs.ndim == 2
    lp = log_probs.reshape(log_probs.shape[0], 1, log_probs.shape[1]) if unbatched else log_probs
    if lp.ndim != 3:
        raise _C.ShapeError(f"{where_}: log_probs must be (T, N, C) or (T, C), got {list(log_probs.shape)}")
    steps, n, c = lp.shape
    if not blank < c:
        raise _C.InvalidArgumentError(f"{where_}: blank must be in label range, got blank={blank} for {c} classes\n"
                                      f"  fix: blank=0")
    in_len, tg_len = _lengths(input_lengths, n, "input_lengths"), _lengths(target_lengths, n, "target_lengths")
    if (in_len > steps).any():
        raise _C.ShapeError(f"{where_}: Expected input_lengths to have value at most {steps}, but got value "
                            f"{int(in_len.max())}\n  fix: input lengths at most log_probs.shape[0]")
    rows = _label_rows(targets, tg_len)   # unbatched: 1-d targets, read as the concatenated form
    width = 2 * int(tg_len.max(initial=0)) + 1
    ext = np.full((n, width), blank, dtype=np.int64)
    skip = np.zeros((n, width), dtype=bool)
    for b, labels in enumerate(rows):
        ext[b, 1:2 * len(labels):2] = labels
        for s in range(3, 2 * len(labels), 2):
            skip[b, s] = labels[(s - 1) // 2] != labels[(s - 3) // 2]
    dev, dt = lp.device, lp.dtype
    index = tensor(ext, device=dev)
    none = tensor(np.full((n, width), _UNREACHABLE), dtype=dt, device=dev)
    start = np.full((n, width), _UNREACHABLE)
    start[:, 0] = 0.0
    if width > 1:
        start[tg_len > 0, 1] = 0.0
    alpha = lp[0].gather(1, index) + tensor(start, dtype=dt, device=dev)
    skips = tensor(skip, device=dev)
    for t in range(1, steps):
        one = _shift(alpha, 1, none)
        two = where(skips, _shift(alpha, 2, none), none)
        new = logsumexp(stack([alpha, one, two], 0), 0) + lp[t].gather(1, index)
        alive = tensor(np.repeat((in_len > t)[:, None], width, 1), device=dev)
        alpha = where(alive, new, alpha)
    last = tensor((2 * tg_len).reshape(-1, 1), device=dev)
    before = tensor(np.maximum(2 * tg_len - 1, 0).reshape(-1, 1), device=dev)
    ends = stack([alpha.gather(1, last), where(tensor((tg_len > 0).reshape(-1, 1), device=dev),
                                               alpha.gather(1, before), none[:, :1])], 0)
    loss = -logsumexp(ends, 0).reshape(n)
    frames = tensor((np.arange(steps)[:, None] < in_len[None, :]).astype(np.float64)[:, :, None], dtype=dt,
                    device=dev)
    torch_term = (lp.detach().exp() * (lp - lp.detach()) * frames).sum((0, 2))   # value 0: PyTorch's gradient
    impossible = loss > -_UNREACHABLE / 10
    if zero_infinity:
        loss = where(impossible, tensor(np.zeros(n), dtype=dt, device=dev), loss + torch_term)
    else:
        # the impossible samples' frames only (a possible one's 1.0 and a later frame's 0.0 keep
        # every other gradient finite: a where's unselected branch gets an exact zero)
        s = where(_math.gt(frames, 0), lp, 0.0).sum((0, 2))
        s = where(impossible & s.detach().isfinite(), s, 1.0)
        loss = where(impossible, -(s * 0.0).log(), loss + torch_term)
    if reduction == "mean":
        loss = (loss / tensor(np.maximum(tg_len, 1).astype(np.float64), dtype=dt, device=dev)).mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif unbatched:
        loss = loss.squeeze(0)   # (PyTorch's node: SqueezeBackward1 of its batch of one)
    elif not zero_infinity:  # PyTorch's one node of log_probs (zero_infinity's: a where of it)
        loss = named_node(loss, "CtcLossBackward0", log_probs)
    return loss


def _shift(alpha: Tensor, k: int, none: Tensor) -> Tensor:
    """alpha moved k positions right along the sequence, unreachable values (none's) entering at the left."""
    if alpha.shape[1] <= k:
        return none
    return cat([none[:, :k], alpha[:, :-k]], 1)
