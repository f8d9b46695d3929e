"""glassgrad.utils: torch.utils' names. `glassgrad.utils.data` (datasets, samplers, DataLoader) is
imported with glassgrad; `glassgrad.utils.tensorboard` (SummaryWriter) when a script imports it;
`glassgrad.utils.hooks.RemovableHandle` is what Tensor.register_hook returns."""
from . import data, hooks

__all__ = ["data", "hooks"]
