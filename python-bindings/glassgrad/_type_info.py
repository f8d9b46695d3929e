"""glassgrad.finfo and glassgrad.iinfo: the numerical limits of a floating or an integer dtype
(PyTorch's torch.finfo / torch.iinfo, the same attributes and refusals). bfloat16's are written
out: NumPy has no bfloat16 (8 exponent bits like float32, 8 significant bits)."""
from __future__ import annotations

import math

import numpy as np

from . import _dtypes
from ._args import InvalidArgumentTypeError

_BFLOAT16 = {"bits": 16, "eps": 2.0 ** -7, "max": float.fromhex("0x1.fep127"), "tiny": 2.0 ** -126}


class finfo:  # torch.finfo's spelling
    """Limits of a floating dtype: bits, eps, max, min, tiny (= smallest_normal), resolution, dtype."""

    def __init__(self, type=None):  # PyTorch's parameter name
        dt = _dtypes.DEFAULT_FLOAT if type is None else _dtypes.to_dtype(type, "finfo")
        if not dt.is_floating_point:
            raise InvalidArgumentTypeError(f"glassgrad.finfo() requires a floating point input type, got {dt}\n"
                                           f"  fix: glassgrad.iinfo({dt!r}) for an integer type")
        if dt == "bfloat16":
            v = _BFLOAT16
        else:
            f = np.finfo(_dtypes.plain(dt))
            v = {"bits": int(f.bits), "eps": float(f.eps), "max": float(f.max), "tiny": float(f.tiny)}
        self.dtype = _dtypes.plain(dt)
        self.bits, self.eps, self.max, self.tiny = v["bits"], v["eps"], v["max"], v["tiny"]
        # 10^-(decimal digits eps resolves), as a Python float: 0.001 for float16, 0.01 for bfloat16
        self.min, self.smallest_normal = -self.max, self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # torch.iinfo's spelling
    """Limits of an integer dtype: bits, min, max, dtype."""

    def __init__(self, type):  # PyTorch's parameter name
        dt = _dtypes.to_dtype(type, "iinfo")
        if _dtypes.category(dt) != 1:
            raise InvalidArgumentTypeError(f"glassgrad.iinfo() requires an integer input type, got {dt}\n"
                                           f"  fix: glassgrad.finfo({dt!r}) for a floating type")
        i = np.iinfo(_dtypes.plain(dt))
        self.dtype, self.bits, self.min, self.max = _dtypes.plain(dt), int(i.bits), int(i.min), int(i.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # printed as PyTorch prints it


__all__ = ["finfo", "iinfo"]
