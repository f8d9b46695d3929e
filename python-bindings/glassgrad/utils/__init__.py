"""glassgrad.utils: torch.utils' names. `glassgrad.utils.data` (datasets, samplers, DataLoader) is
imported with glassgrad; `glassgrad.utils.tensorboard` (SummaryWriter) when a script imports it;
`glassgrad.utils.hooks.RemovableHandle` is what Tensor.register_hook returns;
`glassgrad.utils.checkpoint` is torch.utils.checkpoint (activation checkpointing)."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
