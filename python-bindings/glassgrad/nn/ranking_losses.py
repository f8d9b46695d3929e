"""MultiLabelMarginLoss, TripletMarginWithDistanceLoss and CTCLoss: torch.nn's loss modules over
glassgrad/_ranking_losses.py's and _ctc_loss.py's functions, with PyTorch's constructor arguments."""
from __future__ import annotations

from typing import Callable, Optional

from .. import _args, _ranking_losses as K
from .._ctc_loss import ctc_loss
from .._tensor import Tensor
from .loss import _Loss
from .regression_losses import PairwiseDistance


class MultiLabelMarginLoss(_Loss):
    """F.multilabel_margin_loss(input, target, reduction)."""

    def forward(self, input: Tensor, target) -> Tensor:
        return K.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function, margin,
    swap, reduction); the arguments are keyword-only, as PyTorch's, and distance_function=None
    is a PairwiseDistance() (a child module, printed as PyTorch prints it)."""

    def __init__(self, *, distance_function: Optional[Callable] = None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean"):
        super().__init__(None, None, reduction)
        where = "TripletMarginWithDistanceLoss"
        self.margin, self.swap = _args.real(margin, "margin", where), swap  # as given, as PyTorch keeps it
        if self.margin <= 0:
            _args.fail(where, "margin", "a number > 0", margin, fix="margin=1.0")
        if distance_function is not None and not callable(distance_function):
            _args.fail(where, "distance_function", "a callable (x1, x2) -> distances, or None", distance_function,
                       fix="distance_function=nn.PairwiseDistance()", type_error=True)
        # None is PyTorch's PairwiseDistance() child module
        self.distance_function = PairwiseDistance() if distance_function is None else distance_function

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return K.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(None, None, reduction)
        self.blank = _args.integer(blank, "blank", "CTCLoss", minimum=0)
        self.zero_infinity = zero_infinity  # as given, as PyTorch keeps it: F.ctc_loss refuses one that is no bool

    def forward(self, log_probs: Tensor, targets, input_lengths, target_lengths) -> Tensor:
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)
