"""ArrayTensor: a CPU glassgrad Tensor that holds a NumPy array and makes its runtime value on
first use. A data pipeline makes one tensor per sample (ToTensor, Normalize) and the collate
function then only wants the samples' arrays back to stack them; an ArrayTensor that nothing else
touched hands default_collate its array directly, so a sample costs no runtime allocation, copy
or graph leaf. Any other use (an op, .numpy(), .shape through the handle, an in-place update)
makes the handle first: from then on it is an ordinary tensor, and the array is never read again.

Invariant: `_array` is private to the tensor (copied in, never handed out) while `_made` is None."""
from __future__ import annotations

from typing import Dict

import numpy as np

from .... import _C, _device
from ...._dtypes import DTYPES, dtype
from ...._size import Size
from ...._tensor import Tensor


# NumPy dtype -> glassgrad dtype, filled as dtypes are seen: np.dtype.name is computed in Python on
# every read, and default_collate reads each sample's dtype (64 reads a batch of 64).
_DTYPE_OF: Dict[np.dtype, dtype] = {}


def _dtype_of(np_dtype: np.dtype) -> dtype:
    found = _DTYPE_OF.get(np_dtype)
    if found is None:
        found = _DTYPE_OF[np_dtype] = DTYPES[np_dtype.name]  # an unknown name raises KeyError, as before
    return found


class ArrayTensor(Tensor):
    __slots__ = ("_array", "_made")

    def __init__(self, array: np.ndarray):  # the array must be the tensor's own
        self._array = array
        self._made = None

    @property
    def _h(self):
        if self._made is None:
            self._made = _C.lazy_leaf(_C.Tensor.from_numpy(self._array, "cpu", "sample"), "input", False, "")
            self._array = None
        return self._made

    @_h.setter
    def _h(self, handle) -> None:
        self._made = handle
        self._array = None

    # Metadata answers from the array while there is no handle (a tensor's metadata never computes).
    @property
    def shape(self):
        return Size(self._array.shape) if self._made is None else Tensor.shape.fget(self)

    @property
    def dtype(self):
        return _dtype_of(self._array.dtype) if self._made is None else Tensor.dtype.fget(self)

    @property
    def device(self):
        return _device.as_device("cpu") if self._made is None else Tensor.device.fget(self)

    def untouched_array(self):
        """The array, when the tensor was never used as a tensor; else None."""
        return self._array if self._made is None else None

    def __reduce__(self):
        return (ArrayTensor, (self.numpy(),))


def host_array(t: Tensor) -> np.ndarray:
    """The values of tensor t as a NumPy array, without a copy for an untouched ArrayTensor."""
    if type(t) is ArrayTensor:
        a = t.untouched_array()
        if a is not None:
            return a
    return t.numpy(force=True)
