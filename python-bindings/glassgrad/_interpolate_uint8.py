"""F.interpolate of uint8 images as PyTorch's CPU kernels compute them. The nearest modes gather
(exact). Bilinear and bicubic, with or without antialias, follow UpSampleKernel.cpp's separable
uint8 path (Pillow's integer arithmetic):

- one 1-d pass per resized axis, the last (W) first, then H; an axis whose size stays is skipped,
  and each pass rounds and clamps to uint8 before the next;
- per axis, the weights of each output position are computed in double, as the antialias filter
  (triangle, Keys with A = -0.5) or, without antialias, as the 2 (linear) or 4 (Keys, A = -0.75)
  taps at floor(src) whose out-of-range taps are added into the nearest edge tap;
- they become integers w * 2**p rounded half away from zero, where p is the largest precision
  (at most 22) whose biggest weight still fits an int16 when doubled;
- each output is (sum(w_int * x) + 2**(p - 1)) >> p, clamped to [0, 255].

The sums are integers below 2**53, so float64 matrix products compute them exactly on any device.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional

import numpy as np

from . import _C, _math, _shapes
from ._interpolate import _antialias_row, _cubic, _source_scale, resampling_matrix
from ._nearest_index import nearest_rule
from ._tensor import Tensor, _op, tensor


def _filter(mode: str, antialias: bool):
    if mode == "bilinear":
        return lambda x: max(0.0, 1.0 - abs(x))
    a = -0.5 if antialias else -0.75
    return lambda x: _cubic(x, a)


def _taps(i: int, n: int, scale: float, mode: str, align_corners: bool):
    """PyTorch's _compute_indices_min_size_weights (antialias=False): (first index, weights), the
    weights accumulated into the edge taps, and the running maximum of those sums."""
    taps = 2 if mode == "bilinear" else 4
    if align_corners:
        src = scale * i
    else:
        src = scale * (i + 0.5) - 0.5
        if taps == 2 and src < 0:
            src = 0.0
    index = min(int(math.floor(np.float32(src))), n - 1)   # floorf: the index rounds through float
    lam = min(max(src - index, 0.0), 1.0)
    support = taps // 2
    low, high = index - support + 1, index + support + 1
    first = max(low, 0)
    size = min(max(min(high, n) - first, 0), taps)
    w = [0.0] * taps
    f = _filter(mode, False)
    peak, at = 0.0, 0
    for j in range(taps):
        value = f(float(j + 1 - support) - lam)
        if low + j <= 0:
            at = 0
        elif low + j >= n - 1:
            at = size - 1
        w[at] += value
        peak = max(peak, w[at])
        at += 1
    return first, w[:size], peak


@lru_cache(maxsize=256)
def int16_weights(n: int, out: int, mode: str, align_corners: bool, scale_factor: Optional[float],
                  antialias: bool):
    """The (out, n) integer weight matrix of one axis and its precision p (see the module doc)."""
    scale = _source_scale(n, out, align_corners, scale_factor)
    dense = np.zeros((out, n))
    peak = 0.0
    for i in range(out):
        if antialias:
            _antialias_row(dense, i, n, scale, mode)
            peak = max(peak, dense[i].max())
        else:
            first, w, row_peak = _taps(i, n, scale, mode, align_corners)
            dense[i, first:first + len(w)] = w
            peak = max(peak, row_peak)
    precision = 0
    while precision < 22 and int(0.5 + peak * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    v: np.ndarray = dense * (1 << precision)
    return np.trunc(np.where(v < 0, v - 0.5, v + 0.5)), precision


def _pass(x: Tensor, axis: int, weights: np.ndarray, precision: int) -> Tensor:
    """One axis of x (float64 holding uint8 values) resampled by the integer weights, rounded and
    clamped as the uint8 kernel does."""
    w = tensor(np.ascontiguousarray(weights.T), dtype="float64", device=x.device)
    total = _op("AddScalar", [_op("MatMul", [_shapes.movedim(x, axis, -1), w])], {"value": float(1 << (precision - 1))})
    shifted = _math.floor(_op("MulScalar", [total], {"value": 1.0 / (1 << precision)}))   # a power of 2: exact
    return _shapes.movedim(_math.clamp(shifted, 0.0, 255.0), -1, axis)


def _nearest(input: Tensor, out, mode: str, factors) -> Tensor:
    """Nearest modes: each axis gathered at the float modes' source indices (exact for uint8)."""
    x, rule = input, nearest_rule(input, out)
    for axis, (n, o, f) in enumerate(zip(input.shape[2:], out, factors), start=2):
        if n != o:
            index = resampling_matrix(n, o, mode, False, f, nearest=rule).argmax(axis=1)
            x = x.index_select(axis, tensor(index, dtype="int64", device=x.device))
    return x if x is not input else input.clone()


def resample_uint8(input: Tensor, out, mode: str, align_corners: bool, factors, antialias: bool) -> Tensor:
    """input (N, C, ...) of an integer or bool dtype resampled to out as PyTorch's CPU kernels do:
    uint8 with the nearest modes, bilinear and bicubic; anything else refused as PyTorch refuses it
    (its NotImplementedError)."""
    if input.dtype != "uint8" or mode not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise _C.UnsupportedError(
            f"interpolate: mode '{mode}' is not implemented for {input.dtype} input {list(input.shape)} (PyTorch "
            f"resamples uint8 with 'nearest', 'nearest-exact', 'bilinear' and 'bicubic' only)\n"
            f"  fix: convert first, e.g. F.interpolate(x.float(), ...), and back with .round().to(x.dtype)")
    if mode.startswith("nearest"):
        return _nearest(input, out, mode, factors)
    spatial = list(input.shape[2:])
    if spatial == list(out):
        return input.clone()
    x = input.double()
    for axis in (3, 2):   # W first, then H (upsample_separable_Nd_kernel_impl's order)
        n, o, f = spatial[axis - 2], out[axis - 2], factors[axis - 2]
        if n != o:
            weights, precision = int16_weights(n, o, mode, align_corners, f, antialias)
            x = _pass(x, axis, weights, precision)
    return x.to("uint8")
