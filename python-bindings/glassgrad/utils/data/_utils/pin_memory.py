"""How the DataLoader makes tensors of collated arrays, and pin_memory: CPU tensors copied into
page-locked (pinned) host memory, from which a copy to the GPU runs asynchronously (the host does
not wait for it, and the copy overlaps the GPU's work) and faster than from ordinary memory.

Pinned memory needs the CUDA driver; without a usable GPU the DataLoader warns once and keeps
ordinary memory, as PyTorch does. The runtime keeps freed pinned blocks for reuse and hands a
block out again only after the copies that read it have finished (core-runtime's
pinned_memory.h)."""
from __future__ import annotations

import collections.abc
import copy
import threading
from typing import Optional

import numpy as np

from .... import _C, _tensor
from ...._tensor import Tensor

__all__ = ["pin_memory", "new_tensor", "pinned_tensor", "is_pinned", "pinning"]

_state = threading.local()


class pinning:
    """`with pinning(on):` tensors that new_tensor makes on this thread inside the block are
    pinned when `on`. (A class rather than a generator: the DataLoader enters it once a batch.)"""

    __slots__ = ("_on", "_old")

    def __init__(self, on: bool) -> None:
        self._on = bool(on)

    def __enter__(self) -> None:
        self._old = getattr(_state, "pin", False)
        _state.pin = self._on

    def __exit__(self, *exc) -> None:
        _state.pin = self._old


def _leaf(raw) -> Tensor:
    return _tensor._wrap(_C.lazy_leaf(raw, "input", False, ""))


new_leaf = _leaf  # a batch tensor of a runtime tensor made elsewhere (transport.py's slot leases)


def new_tensor(array: np.ndarray, device=None, owned: bool = False) -> Tensor:
    """A tensor holding the values of `array`: on `device` when it is a GPU, else on the CPU (in
    pinned memory inside a `pinning(True)` block). With owned=True (an array nobody else holds,
    e.g. a fresh np.stack) an ordinary CPU result keeps the array itself instead of copying it,
    until it is used as a tensor (array_tensor.host_tensor)."""
    if device is not None and str(device) != "cpu":
        return _leaf(_C.Tensor.from_numpy(array, str(device), "batch"))
    pin = bool(getattr(_state, "pin", False))
    if owned and not pin and array.flags.c_contiguous and array.dtype.isnative:
        from .array_tensor import host_tensor
        return host_tensor(array)
    return _leaf(_C.Tensor.from_numpy(array, "cpu", "batch", pin))


def is_pinned(t: Tensor) -> bool:
    """Whether `t` is a CPU tensor in page-locked memory."""
    return str(t.device) == "cpu" and bool(t._raw().is_pinned())


def pinned_tensor(t: Tensor) -> Tensor:
    """A copy of the CPU tensor `t` in pinned memory (`t` itself when it is pinned already)."""
    if str(t.device) != "cpu":
        raise _C.DeviceError(f"pin_memory: only CPU tensors can be pinned, this one of shape {tuple(t.shape)} is on "
                             f"{t.device}\n  fix: pin the CPU tensor before copying it to the GPU, or use this one "
                             f"where it is")
    if is_pinned(t):
        return t
    return _leaf(_C.Tensor.from_numpy(t.numpy(force=True), "cpu", "batch", True))


def pin_memory(data, device: Optional[str] = None):
    """`data` with every CPU tensor in it (in mappings, namedtuples, tuples and sequences, and
    objects with a pin_memory() method) copied into pinned memory, as
    torch.utils.data._utils.pin_memory.pin_memory."""
    if isinstance(data, Tensor):
        return pinned_tensor(data) if str(data.device) == "cpu" else data
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: pin_memory(v, device) for k, v in data.items()})
                return clone
            return type(data)({k: pin_memory(v, device) for k, v in data.items()})
        except TypeError:
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(v, device) for v in data))
    if isinstance(data, tuple):
        return [pin_memory(v, device) for v in data]  # backwards compatibility, as PyTorch
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, v in enumerate(data):
                    clone[i] = pin_memory(v, device)
                return clone
            return type(data)([pin_memory(v, device) for v in data])
        except TypeError:
            return [pin_memory(v, device) for v in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
