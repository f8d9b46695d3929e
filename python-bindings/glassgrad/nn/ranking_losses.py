"""MultiLabelMarginLoss and TripletMarginWithDistanceLoss: torch.nn's loss modules over
glassgrad/_ranking_losses.py's functions, with PyTorch's constructor arguments."""
from __future__ import annotations

from typing import Callable, Optional

from .. import _args, _ranking_losses as K
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
        self.margin, self.swap = _args.real(margin, "margin", where), _args.flag(swap, "swap", where)
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
