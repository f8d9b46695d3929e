"""torch.testing.make_tensor: a tensor of random values for tests, with PyTorch's ranges and
checks, drawn from glassgrad's generator (glassgrad.manual_seed makes it repeatable)."""
from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence, Union

import numpy as np

from . import _dtypes
from ._random import generator
from ._tensor import Tensor, tensor

# PyTorch's default ranges: floats [-9, 9), signed integers [-9, 10), uint8 [0, 10).
_FLOAT_RANGE = (-9.0, 9.0)
_INT_RANGE = (-9, 10)


def _shape(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def make_tensor(*shape: Union[int, Sequence[int]], dtype, device, low: Optional[float] = None,
                high: Optional[float] = None, requires_grad: bool = False, noncontiguous: bool = False,
                exclude_zero: bool = False, memory_format=None) -> Tensor:
    """Random values of `dtype` on `device`, uniform in [low, high): floats default to [-9, 9),
    integers to [-9, 10) (uint8 [0, 10)), and a bound outside the dtype's range is clamped to it;
    bool is True or False at random. exclude_zero replaces zeros with the dtype's smallest
    positive value (1 for integers, the float's tiny). noncontiguous returns a strided view (every
    other element of a wider tensor); memory_format is accepted and changes nothing."""
    dims = _shape(shape)
    name = _dtypes.plain(dtype) if not isinstance(dtype, str) else dtype
    is_float = name.startswith(("float", "bfloat"))
    if requires_grad and not is_float:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype=glassgrad.{name}")
    for bound in (low, high):
        if bound is not None and isinstance(bound, float) and math.isnan(bound):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    rng = generator()
    count = int(np.prod(dims, dtype=np.int64)) * (2 if noncontiguous else 1)
    if name == "bool":
        values = rng.integers(0, 2, count).astype(bool)
    elif is_float:
        info = np.finfo(np.float32 if name == "bfloat16" else np.dtype(name))
        lo = max(float(info.min), _FLOAT_RANGE[0] if low is None else float(low))
        hi = min(float(info.max), _FLOAT_RANGE[1] if high is None else float(high))
        if lo > hi:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        if lo == hi:
            warnings.warn("Passing `low==high` to `glassgrad.testing.make_tensor` for floating types is deprecated "
                          "(as in PyTorch); use `glassgrad.full(...)` instead.", FutureWarning, stacklevel=2)
        values = rng.uniform(lo, hi, count)
        if exclude_zero:
            values[values == 0] = float(info.tiny)
    else:
        iinfo = np.iinfo(np.dtype(name))
        default = (0, 10) if name == "uint8" else _INT_RANGE
        lo = max(int(iinfo.min), default[0] if low is None else math.ceil(low))
        hi = min(int(iinfo.max) + 1, default[1] if high is None else math.ceil(high))
        if lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        values = rng.integers(lo, hi, count)
        if exclude_zero:
            values[values == 0] = 1
    if noncontiguous and count > 1:
        wide = tensor(values.reshape(dims[:-1] + (dims[-1] * 2,)) if dims else values, dtype=name, device=device)
        out = wide[..., ::2]
    else:
        out = tensor(values[:count // (2 if noncontiguous else 1)].reshape(dims), dtype=name, device=device)
    if requires_grad:
        out = out.detach().requires_grad_(True) if noncontiguous and count > 1 else out.requires_grad_(True)
    return out
