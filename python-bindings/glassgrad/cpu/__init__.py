"""torch.cpu: the CPU as a device (is_available, device_count, synchronize, current_device) and
torch.cpu.amp."""
from __future__ import annotations

import sys

from .._device_amp import make as _make_amp

amp = _make_amp("cpu")
sys.modules[__name__ + ".amp"] = amp  # `from torch.cpu.amp import autocast` imports it


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device=None) -> None:
    """The CPU's work is done when the calls that compute it return: nothing to wait for."""
