"""Batch normalization as a function: PyTorch's F.batch_norm (argument order, return value,
running-statistics update), over (N, C), (N, C, L), (N, C, H, W) or (N, C, D, H, W) input.

    y = (x - mean) / sqrt(var + eps) * weight + bias          per channel c (axis 1)

In training, mean and var are the batch's (biased var, over every axis but 1), and when running
statistics are given they are updated in place:

    running_mean = (1 - f) * running_mean + f * mean
    running_var  = (1 - f) * running_var + f * var * n / (n - 1)      (n values per channel)

with f = momentum; nn.BatchNorm with momentum=None passes f = 1 / num_batches_tracked (a
cumulative moving average) as a 0-d tensor, so it changes every step without changing the plan.
In evaluation, the running statistics normalize.

The BatchNorm2D* ops take (N, C, ...) input of 2 to 5 axes as it is, and their shape rules check
it (its rank, and weight, bias, running_mean and running_var against its channels: the training
op checks weight and bias, BatchNormUpdateStats the running statistics against the batch's, the
inference op all four; an update with a tensor momentum, composed from elementwise ops, calls
that rule's check). What stays here is what no rule sees: whether the running statistics were
given at all.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Optional, Union, cast

import numpy as np

from . import _C, _args, _runtime, _saved_tensor_hooks, _tensor, _trace
from ._tensor import Tensor, _op, _op_handles, _op_multi, _wrap
from ._trace import _PACKAGE_DIR, current_scope


def _constant(value: float, n: int, like: Tensor) -> Tensor:
    bfloat16 = str.__str__(like.dtype) == "bfloat16"  # NumPy has no bfloat16: made in float32, converted
    arr = np.full(n, value, dtype=np.float32 if bfloat16 else like.dtype)
    t = _wrap(_C.lazy_leaf(_C.Tensor.from_numpy(arr, like.device, "constant"), "constant", False, ""))
    return t.to(like.dtype) if bfloat16 else t


def values_per_channel(shape) -> int:
    """M, the values each channel's batch statistics are taken over: N times the axes after C."""
    return math.prod([shape[0]] + list(shape[2:]))


@functools.lru_cache(maxsize=None)
def _writes_in_place(op: str) -> bool:
    return bool(_C.op_schema(op)["inplace"])


def _stored(t: Tensor) -> bool:
    """Whether an in-place op may take t as its target: a stored value, or the pending output of
    another in-place op (the runtime's rule for in-place inputs, core-runtime/src/lazy/values.cpp)."""
    h = t._h
    return h.realized or (bool(h.op) and _writes_in_place(h.op))


def update_running_stats(running_mean: Tensor, running_var: Tensor, mean: Tensor, var: Tensor, count: int,
                         factor: Union[float, Tensor]) -> None:
    """The in-place update of running statistics (see the module doc); the tensors keep their
    identity (their handles move to the updated values). Computed statistics (an AdaIN layer's
    `self.running_mean.repeat(b)`) are written as any in-place op writes a computed tensor, as
    PyTorch updates them too."""
    if _storage_typed(running_mean, running_var):
        _update_in_float32(running_mean, running_var, mean, var, count, factor)
        return
    # a view (m.running_mean = buf[0]) is written in place, through to its base, as PyTorch's
    if running_mean._h.is_view or running_var._h.is_view or not (
            (running_mean._h.realized or _stored(running_mean)) and (running_var._h.realized or _stored(running_var))):
        from ._runtime import no_grad
        # (mypy does not see Tensor's operators and in-place methods, attached to the class at import)
        with no_grad():  # statistics carry no gradient, as PyTorch's update in the kernel
            unbiased = var * (count / (count - 1)) if count > 1 else var * float("nan")  # type: ignore[operator]
            running_mean.mul_(1 - factor).add_(mean * factor)  # type: ignore[attr-defined, operator]
            running_var.mul_(1 - factor).add_(unbiased * factor)  # type: ignore[attr-defined, operator]
        return
    if isinstance(factor, Tensor):  # composed from elementwise ops: no BatchNorm rule sees the shapes
        _C.check_batchnorm_running_stats("batch_norm", current_scope(), running_mean._h, running_var._h, mean._h,
                                         var._h)
        keep = 1 - factor
        unbiased = var * (count / (count - 1)) if count > 1 else var * float("nan")
        rm = _op("Assign", [running_mean, running_mean * keep + mean * factor])
        rv = _op("Assign", [running_var, running_var * keep + unbiased * factor])
        running_mean._h.reset(rm._h)
        running_var._h.reset(rv._h)
        return
    new_mean, new_var = _op_handles("BatchNormUpdateStats", [running_mean, running_var, mean, var],
                                    {"momentum": float(factor), "count": int(count)})
    running_mean._h.reset(new_mean)
    running_var._h.reset(new_var)


def _storage_typed(running_mean: Tensor, running_var: Tensor) -> bool:
    """float16 / bfloat16 running statistics (a half model's BatchNorm): the runtime's in-place
    statistics op refuses storage types (it computes in float32), so these update by
    _update_in_float32."""
    return running_mean.dtype in _STORAGE_TYPES or running_var.dtype in _STORAGE_TYPES


_STORAGE_TYPES = ("float16", "bfloat16")


def _update_in_float32(running_mean: Tensor, running_var: Tensor, mean: Tensor, var: Tensor, count: int,
                       factor: Union[float, Tensor]) -> None:
    """The module doc's update of float16 / bfloat16 running statistics, computed in float32 and
    rounded once to their dtype (as PyTorch's CPU kernel accumulates half statistics in float)."""
    from ._runtime import no_grad
    # Any: mypy does not see Tensor's operators and in-place methods, attached to the class at import
    rm, rv, m, v, f = cast(Any, (running_mean, running_var, mean, var, factor))
    with no_grad():
        unbiased = v.float() * (count / (count - 1)) if count > 1 else v.float() * float("nan")
        rm.copy_(rm.float() * (1 - f) + m.float() * f)
        rv.copy_(rv.float() * (1 - f) + unbiased * f)


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False,
               momentum: Union[float, Tensor] = 0.1, eps: float = 1e-5) -> Tensor:
    """PyTorch's torch.nn.functional.batch_norm: same argument order, returns the normalized
    tensor, and in training updates running_mean / running_var in place when they are given."""
    w, b = weight, bias
    if w is None or b is None:
        c = input.shape[1] if input.ndim >= 2 else 0  # a rank the rule refuses: any constants do
        w = w if w is not None else _constant(1.0, c, input)
        b = b if b is not None else _constant(0.0, c, input)
    if training:
        if input.ndim < 2:  # PyTorch's kernel reads dim 1 (the channels) before any check
            _args.absent_dim("batch_norm", input.shape, 1, "an (N, C, ...) input, e.g. x.unsqueeze(0)")
        return training_forward(input, input._h.shape, running_mean, running_var, w, b, momentum, eps)
    else:
        if running_mean is None or running_var is None:
            raise _C.InvalidArgumentError(
                "batch_norm: evaluation mode (training=False) normalizes with running_mean and running_var, and "
                "they were not given\n  fix: pass the running statistics, or training=True to use the batch's")
        if input.ndim == 1 and running_mean.numel() == 0 and running_var.numel() == 0:
            # PyTorch's size check passes (0 channels, 0 statistics) and its kernel then reads dim 1
            _args.absent_dim("batch_norm", input.shape, 1, "an (N, C, ...) input, e.g. x.unsqueeze(0)")
        y = _op("BatchNorm2DInference", [input, w, b, running_mean, running_var], {"eps": float(eps)})
    return y


def training_forward(input: Tensor, shape, running_mean: Optional[Tensor], running_var: Optional[Tensor], weight: Tensor,
          bias: Tensor, momentum: Union[float, Tensor], eps: float, counter: Optional[Tensor] = None) -> Tensor:
    """batch_norm in training with weight and bias given, `shape` input's (every BatchNorm layer's
    training forward calls it directly, with the shape it read): normalized by the batch's
    statistics, and the running ones updated in place when given. Stored statistics and a float
    momentum (every step of a training loop) are updated by the node update_running_stats
    records for them, in the runtime call that records the forward and moves the two running
    tensors (_C.lazy_batchnorm_training); the batch's statistics are never Tensors, nor handles
    there, unless an inference tensor lives, an inference_mode block is open or saved-tensor hooks
    are on (_op_multi's checks and hooks see them).

    counter: the layer's num_batches_tracked, or None; given, it is counted (+= 1, in place) once
    the forward is recorded, on every path that returns (an input the rules refuse leaves it as
    it was): in the statistics update's runtime call on the common path, by _count otherwise."""
    count = math.prod(shape[2:], start=shape[0]) if len(shape) >= 2 else 2  # values_per_channel (rank: the rule's)
    if count < 2 and shape[1]:
        return _count(_without_statistics(input, shape, weight, bias), counter)
    if (_tensor._INFERENCE_TENSORS or _saved_tensor_hooks.STACK or _runtime._inference_blocks
            or _TRAINING is None):
        return _count(_training_forward_wrapped(input, count, running_mean, running_var, weight, bias, momentum, eps),
                      counter)
    outs = None
    if running_mean is not None and running_var is not None and type(momentum) is float:
        # The forward and the statistics update in one runtime call (record_batchnorm_training):
        # the output's handle when the update was recorded, else the forward's three handles.
        # float16 / bfloat16 statistics are refused by the update (DTypeError, the counter not
        # moved): recorded again below, their dtypes read only then (two property reads per layer
        # and step otherwise) and updated by _update_in_float32.
        try:
            outs = _TRAINING("BatchNorm2DTrain", [input, weight, bias], {"eps": float(eps)}, "BatchNormUpdateStats",
                             running_mean, running_var, {"momentum": momentum, "count": count}, _trace._local,
                             _PACKAGE_DIR, counter)
        except _C.DTypeError:
            if not _storage_typed(running_mean, running_var):
                raise
        if outs is not None and type(outs) is not list:
            y = Tensor.__new__(Tensor)  # _wrap, written out: no inference_mode block is open
            y._h = outs
            return y
    y_h, mean_h, var_h = outs or _C.lazy_record_op_outputs("BatchNorm2DTrain", [input, weight, bias],
                                                           {"eps": float(eps)}, _trace._local, _PACKAGE_DIR)
    y = Tensor.__new__(Tensor)  # _wrap, written out: no inference_mode block is open
    y._h = y_h
    if running_mean is None or running_var is None:
        return _count(y, counter)
    update_running_stats(running_mean, running_var, _wrap(mean_h), _wrap(var_h), count, momentum)
    return _count(y, counter)


def _count(y: Tensor, counter: Optional[Tensor]) -> Tensor:
    """y, after counter += 1 in place (a BatchNorm layer's num_batches_tracked) when one is given."""
    if counter is not None:
        counter._h.reset(_op_handles("AddScalarInPlace", [counter], {"value": 1.0})[0])
    return y


# The runtime's forward and statistics update in one call (None in an extension built before it:
# the wrapped path).
_TRAINING = getattr(_C, "lazy_batchnorm_training", None)


def _training_forward_wrapped(input: Tensor, count: int, running_mean: Optional[Tensor], running_var: Optional[Tensor],
                              weight: Tensor, bias: Tensor, momentum: Union[float, Tensor], eps: float) -> Tensor:
    """training_forward through _op_multi (each output a Tensor, inference checks and saved-tensor
    hooks applied) and _op_handles; `count` the values per channel."""
    y, mean, var = _op_multi("BatchNorm2DTrain", [input, weight, bias], {"eps": float(eps)})
    if running_mean is None or running_var is None:
        return y
    if (type(momentum) is float and running_mean._h.realized and running_var._h.realized
            and not _storage_typed(running_mean, running_var) and not running_mean._h.is_view
            and not running_var._h.is_view):
        new_mean, new_var = _op_handles("BatchNormUpdateStats", [running_mean, running_var, mean, var],
                                        {"momentum": momentum, "count": count})
        running_mean._h.reset(new_mean)
        running_var._h.reset(new_var)
    else:
        update_running_stats(running_mean, running_var, mean, var, count, momentum)
    return y


def _without_statistics(input: Tensor, shape, weight: Tensor, bias: Tensor) -> Tensor:
    """Training on fewer than 2 values per channel, as PyTorch's F.batch_norm: none (an empty
    batch) gives the empty output input * weight[0] + bias[0] (still in the graph: weight and bias
    get zero gradients) and leaves the running statistics as they were; one value is a ValueError,
    its statistics (mean x, variance 0) being meaningless."""
    if values_per_channel(shape) == 0:
        return input.clone() * weight[0] + bias[0]  # type: ignore[operator]
    where = current_scope()
    raise _C.ShapeError(f"batch_norm{f' in {where!r}' if where else ''}: Expected more than 1 value per channel "
                        f"when training, got input size {list(shape)}\n  the batch statistics of one value are mean = x "
                        f"and variance 0, so the output would be beta whatever x is\n  fix: use a batch of at least 2, "
                        f"or call model.eval() to normalize with the running statistics")
