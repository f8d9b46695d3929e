"""What the optimizers composed from elementwise ops share (Adadelta, Adagrad, Adamax, NAdam,
RAdam; RMSprop too): the step count and PyTorch's step-dependent factors, computed inside the
step's graph so that a compiled step (or a captured CUDA graph) replays them without Python.

PyTorch computes those factors (bias corrections 1 - beta^t, Adagrad's decayed lr, NAdam's
momentum cache, RAdam's rectification) in double from the step count, then uses them as scalars
of the parameter's dtype. Here they are float64 0-d tensors made from the float step, cast to the
parameter's dtype where they meet it, which rounds as PyTorch does."""
from __future__ import annotations

import math
from typing import Union

from .._tensor import Tensor
from .optimizer import _op_multi

Number = Union[float, Tensor]


def advance_step(opt, st) -> Tensor:
    """st['step'] += 1 (in place); returns the new count as a float64 0-d tensor."""
    opt._assign(st, "step", st["step"] + 1)
    return st["step"].astype("float64")


def power(base: Number, t: Tensor) -> Tensor:
    """base ** t for a count t >= 1 (float64 0-d): exp(t log base); 0 ** t = 0."""
    if isinstance(base, Tensor):
        return (t * base.log()).exp()
    return (t * math.log(base)).exp() if base > 0 else t * 0.0


def lerp(start: Tensor, end: Tensor, weight: Number) -> Tensor:
    """start + weight * (end - start) (PyTorch's lerp_, the moving averages' update)."""
    return start + (end - start) * weight


def like(scalar: Tensor, p: Tensor) -> Tensor:
    """A float64 factor as p's dtype."""
    return scalar.astype(p.dtype) if scalar.dtype != p.dtype else scalar


def complement(opt, group, key: str, p: Tensor) -> Tensor:
    """1 - the group's `key` (beta1), a moving average's weight: PyTorch computes it from the
    Python float in double and its kernel reads it as p's dtype (1 - beta1 in p's float32 would
    round beta1 first)."""
    return like(1 - opt._hyper(group, key, p, "float64"), p)


def with_weight_decay(p: Tensor, g: Tensor, group) -> Tensor:
    """The gradient with L2 weight decay, g + weight_decay * p, as PyTorch's optimizers add it
    before their update; unchanged when the group decays decoupled (descend applies that)."""
    wd = group["weight_decay"]
    return g if wd == 0 or group.get("decoupled_weight_decay") else g + p * wd


def descend(opt, p: Tensor, direction: Tensor, lr: Tensor, group) -> None:
    """p -= lr * direction, in p's buffer (SGDUpdate), after the decoupled weight decay
    p *= 1 - lr * weight_decay where the group asks for it (AdamW's; SGDUpdate's weight_decay
    term lr * weight_decay * p is that decay, since the direction does not depend on p)."""
    wd = group["weight_decay"] if group.get("decoupled_weight_decay") else 0.0
    (new_p,) = _op_multi("SGDUpdate", [p, direction, lr], {"weight_decay": wd})
    opt._swap(p, new_p)
