"""Tensor.view(dtype): the tensor's bytes read as another dtype (PyTorch's Tensor.view(dtype)).

Same element size: the same shape. A smaller element size multiplies the last dim by the size
ratio, a larger one divides it; PyTorch's conditions for that hold here with its messages (a
0-d tensor cannot change element size, the last dim needs stride 1, and going to a larger
element the last size, the other strides and the storage offset must divide by the ratio).
The result never records gradients (PyTorch's view.dtype is not differentiable).

glassgrad's result is a tensor of its own holding those bytes, not a window on the same memory
(docs/porting.md: the NumPy bridge copies the same way): later writes to either tensor do not
show in the other.
"""
from __future__ import annotations

import numpy as np

from . import _C, _dtypes
from ._factories import _np_dtype
from ._inplace import _type_name


def _bits(x) -> np.ndarray:
    """x's values as a contiguous NumPy array holding x's exact bytes (bfloat16 as its uint16 bits)."""
    if _dtypes.plain(x.dtype) == "bfloat16":  # float32 holds every bfloat16 exactly, in its top 16 bits
        wide = np.ascontiguousarray(x.detach().float().cpu().numpy())
        return (wide.view(np.uint32) >> 16).astype(np.uint16)
    return np.ascontiguousarray(x.detach().cpu().numpy())


def _from_bits(bits: np.ndarray, dtype, device):
    from ._tensor import tensor
    name = _dtypes.plain(dtype)
    if name == "bfloat16":
        wide = (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return tensor(wide, device=device).to(dtype)
    values = bits.view(_np_dtype(dtype, None))
    if name == "bool":  # any nonzero byte reads as True, as PyTorch prints and compares it
        values = bits.view(np.uint8) != 0
    return tensor(values, dtype=dtype, device=device)


def _check_layout(x, new_size: int, old_size: int, src: str, dst: str) -> None:
    what = f"to view {src} as {dst} (different element sizes)"
    fix = "\n  fix: x.contiguous().view(dtype), or x.to(dtype) to convert the values"
    if x.dim() == 0:
        raise _C.TensorStateError(f"self.dim() cannot be 0 {what}{fix}")
    if x.stride(-1) != 1:
        raise _C.TensorStateError(f"self.stride(-1) must be 1 {what}, but got {x.stride(-1)}{fix}")
    if new_size > old_size:
        ratio = new_size // old_size
        if x.size(-1) % ratio:
            raise _C.TensorStateError(f"self.size(-1) must be divisible by {ratio} {what}, but got {x.size(-1)}"
                                      f"{fix}")
        if x.storage_offset() % ratio:
            raise _C.TensorStateError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                                      f"{x.storage_offset()}{fix}")
        for d in range(x.dim() - 1):
            if x.stride(d) % ratio:
                raise _C.TensorStateError(f"self.stride({d}) must be divisible by {ratio} {what}, but got "
                                          f"{x.stride(d)}{fix}")


def view_as_dtype(x, dtype):
    """x.view(dtype): x's bytes read as dtype (module docstring)."""
    dtype = _dtypes.to_dtype(dtype, "view")
    old_size, new_size = x.dtype.itemsize, dtype.itemsize
    src, dst = _type_name(x.dtype), _type_name(dtype)
    if new_size != old_size:
        _check_layout(x, new_size, old_size, src, dst)
    bits = _bits(x)
    shape = list(x.shape)
    if shape:
        shape[-1] = shape[-1] * old_size // new_size
    out = _from_bits(bits.reshape(-1).view(np.uint8), dtype, x.device)
    return out.reshape(shape)
