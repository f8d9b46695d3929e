"""The NumPy arrays torch.tensor, torch.as_tensor and torch.from_numpy refuse, as PyTorch's
(docs/porting.md, "Creating tensors from data"): one with a negative stride (a reversed view:
a[::-1], np.flip) and one whose byte order is not the machine's (dtype '>f4' here), each a
ValueError whose first line is PyTorch's sentence; only a script's own call is refused:
glassgrad's calls (a DataLoader's collate, the vision transforms) convert such arrays, as every
array is copied into glassgrad's memory anyway. An array of a type PyTorch holds no dtype for
(Python objects, strings, dates, long double) is PyTorch's TypeError, whoever converts it."""
from __future__ import annotations

import sys
import warnings

import numpy as np

from . import _C
from ._trace import _PACKAGE_DIR


def check(arr: np.ndarray, who: str) -> None:
    """Raises PyTorch's ValueError for arr, given to `who` (glassgrad.tensor, ...) by the caller of
    the function calling this one, unless that caller is glassgrad's own code."""
    negative = min(arr.strides, default=0) < 0
    if (not negative and arr.dtype.isnative) or sys._getframe(2).f_code.co_filename.startswith(_PACKAGE_DIR):
        return
    if negative:
        raise _C.InvalidArgumentError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            f"array.copy().) \n  {who}: the array of shape {list(arr.shape)} has strides {list(arr.strides)} (bytes; "
            f"a reversed view such as a[::-1] or np.flip(a)), as PyTorch refuses it\n  fix: {who}(a.copy())")
    order = "big" if arr.dtype.byteorder == ">" else "little"
    raise _C.InvalidArgumentError(
        "given numpy array has byte order different from the native byte order. Conversion between byte orders is "
        f"currently not supported.\n  {who}: the array's dtype {arr.dtype.str} is {order}-endian, this machine "
        f"{sys.byteorder}-endian, as PyTorch refuses it\n  fix: {who}(a.astype(a.dtype.newbyteorder('=')))")


_warned_not_writable = False


def warn_if_not_writable(arr: np.ndarray) -> None:
    """PyTorch's UserWarning, once a program as PyTorch's, for a read-only array given to
    from_numpy, as_tensor or a legacy constructor (torch.Tensor(a), torch.FloatTensor(a)), whose
    tensor shares the array's memory in PyTorch (glassgrad copies it, so a write to the tensor
    never reaches the array; docs/porting.md, "Creating tensors from data")."""
    global _warned_not_writable
    if arr.flags.writeable or _warned_not_writable:
        return
    _warned_not_writable = True
    from ._trace import user_stacklevel
    warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This "
                  "means writing to this tensor will result in undefined behavior. You may want to copy the array to "
                  "protect its data or make it writable before converting it to a tensor. This type of warning will "
                  "be suppressed for the rest of this program.", UserWarning, stacklevel=user_stacklevel())


# The kinds of NumPy array PyTorch converts to no dtype: Python objects, str, bytes, records, dates, times
REFUSED_KINDS = "OUSVMm"
_PYTORCH_TYPES = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                  "uint16, uint8, and bool")


def refuse_dtype(arr: np.ndarray, who: str) -> None:
    """PyTorch's TypeError for an array of a type it converts to no dtype (REFUSED_KINDS, or a
    float wider than float64): its sentence first, then glassgrad's types and the fix; an object
    array names its first item, with the fix for pandas frames of mixed columns (converting each
    object would hide strings or NaN until a loss is nan)."""
    kind = arr.dtype.type  # named as PyTorch names it: numpy.object_, numpy.str_
    first = f"can't convert np.ndarray of type {kind.__module__}.{kind.__qualname__}. The only supported types are: " \
            f"{_PYTORCH_TYPES}."
    held = "glassgrad holds bool, uint8, int8, int16, int32, int64, float16, float32 and float64"
    if arr.dtype.kind == "O" and arr.size:
        item: object = arr.flat[0]
        raise _C.DTypeError(f"{first}\n  {who}: the array of shape {list(arr.shape)} (dtype object) holds Python objects, e.g. "
                            f"{item!r} of type {type(item).__name__}, as PyTorch refuses them whatever dtype is asked "
                            f"for; {held}\n  fix: make the values numbers first: arr.astype(np.float32) (pandas: "
                            f"df.astype(float) or pd.get_dummies(..., dtype=float) before .values)")
    raise _C.DTypeError(f"{first}\n  {who}: the array of shape {list(arr.shape)} is of dtype {arr.dtype}, as PyTorch "
                        f"refuses it; {held}\n  fix: convert it first, e.g. arr.astype(np.float32)")
