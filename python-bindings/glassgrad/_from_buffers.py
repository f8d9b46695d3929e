"""torch.asarray and torch.frombuffer: tensors from objects that hold data (a tensor, a NumPy
array, anything with the buffer protocol, nested sequences, a number). glassgrad's tensors live in
its own memory (docs/porting.md, from_numpy), so an array or a buffer is copied: the memory
sharing PyTorch gives (asarray(array), frombuffer(buffer)) is not there, and copy=False, which
asks for it, raises instead of copying silently."""
from __future__ import annotations

import numpy as np

from . import _args, _dtypes
from ._factories import _np_dtype
from ._tensor import Tensor, tensor

__all__ = ["asarray", "frombuffer"]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """torch.asarray: a tensor obj itself when it is one of that dtype and device (and copy is not
    True), else obj converted (a copy); an object with the buffer protocol has its bytes read as
    dtype (the default floating type unless given), as frombuffer. A tensor that must change dtype or device with copy=False,
    and any other object with copy=False, raise ValueError."""
    requires_grad = _args.flag(bool(requires_grad), "requires_grad", "asarray")
    if isinstance(obj, Tensor):
        want_dtype = _dtypes.to_dtype(dtype, "asarray") if dtype is not None else obj.dtype
        same = want_dtype == obj.dtype and (device is None or str(obj.device) == str(_normalized(device)))
        if copy is False and not same:
            raise ValueError(f"can't alias tensor from device '{obj.device}' and dtype {obj.dtype} as dtype "
                             f"{want_dtype} on device '{device or obj.device}'\n  asarray: copy=False asks for "
                             f"no copy\n  fix: copy=None (copies only when needed)")
        out = obj if same else obj.to(device=device, dtype=want_dtype)
        if copy:
            out = out.clone()
        return out.requires_grad_(True) if requires_grad and not out.requires_grad else out
    if copy is False:
        raise ValueError(f"asarray: glassgrad copies a {type(obj).__name__} into its own memory (its tensors never "
                         f"share NumPy's or a buffer's), so copy=False cannot be honoured\n  fix: copy=None")
    if not isinstance(obj, (np.ndarray, list, tuple, int, float, bool, complex, np.generic)):
        try:
            memoryview(obj)
        except TypeError:
            obj = np.asarray(obj)
        else:  # the buffer protocol (bytes, array.array, ...): its bytes read as dtype, as PyTorch's
            out = frombuffer(obj, dtype=dtype or _dtypes.get_default_dtype(), requires_grad=requires_grad)
            return out if device is None else out.to(device)
    return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def _normalized(device):
    from ._device import normalize
    return normalize(device)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """torch.frombuffer: the bytes of an object with the buffer protocol read as `count` elements
    of dtype (all that remain after `offset` bytes, when count is -1), as a 1-d CPU tensor (a copy,
    where PyTorch's shares the buffer). PyTorch's ValueErrors for sizes that do not fit."""
    dt = _np_dtype(dtype, None)
    view = memoryview(buffer).cast("B")
    count = _args.integer(count, "count", "frombuffer")
    offset = _args.integer(offset, "offset", "frombuffer")
    if count == 0 or (count < 0 and len(view) == 0):
        raise ValueError(f"both buffer length ({len(view)}) and count ({count}) must not be 0\n"
                         f"  fix: a non-empty buffer and count != 0")
    if not 0 <= offset < len(view):
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({len(view)} bytes) minus 1\n  fix: 0 <= offset < {len(view)}")
    if count < 0 and (len(view) - offset) % dt.itemsize:
        raise ValueError(f"buffer length ({len(view) - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({dt.itemsize})\n  fix: count= the number of whole elements")
    if count > 0 and offset + count * dt.itemsize > len(view):
        raise ValueError(f"requested buffer length ({count} * {dt.itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({len(view)} bytes)\n  fix: a smaller count")
    values = np.frombuffer(view, dtype=dt, count=count, offset=offset)
    return tensor(values.copy(), dtype=dtype, device="cpu", requires_grad=requires_grad)
