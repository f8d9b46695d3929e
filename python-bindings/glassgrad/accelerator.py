"""glassgrad.accelerator: torch.accelerator's names for the one accelerator glassgrad has, CUDA.

    device = glassgrad.accelerator.current_accelerator() if glassgrad.accelerator.is_available() \
        else glassgrad.device("cpu")
"""
from __future__ import annotations

from typing import Optional

from . import _C, _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize"]

_current_index = 0


def is_available() -> bool:
    """True when a CUDA GPU is usable (glassgrad.cuda.is_available())."""
    return _device.cuda_available()


def current_accelerator(check_available: bool = False) -> Optional[_device.device]:
    """device('cuda') when glassgrad was built with CUDA kernels, else None (as PyTorch: a build
    with an accelerator names it even on a machine without one); with check_available=True,
    None unless a GPU is usable too."""
    if check_available:
        return _device.device("cuda") if is_available() else None
    return _device.device("cuda") if (_C.cuda_built_with_kernels() or is_available()) else None


def device_count() -> int:
    """The number of usable GPUs (0 when CUDA cannot be used)."""
    return int(_C.cuda_device_count()) if is_available() else 0


def _index(device, what: str) -> int:
    if device is None:
        return _current_index
    if isinstance(device, int) and not isinstance(device, bool):
        index = device
    else:
        d = _device.device(device)
        if d.type != "cuda":
            raise ValueError(f"glassgrad.accelerator.{what}: {d!r} is not the current accelerator (cuda)\n"
                             f"  fix: pass 'cuda', 'cuda:<index>' or an index")
        index = _current_index if d.index is None else d.index
    if index < 0 or index >= max(device_count(), 1):
        raise _C.DeviceError(f"glassgrad.accelerator.{what}: device index {index} is out of range "
                             f"({device_count()} GPU(s) usable)")
    return index


def current_device_index() -> int:
    """The index of the current GPU (0 unless set_device_index changed it)."""
    return _current_index


def set_device_index(device, /) -> None:
    """Makes `device` (an index, 'cuda:<i>' or a device) the current GPU of this module."""
    global _current_index
    _current_index = _index(device, "set_device_index")


def synchronize(device=None, /) -> None:
    """Waits for every kernel and copy queued on the GPU (the current one by default)."""
    if not is_available():
        raise _C.DeviceError("glassgrad.accelerator.synchronize: no usable GPU\n"
                             f"  cause: {_C.cuda_why_unavailable()}")
    _C.cuda_synchronize(_index(device, "synchronize"))
