"""torch.cuda.amp and torch.cpu.amp, the per-device spellings older scripts use: autocast with
the device fixed, and (cuda) GradScaler with device='cuda'. They are glassgrad.amp's."""
from __future__ import annotations

import types

from .amp import GradScaler as _GradScaler
from .amp import autocast as _autocast


def make(device_type: str) -> types.ModuleType:
    module = types.ModuleType(f"glassgrad.{device_type}.amp", f"torch.{device_type}.amp: glassgrad.amp for "
                                                               f"device_type='{device_type}'")

    class autocast(_autocast):
        def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
            super().__init__(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                     growth_interval: int = 2000, enabled: bool = True):
            super().__init__(device_type, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    module.autocast = autocast  # type: ignore[attr-defined]
    module.GradScaler = GradScaler  # type: ignore[attr-defined]
    return module
