"""torch.nn.modules.conv's names, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
    "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"])
