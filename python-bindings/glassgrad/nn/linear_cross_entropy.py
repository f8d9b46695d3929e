"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions: the cross
entropy of a linear layer's logits, PyTorch's reference definition

    cross_entropy(linear(input, linear_weight, linear_bias).reshape(N, C, d1..dK), target, ...)

with a K-dimensional loss when linear_weight is (C, d1, ..., dK, in_features). PyTorch's `options`
selects a chunked kernel that never holds all (N, C) logits at once; glassgrad's planner decides
what it materializes (docs/architecture.md), so options are checked, kept and warned about where
PyTorch warns, and the values are the reference path's. One difference: PyTorch's chunked path
refuses a second backward (unless allow_retain_graph) and higher-order gradients; here both work."""
from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Optional, Tuple

from .. import _dtypes
from .._losses import cross_entropy
from .._tensor import Tensor
from .._trace import user_stacklevel
from ..functional import linear
from .layers import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions", "linear_cross_entropy"]

_ACC_POLICIES = ("auto", "accurate", "compact")
_ACC_DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's chunking options for linear_cross_entropy (checked as PyTorch checks them)."""

    allow_retain_graph: bool = False
    batch_chunk_size: Optional[int] = None
    chunking_method: Optional[str] = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}; expected one of "
                             f"{', '.join(map(repr, _ACC_POLICIES))}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and _dtypes._parse(self.acc_dtype) not in _ACC_DTYPES:
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             f"automatically.")


def _warn_unchunkable(options, out_features: Tuple[int, ...], reduction: str, label_smoothing: float,
                      target: Tensor, prob_target: bool, input: Tensor, linear_bias) -> None:
    """PyTorch's warning when `options` is given for a configuration its chunked path does not take."""
    from .._runtime import records_grad
    chunkable_prob = (prob_target and reduction in {"mean", "sum"} and target.dtype == input.dtype
                      and not (target.requires_grad and records_grad()))
    if options is None or not (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
                               or (_dtypes._parse(target.dtype) != "int64" and not chunkable_prob)):
        return
    warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
                  "label_smoothing == 0, target.dtype == int64 (or a probability target with reduction in "
                  "{'mean','sum'}, dtype matching input, and requires_grad == False), out_features == (). Got "
                  f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                  f"out_features={tuple(out_features)}, tracing=False, target.requires_grad={target.requires_grad}, "
                  f"linear_bias.shape={tuple(linear_bias.shape) if linear_bias is not None else None}.",
                  stacklevel=user_stacklevel())


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Optional[Tensor] = None,
                         weight: Optional[Tensor] = None, reduction: str = "mean", ignore_index: Optional[int] = None,
                         label_smoothing: float = 0.0, options: Optional[LinearCrossEntropyOptions] = None) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...) with PyTorch's shape
    checks; ignore_index None means -100 for class-index targets and is required for probability
    targets (a target of the logits' shape)."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    prob_target = tuple(target.shape) == logits_shape
    if prob_target and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    _warn_unchunkable(options, out_features, reduction, label_smoothing, target, prob_target, input, linear_bias)
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape(rows, in_features)
        linear_bias = linear_bias.reshape(rows) if linear_bias is not None else None
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear(in_features, num_classes * prod(out_features), bias) layer (self.linear, its weight
    stored flat as PyTorch stores it) followed by the cross entropy of its logits."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: Tuple[int, ...] = (), bias: bool = False,
                 device=None, dtype=None, reduction: str = "mean", weight: Optional[Tensor] = None,
                 ignore_index: Optional[int] = None, label_smoothing: float = 0.0,
                 options: Optional[LinearCrossEntropyOptions] = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape(self.num_classes, *self.out_features, self.linear.in_features)
        bias = self.linear.bias
        linear_bias = bias.reshape(self.num_classes, *self.out_features) if bias is not None else None
        return linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                    reduction=self.reduction, ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")
