"""The NumPy arrays torch.tensor, torch.as_tensor and torch.from_numpy refuse, as PyTorch's
(docs/porting.md, "Creating tensors from data"): one with a negative stride (a reversed view:
a[::-1], np.flip) and one whose byte order is not the machine's (dtype '>f4' here), each a
ValueError whose first line is PyTorch's sentence. Only a script's own call is refused:
glassgrad's calls (a DataLoader's collate, the vision transforms) convert such arrays, as every
array is copied into glassgrad's memory anyway."""
from __future__ import annotations

import sys

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
