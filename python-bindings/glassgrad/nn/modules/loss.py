"""torch.nn.modules.loss's names, resolved from glassgrad.nn (see _names.py)."""
from ..loss import _Loss, _WeightedLoss  # noqa: F401 (the base classes custom losses subclass)
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "L1Loss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss", "MSELoss", "BCELoss",
    "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SmoothL1Loss", "HuberLoss",
    "SoftMarginLoss", "CrossEntropyLoss", "LinearCrossEntropyLoss", "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "CTCLoss"])
