"""glassgrad.accelerator: torch.accelerator's names for the one accelerator glassgrad has, CUDA.

    device = glassgrad.accelerator.current_accelerator() if glassgrad.accelerator.is_available() \
        else glassgrad.device("cpu")
"""
from __future__ import annotations

from typing import Optional

from . import _C, _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize", "device_index", "current_device_idx", "set_device_idx", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "memory_stats", "get_memory_info"]

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


# PyTorch's earlier spellings of the two above.
current_device_idx = current_device_index
set_device_idx = set_device_index


class device_index:  # torch.accelerator.device_index's spelling
    """`with glassgrad.accelerator.device_index(i):` makes GPU i the current one inside the block
    and restores the previous one after it; None changes nothing."""

    def __init__(self, device: Optional[int], /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info) -> None:
        if self.idx is not None:
            set_device_index(self.prev_idx)


# ---- memory of the current GPU (glassgrad.cuda's accounting; a DeviceError without a GPU) ----
def _cuda(device):
    from . import cuda
    return cuda, _index(device, "memory")


def empty_cache() -> None:
    """Returns the memory the caching allocator keeps on the current GPU to the driver."""
    cuda, index = _cuda(None)
    cuda.empty_cache(index)


def memory_stats(device_index=None, /) -> dict:
    """glassgrad.cuda.memory_stats, with PyTorch's names for the byte counts beside glassgrad's ({}
    without a usable GPU, so the byte counts below are 0, as PyTorch's)."""
    cuda, index = _cuda(device_index)
    stats = cuda.memory_stats(index)
    if not stats:
        return {}
    stats.update({"allocated_bytes.all.current": stats["current"], "allocated_bytes.all.peak": stats["peak"],
                  "reserved_bytes.all.current": stats["current"] + stats["cached"]})
    return stats


def memory_allocated(device_index=None, /) -> int:
    """Bytes held by tensors on the GPU now."""
    return int(memory_stats(device_index).get("allocated_bytes.all.current", 0))


def max_memory_allocated(device_index=None, /) -> int:
    """The most bytes tensors held on the GPU at once."""
    return int(memory_stats(device_index).get("allocated_bytes.all.peak", 0))


def memory_reserved(device_index=None, /) -> int:
    """Bytes glassgrad holds on the GPU: tensors' and the allocator's cache."""
    return int(memory_stats(device_index).get("reserved_bytes.all.current", 0))


def get_memory_info(device_index=None, /):
    """(free, total) bytes on the GPU as the driver sees them."""
    cuda, index = _cuda(device_index)
    return cuda.mem_get_info(index)
