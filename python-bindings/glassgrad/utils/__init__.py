"""glassgrad.utils: torch.utils' names. `glassgrad.utils.data` (datasets, samplers, DataLoader) is
imported with glassgrad; `glassgrad.utils.tensorboard` (SummaryWriter) when a script imports it."""
from . import data  # noqa: F401

__all__ = ["data"]
