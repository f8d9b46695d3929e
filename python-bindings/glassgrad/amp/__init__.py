"""torch.amp: autocast and GradScaler. glassgrad runs autocast regions in float32 (see
docs/numerics.md, "Mixed precision"): it targets GPUs without tensor cores and CPUs, where half
precision makes no op faster, so a mixed-precision script runs unchanged and computes in float32.
GradScaler works as PyTorch documents (scale, unscale_, a skipped step on inf/NaN, update)."""
from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_available", "is_autocast_enabled"]
