"""torch.cuda.device, device_of and is_initialized (docs/cuda.md, "torch.cuda names").

`with glassgrad.cuda.device(i):` makes GPU i the current device inside the block and restores
the one before after it; device(-1) and device_of(a CPU tensor) change nothing, GPU or not (as
PyTorch's, so code written for both runs on a CPU machine); entering another index without a
usable GPU raises DeviceError (a RuntimeError, as PyTorch's) with the reason."""
from __future__ import annotations

from . import cuda as _cuda


def _index_of(device):
    """PyTorch's optional device index: an int as it is, 'cuda:i' and device('cuda', i) their i,
    'cuda' and None None (the current device), anything else None; a non-CUDA device a ValueError."""
    from ._device import device as device_type
    if isinstance(device, bool):
        return None
    if isinstance(device, int):
        return device
    if isinstance(device, str):  # glassgrad.device is a str
        try:
            d = device if isinstance(device, device_type) else device_type(device)
        except Exception:
            d = None
        if d is None or d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}\n  fix: glassgrad.cuda.device(i) for "
                             f"GPU i, or leave the block out on the CPU")
        return d.index
    return None


class device:
    """torch.cuda.device(device): a context manager that makes device the current GPU in its block
    (an index, 'cuda:i', a glassgrad.device or None for the current one; -1 changes nothing)."""

    __module__ = "glassgrad.cuda"  # its repr names glassgrad.cuda.device, as PyTorch's torch.cuda.device

    def __init__(self, device):
        self.idx = _index_of(device)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx == -1:
            return
        self.prev_idx = _cuda.current_device()
        index = self.prev_idx if self.idx is None else self.idx
        _cuda.device_info(index)  # a DeviceError with the reason when that GPU cannot be used
        _cuda.set_device(index)

    def __exit__(self, *exc) -> None:
        if self.idx != -1:
            _cuda.set_device(self.prev_idx)


class device_of(device):
    """torch.cuda.device_of(obj): device(obj's GPU) for a CUDA tensor, a block that changes nothing
    for anything else."""

    __module__ = "glassgrad.cuda"

    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


def is_initialized() -> bool:
    """torch.cuda.is_initialized: glassgrad initializes the driver on its first query, so this is
    True when that succeeded (a usable GPU), False otherwise (no GPU, no driver, no kernels)."""
    return _cuda.is_available()
