"""torch.nn.modules.padding's names, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"])
