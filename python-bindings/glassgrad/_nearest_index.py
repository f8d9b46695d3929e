"""The source index of each output position of F.interpolate's 'nearest' and 'nearest-exact' modes,
in the float arithmetic of PyTorch's CPU kernels (UpSample.h, UpSampleKernel.cpp), which decides
the index where (i + 0.5) * n / out falls on an integer (18 -> 33: i = 27 takes 15 or 14):

- rule 'float32' / 'float64' (the generic kernel, in the input's opmath type: float64 for float64
  input, float32 otherwise): scale = 1 / scale_factor or n / out in that type; nearest takes
  floorf(scale * i), nearest-exact floorf(max(scale * (i + 0.5) - 0.5, 0) + 0.5), where
  scale * (i + 0.5) - 0.5 is rounded once (a fused multiply-add, as the x86 builds compute it);
- rule 'channels_last' (the kernel 2-d input takes when out_h + out_w <= 128 or its input is
  channels-last with C > 3, and 3-d channels-last input with C > 3): a float32 scale, i itself
  when out == n, i >> 1 when out == 2 n (nearest), else floorf(i * scale), or for nearest-exact
  floorf((i + 0.5) * scale) with (i + 0.5) * scale in double;

floorf rounds its argument to float32 first; the index is capped at n - 1.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

import numpy as np

from ._layouts import channels_last, channels_last_3d


def _scale(n: int, out: int, scale_factor: Optional[float], kind) -> float:
    """PyTorch's compute_scales_value in the given float type."""
    if scale_factor is not None and scale_factor > 0:
        return kind(1.0 / scale_factor)
    return kind(kind(n) / kind(out))


def _floorf(value) -> int:
    return int(math.floor(np.float32(value)))


def nearest_source(i: int, n: int, out: int, exact: bool, scale_factor: Optional[float], rule: str) -> int:
    """The input index output position i of an axis of n resized to out reads (see the module doc)."""
    if rule == "channels_last":
        if out == n:
            return i
        if out == 2 * n and not exact:
            return i >> 1
        scale = _scale(n, out, scale_factor, np.float32)
        index = _floorf((i + 0.5) * float(scale)) if exact else _floorf(np.float32(i) * scale)
        return min(index, n - 1)
    kind = np.float64 if rule == "float64" else np.float32
    scale = _scale(n, out, scale_factor, kind)
    if exact:
        # scale * (i + 0.5) - 0.5 rounded once (the kernels' fused multiply-add), then clamped at 0
        src = kind(float(Fraction(float(scale)) * (2 * i + 1) / 2 - Fraction(1, 2)))
        index = _floorf(float(max(src, kind(0.0))) + 0.5)
    else:
        index = _floorf(scale * kind(i))
    return min(index, n - 1)


def nearest_rule(input, out) -> str:
    """Which of PyTorch's kernels (rule above) resizes input to the spatial sizes out."""
    k, channels = input.ndim - 2, input.shape[1]
    if k == 2 and (sum(out) <= 128 or (channels > 3 and input.is_contiguous(memory_format=channels_last))):
        return "channels_last"
    if k == 3 and channels > 3 and input.is_contiguous(memory_format=channels_last_3d):
        return "channels_last"
    return "float64" if input.dtype == "float64" else "float32"
