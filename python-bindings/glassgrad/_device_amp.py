"""torch.cuda.amp and torch.cpu.amp, the per-device spellings older scripts use: autocast with
the device fixed, GradScaler with device=<device> and (cuda) custom_fwd/custom_bwd. They are
glassgrad.amp's, with PyTorch's FutureWarning naming the torch.amp spelling."""
from __future__ import annotations

import types
import warnings
from typing import Optional

from . import _dtypes
from .amp import GradScaler as _GradScaler
from .amp import autocast as _autocast
from .amp import custom_bwd as _custom_bwd
from .amp import custom_fwd as _custom_fwd


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


def make(device_type: str) -> types.ModuleType:
    module = types.ModuleType(f"glassgrad.{device_type}.amp", f"torch.{device_type}.amp: glassgrad.amp for "
                                                               f"device_type='{device_type}'")
    default_dtype = _dtypes.to_dtype("float16" if device_type == "cuda" else "bfloat16")

    class autocast(_autocast):
        def __init__(self, enabled: bool = True, dtype=default_dtype, cache_enabled: bool = True):
            _deprecated(f"torch.{device_type}.amp.autocast", f"torch.amp.autocast('{device_type}', args...)")
            super().__init__(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                     growth_interval: int = 2000, enabled: bool = True):
            _deprecated(f"torch.{device_type}.amp.GradScaler", f"torch.amp.GradScaler('{device_type}', args...)")
            super().__init__(device_type, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    module.__path__ = []  # type: ignore[attr-defined]  # a package without a folder: cuda.amp.common is registered
    module.autocast = autocast  # type: ignore[attr-defined]
    module.GradScaler = GradScaler  # type: ignore[attr-defined]
    if device_type == "cuda":
        def custom_fwd(fwd=None, *, cast_inputs: Optional[object] = None):
            _deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
            return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)

        def custom_bwd(bwd=None):
            _deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
            return _custom_bwd(bwd, device_type="cuda")

        def amp_definitely_not_available() -> bool:
            """torch.cuda.amp.common.amp_definitely_not_available: True without a usable GPU."""
            from . import cuda
            return not cuda.is_available()

        common = types.ModuleType("glassgrad.cuda.amp.common", "torch.cuda.amp.common")
        common.amp_definitely_not_available = amp_definitely_not_available  # type: ignore[attr-defined]
        module.custom_fwd = custom_fwd  # type: ignore[attr-defined]
        module.custom_bwd = custom_bwd  # type: ignore[attr-defined]
        module.amp_definitely_not_available = amp_definitely_not_available  # type: ignore[attr-defined]
        module.common = common  # type: ignore[attr-defined]
    return module
