"""torch.nn.modules.batchnorm's names, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d", "LazyBatchNorm3d",
    "SyncBatchNorm"])
