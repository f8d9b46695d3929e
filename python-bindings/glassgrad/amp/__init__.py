"""torch.amp: autocast, custom_fwd/custom_bwd and GradScaler. Inside an autocast region the ops
of PyTorch's autocast lists cast their inputs at the op's boundary (matmul, conv and linear to
the region's float16/bfloat16, losses and range-sensitive ops to float32), as PyTorch's; see
docs/numerics.md, "Mixed precision". GradScaler works as PyTorch documents (scale, unscale_, a
skipped step on inf/NaN, update, state_dict)."""
from .autocast_mode import (autocast, clear_autocast_cache, custom_bwd, custom_fwd, get_autocast_cpu_dtype,
                            get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_available,
                            is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
                            set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                            set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype", "is_autocast_available",
           "is_autocast_enabled"]
