"""torch.nn.modules.instancenorm's names, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d"])
