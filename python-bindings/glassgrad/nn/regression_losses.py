"""Loss modules with torch.nn's names, arguments and defaults over glassgrad._regression_losses,
glassgrad._margin_losses and glassgrad._distances (SmoothL1Loss, HuberLoss, KLDivLoss, ...,
CosineSimilarity, PairwiseDistance)."""
from __future__ import annotations

import math
from typing import Optional

from .. import _C, _args, _distances, _margin_losses as M, _regression_losses as R
from .._tensor import Tensor
from .loss import _Loss, _WeightedLoss
from .module import Module


class SmoothL1Loss(_Loss):
    """F.smooth_l1_loss(input, target, reduction, beta)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = _args.real(beta, "beta", "SmoothL1Loss")

    def forward(self, input: Tensor, target) -> Tensor:
        return R.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """F.huber_loss(input, target, reduction, delta)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = _args.real(delta, "delta", "HuberLoss", as_float=True)

    def forward(self, input: Tensor, target) -> Tensor:
        return R.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """F.kl_div(input (log-probabilities), target, reduction, log_target); reduction may be 'batchmean'."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        if reduction == "batchmean" and size_average is None and reduce is None:
            super().__init__()
            self.reduction = "batchmean"
        else:
            super().__init__(size_average, reduce, reduction)
        self.log_target = log_target  # as given, as PyTorch keeps it: F.kl_div refuses one that is no bool

    def forward(self, input: Tensor, target) -> Tensor:
        return R.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """F.poisson_nll_loss(input, target, log_input, full, eps, reduction)."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target) -> Tensor:
        return R.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """F.gaussian_nll_loss(input, target, var, full, eps, reduction)."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target, var) -> Tensor:
        return R.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """F.soft_margin_loss(input, target, reduction)."""

    def forward(self, input: Tensor, target) -> Tensor:
        return R.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """F.margin_ranking_loss(input1, input2, target, margin, reduction)."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = _args.real(margin, "margin", "MarginRankingLoss", as_float=True)

    def forward(self, input1: Tensor, input2: Tensor, target) -> Tensor:
        return M.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """F.hinge_embedding_loss(input, target, margin, reduction)."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = _args.real(margin, "margin", "HingeEmbeddingLoss")

    def forward(self, input: Tensor, target) -> Tensor:
        return M.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """F.cosine_embedding_loss(input1, input2, target, margin, reduction)."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = _args.real(margin, "margin", "CosineEmbeddingLoss")

    def forward(self, input1: Tensor, input2: Tensor, target) -> Tensor:
        return M.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        where = "TripletMarginLoss"
        self.margin, self.p = _args.real(margin, "margin", where), _args.real(p, "p", where, as_float=True)
        self.eps, self.swap = _args.real(eps, "eps", where), swap  # swap as given: F.triplet_margin_loss checks it
        if self.margin <= 0:
            raise _C.InvalidArgumentError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} "
                                          f"instead\n  fix: TripletMarginLoss(margin=1.0)")

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return M.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """F.multilabel_soft_margin_loss(input, target, weight, reduction)."""

    def forward(self, input: Tensor, target) -> Tensor:
        return M.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """F.multi_margin_loss(input, target, p, margin, weight, reduction)."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None, size_average=None,
                 reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.p, self.margin = _args.integer(p, "p", "MultiMarginLoss"), _args.real(margin, "margin", "MultiMarginLoss")
        if self.p not in (1, 2):
            raise _C.InvalidArgumentError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got p={p}\n  fix: "
                                          f"MultiMarginLoss(p=1)")

    def forward(self, input: Tensor, target) -> Tensor:
        return M.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class CosineSimilarity(Module):
    """F.cosine_similarity(x1, x2, dim, eps)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = _args.integer(dim, "dim", "CosineSimilarity"), _args.real(eps, "eps", "CosineSimilarity")

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return _distances.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """F.pairwise_distance(x1, x2, p, eps, keepdim)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        where = "PairwiseDistance"
        # p=inf (the largest difference) and -inf (the smallest) are norms F.pairwise_distance takes
        self.norm = p if isinstance(p, float) and math.isinf(p) else _args.real(p, "p", where)
        self.eps = _args.real(eps, "eps", where)
        self.keepdim = keepdim  # as given, as PyTorch keeps it: F.pairwise_distance refuses one that is no bool

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return _distances.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
