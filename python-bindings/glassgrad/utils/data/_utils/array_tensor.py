"""Tensors of a data pipeline that hold their NumPy array until first used as a tensor. A pipeline
makes one tensor per sample (ToTensor, Normalize) and the collate function then only wants the
samples' arrays back to stack them; such a tensor that nothing else touched hands default_collate
its array directly, so a sample costs no runtime allocation, copy or graph leaf. Any other use (an
op, .numpy(), .shape, an in-place update, printing) makes its runtime value first (the class's
__getattr__ below, for `_h`): from then on it is an ordinary tensor, and the array is never read
again. It is a plain glassgrad Tensor (type(ToTensor()(img)) is Tensor, as in PyTorch).

Invariants: the array is private to the tensor (copied in, never handed out but to collate, which
only reads it) while the tensor has no handle. Tensor has a __getattr__ exactly while some live
tensor holds its array (_HELD, changed under _LOCK): with a __getattr__ on the class CPython runs
it after every failed lookup, and its interpreter specializes no attribute read of any Tensor
(`x._h`, a method), each about 360 instructions instead of about 80 (docs/performance.md, issue
34). A loop over resident tensors, or tensors made from NumPy, never has one; a DataLoader loop
has one from the first sample of a batch until the batch's first use."""
from __future__ import annotations

import threading
import weakref
from typing import Dict, Optional

import numpy as np

from .... import _C
from ...._dtypes import DTYPES, dtype
from ...._tensor import _ARRAY_SLOT, _HANDLE_SLOT, Tensor

# NumPy dtype -> glassgrad dtype, filled as dtypes are seen: np.dtype.name is computed in Python on
# every read, and default_collate reads each sample's dtype (64 reads a batch of 64).
_DTYPE_OF: Dict[np.dtype, dtype] = {}

# id(tensor) -> a weak reference to each tensor that holds its array, whose callback drops the
# entry when the tensor is collected untouched. Reentrant: a collection inside hold() or _drop()
# may run a callback on the same thread.
_HELD: Dict[int, weakref.ref] = {}
_LOCK = threading.RLock()


def _dtype_of(np_dtype: np.dtype) -> dtype:
    found = _DTYPE_OF.get(np_dtype)
    if found is None:
        found = _DTYPE_OF[np_dtype] = DTYPES[np_dtype.name]  # an unknown name raises KeyError
    return found


def host_tensor(array: np.ndarray) -> Tensor:
    """A CPU tensor of `array`'s values that keeps the array until used (the array must be the
    tensor's own: C-contiguous, native byte order, held by nobody else)."""
    t = Tensor.__new__(Tensor)
    _ARRAY_SLOT.__set__(t, array)
    key = id(t)
    with _LOCK:
        _HELD[key] = weakref.ref(t, _dropper(key))
        if "__getattr__" not in Tensor.__dict__:  # after the entry: a callback above may have removed it
            setattr(Tensor, "__getattr__", _missing_attribute)  # (setattr: mypy would see every name defined)
    return t


def _dropper(key: int):
    """The callback that forgets tensor `key` when it is collected still holding its array."""
    def drop(_ref) -> None:
        _drop(key)
    return drop


def _drop(key: int) -> None:
    with _LOCK:
        _HELD.pop(key, None)
        if not _HELD and "__getattr__" in Tensor.__dict__:
            delattr(Tensor, "__getattr__")


def _missing_attribute(self: Tensor, name: str):
    """Tensor.__getattr__ while some tensor holds its array, reached only when normal lookup
    fails: makes the handle of a tensor that still holds its array (any use of `_h` is a use as a
    tensor); every other missing name is an AttributeError as usual."""
    if name == "_h":
        return _make_handle(self)
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'", name=name, obj=self)


def _make_handle(t: Tensor):
    """The runtime leaf of a tensor that held a NumPy array: made once, after which the array is
    dropped and never read again."""
    try:
        array = _ARRAY_SLOT.__get__(t, Tensor)
    except AttributeError:
        raise AttributeError(f"'{type(t).__name__}' object has no attribute '_h'", name="_h", obj=t) from None
    handle = _C.lazy_leaf(_C.Tensor.from_numpy(array, "cpu", "sample"), "input", False, "")
    _HANDLE_SLOT.__set__(t, handle)
    _ARRAY_SLOT.__delete__(t)
    _drop(id(t))
    return handle


def untouched_array(t: Tensor) -> Optional[np.ndarray]:
    """The array of a host_tensor never used as a tensor; else None."""
    try:
        _HANDLE_SLOT.__get__(t, Tensor)
        return None
    except AttributeError:
        pass
    try:
        return _ARRAY_SLOT.__get__(t, Tensor)
    except AttributeError:
        return None


def host_array(t: Tensor) -> np.ndarray:
    """The values of tensor t as a NumPy array, without a copy for an untouched host_tensor."""
    a = untouched_array(t)
    return t.numpy(force=True) if a is None else a


def sample_device_and_dtype(t: Tensor):
    """(device string, dtype) of t, read from an untouched host_tensor's array without making
    its runtime value."""
    a = untouched_array(t)
    if a is None:
        return str(t.device), t.dtype
    return "cpu", _dtype_of(a.dtype)
