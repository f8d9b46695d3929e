"""Memory accounting, limits and the allocation log, per device."""
from __future__ import annotations

from typing import List, Optional, Union

from . import _C, _device


def memory_stats(device=None) -> dict:
    """{'current', 'peak', 'limit', 'num_allocs', 'num_frees', 'cached'} in bytes for a device."""
    return dict(_C.memory_stats(_device.normalize(device)))


def reset_peak_memory(device=None) -> None:
    _C.reset_peak(_device.normalize(device))


def set_memory_limit(limit: Optional[Union[str, int]], device=None) -> None:
    """Caps the bytes glassgrad may hold on a device ("2GB", "512MiB", an int, or None to lift it).
    Going over raises OutOfMemoryError naming the request and the limit."""
    nbytes = 0 if limit is None else (_C.parse_bytes(limit) if isinstance(limit, str) else int(limit))
    _C.set_memory_limit(_device.normalize(device), nbytes)


class allocation_log:
    """Records every allocation and free on a device (bytes, buffer name, device):

        with glassgrad.allocation_log() as log:
            ...
        for event in log.events: print(event)
    """

    def __init__(self, device=None):
        self.device = _device.normalize(device)
        self.events: List[dict] = []

    def __enter__(self):
        _C.take_allocation_log(self.device)
        _C.set_allocation_logging(self.device, True)
        return self

    def __exit__(self, *exc):
        self.events = list(_C.take_allocation_log(self.device))
        _C.set_allocation_logging(self.device, False)
