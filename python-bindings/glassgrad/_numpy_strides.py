"""A NumPy array's strides kept by the tensor a script makes from it, as PyTorch's (docs/porting.md,
"Creating tensors from data"): from_numpy and as_tensor share the array's memory there, strides
and all (a transpose's (1, 4), a slice's gaps (4, 2), a broadcast's 0), and torch.tensor copies
it laid out as clone() lays out such a tensor (a transpose's order kept, gaps closed). Here the
array's memory from its first element to its last is copied into a 1-d tensor (zeros after it to
whole blocks), which the result views with the array's strides (as_strided): from_numpy's and as_tensor's result, whose clone()
is torch.tensor's. Only arrays with positive strides (a negative one is refused before) that are
whole multiples of the element size, and not row-major already."""
from __future__ import annotations

from typing import Callable

import numpy as np


def applies(arr: np.ndarray) -> bool:
    """Whether arr's strides differ from a row-major copy's and can be kept (see the module doc)."""
    if arr.flags.c_contiguous or arr.size == 0:
        return False
    item = arr.itemsize
    return all(s >= 0 and s % item == 0 for s in arr.strides)


def viewed(arr: np.ndarray, make: Callable):
    """make(span) (a tensor of the 1-d array of arr's memory span, made row-major by the caller's
    conversion) viewed with arr's shape and strides; applies(arr) must hold."""
    item = arr.itemsize
    strides = [s // item for s in arr.strides]
    span = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides))
    # the elements between arr's first and last, inside arr's own buffer (every stride is positive),
    # then zeros to whole blocks of the outermost stride, which as_strided's view of blocks reads
    # (glassgrad/_strided.py: a view where the blocks fit the storage, else a copy)
    flat = np.zeros(max(span, max(n * s for n, s in zip(arr.shape, strides))), arr.dtype)
    flat[:span] = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(item,), writeable=False)
    return make(flat).as_strided(arr.shape, strides, 0)
