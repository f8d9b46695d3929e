"""Loss modules with torch.nn's names and arguments: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss,
BCEWithLogitsLoss, BCELoss. Each calls its function in glassgrad.nn.functional; class weights
(and BCEWithLogitsLoss's pos_weight) are buffers, as in PyTorch, so they follow model.to(...).
Arguments are checked when the module is built, with the messages the functions give, so a bad
value fails where it was written rather than at the first batch."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from .. import _args, _losses
from .._autocast import _ACTIVE as _AUTOCAST_ON
from .._autocast import unwrapped
from .._tensor import Tensor
from .module import Module

# cross_entropy's autocast wrapper (_autocast.op) and what it calls outside every autocast region
_CROSS_ENTROPY_OP = _losses.cross_entropy
_CROSS_ENTROPY = unwrapped(_losses.cross_entropy)


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        if size_average is None and reduce is None and reduction not in ("mean", "sum", "none"):
            # kept as given, as PyTorch keeps it: the forward's loss function warns ('elementwise_mean')
            # or refuses it (PyTorch's ValueError at the call, not at construction)
            self.reduction = reduction
        else:
            self.reduction = _losses._reduction(size_average, reduce, reduction, type(self).__name__)
        # no extra_repr: PyTorch prints a loss module as its name alone, MSELoss()


class _WeightedLoss(_Loss):
    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        _tensor_or_none(weight, "weight", type(self).__name__)
        if weight is not None:
            self.register_buffer("weight", weight)
        else:
            self.weight = None


def _tensor_or_none(value, name: str, where: str) -> None:
    """Class weights are a tensor (or a NumPy array) or None, as PyTorch's buffers are."""
    if value is not None and not isinstance(value, (Tensor, np.ndarray)):
        _args.fail(where, name, "a tensor or None", value, fix=f"{name}=glassgrad.tensor([...]) (one value per class)",
                   type_error=True)


class CrossEntropyLoss(_WeightedLoss):
    """F.cross_entropy(input, target, weight, ignore_index=-100, reduction, label_smoothing)."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = _args.integer(ignore_index, "ignore_index", "CrossEntropyLoss")
        self.label_smoothing = label_smoothing  # as given: the forward checks it, as PyTorch's does

    def forward(self, input: Tensor, target) -> Tensor:
        # outside autocast, the function its wrapper calls (nn/layers.py's Conv2d does the same)
        loss = (_CROSS_ENTROPY if _losses.cross_entropy is _CROSS_ENTROPY_OP and not _AUTOCAST_ON[0]
                else _losses.cross_entropy)
        return loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                    reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """F.nll_loss(input (log-probabilities), target, weight, ignore_index=-100, reduction)."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = _args.integer(ignore_index, "ignore_index", "NLLLoss")

    def forward(self, input: Tensor, target) -> Tensor:
        return _losses.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                                reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """PyTorch's deprecated nn.NLLLoss2d: NLLLoss (which takes (N, C, H, W) input), with its warning."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        warnings.warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class MSELoss(_Loss):
    """F.mse_loss(input, target, reduction): mean squared error."""

    def forward(self, input: Tensor, target) -> Tensor:
        return _losses.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """F.l1_loss(input, target, reduction): mean absolute error."""

    def forward(self, input: Tensor, target) -> Tensor:
        return _losses.l1_loss(input, target, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """F.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Optional[Tensor] = None):
        super().__init__(weight, size_average, reduce, reduction)
        _tensor_or_none(pos_weight, "pos_weight", "BCEWithLogitsLoss")
        if pos_weight is not None:
            self.register_buffer("pos_weight", pos_weight)
        else:
            self.pos_weight = None

    def forward(self, input: Tensor, target) -> Tensor:
        return _losses.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                        pos_weight=self.pos_weight)


class BCELoss(_WeightedLoss):
    """F.binary_cross_entropy(input (probabilities), target, weight, reduction)."""

    def forward(self, input: Tensor, target) -> Tensor:
        return _losses.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)
