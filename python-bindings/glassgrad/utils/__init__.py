"""glassgrad.utils: torch.utils' names. `glassgrad.utils.data` (datasets, samplers, DataLoader) is
imported with glassgrad; `glassgrad.utils.tensorboard` (SummaryWriter) when a script imports it;
`glassgrad.utils.hooks.RemovableHandle` is what Tensor.register_hook returns;
`glassgrad.utils.checkpoint` is torch.utils.checkpoint (activation checkpointing)."""
from . import checkpoint, data, hooks
from ._swap_tensors import swap_tensors


def set_module(obj, mod: str) -> None:
    """torch.utils.set_module: sets obj.__module__ to mod (for nicer printing); mod must be a str."""
    if not isinstance(mod, str):
        raise TypeError(f"The mod argument should be a string\n  set_module: got {type(mod).__name__}\n  fix: "
                        "set_module(obj, 'package.module')")
    obj.__module__ = mod


__all__ = ["checkpoint", "data", "hooks", "set_module", "swap_tensors"]
