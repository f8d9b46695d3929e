"""torch.nn.modules.linear_cross_entropy_options's name, resolved from glassgrad.nn (see _names.py)."""
from ._names import forward_names

__all__, __getattr__, __dir__ = forward_names(__name__, ["LinearCrossEntropyOptions"])
