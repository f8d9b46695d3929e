"""Tensors of a data pipeline that hold their NumPy array until first used as a tensor. A pipeline
makes one tensor per sample (ToTensor, Normalize) and the collate function then only wants the
samples' arrays back to stack them; such a tensor that nothing else touched hands default_collate
its array directly, so a sample costs no runtime allocation, copy or graph leaf. Any other use (an
op, .numpy(), .shape, an in-place update, printing) makes its runtime value first (Tensor's
__getattr__ for `_h`, _tensor.py): from then on it is an ordinary tensor, and the array is never
read again. It is a plain glassgrad Tensor (type(ToTensor()(img)) is Tensor, as in PyTorch).

Invariant: the array is private to the tensor (copied in, never handed out but to collate, which
only reads it) while the tensor has no handle."""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from ...._dtypes import DTYPES, dtype
from ...._tensor import _ARRAY_SLOT, _HANDLE_SLOT, Tensor

# NumPy dtype -> glassgrad dtype, filled as dtypes are seen: np.dtype.name is computed in Python on
# every read, and default_collate reads each sample's dtype (64 reads a batch of 64).
_DTYPE_OF: Dict[np.dtype, dtype] = {}


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
    return t


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
