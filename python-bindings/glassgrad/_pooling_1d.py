"""1-D pooling and adaptive max pooling with torch.nn.functional's names, arguments and defaults:
max_pool1d and avg_pool1d run the 2-D pooling ops on a (N, C, 1, L) view of (N, C, L) input;
adaptive_avg_pool1d runs adaptive_avg_pool2d the same way; adaptive_max_pool1d/2d take the
maximum of each of PyTorch's bins (bin i of n over a size L spans floor(i L / n) to
ceil((i + 1) L / n)), one amax per bin."""
from __future__ import annotations

import math
from typing import List, Optional, Tuple

from . import _C, _args
from ._pooling import avg_pool2d, max_pool2d, max_pool_extras
from ._shapes import stack
from ._spatial import adaptive_avg_pool2d
from ._tensor import Tensor


def _one(value, name: str, where: str, minimum: int) -> int:
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise _C.InvalidArgumentError(f"{where}: {name} must be an int or a 1-tuple, got {value}\n"
                                          f"  fix: {name}={value[0] if value else 1}")
        value = value[0]
    return _args.integer(value, name, where, minimum=minimum)


def _as_2d(input: Tensor, where: str) -> Tuple[Tensor, bool]:
    if input.ndim not in (2, 3):
        raise _C.ShapeError(f"{where}: expected a 2-d (C, L) or 3-d (N, C, L) input, got {list(input.shape)}\n"
                            f"  fix: x.reshape(n, c, l)")
    batched = input.ndim == 3
    x = input if batched else input.unsqueeze(0)
    return x.unsqueeze(2), batched


def _back(y: Tensor, batched: bool) -> Tensor:
    y = y.squeeze(2)
    return y if batched else y.squeeze(0)


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor:
    """Max over windows of kernel_size along the last axis (PyTorch's F.max_pool1d); stride
    defaults to the kernel size."""
    where = "max_pool1d"
    k = _one(kernel_size, "kernel_size", where, 1)
    s = k if stride is None or stride == [] else _one(stride, "stride", where, 1)
    p = _one(padding, "padding", where, 0)
    max_pool_extras(where, _one(dilation, "dilation", where, 1), return_indices)
    x, batched = _as_2d(input, where)
    return _back(max_pool2d(x, (1, k), (1, s), (0, p), 1, ceil_mode), batched)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of kernel_size along the last axis (PyTorch's F.avg_pool1d)."""
    where = "avg_pool1d"
    k = _one(kernel_size, "kernel_size", where, 1)
    s = k if stride is None or stride == [] else _one(stride, "stride", where, 1)
    p = _one(padding, "padding", where, 0)
    x, batched = _as_2d(input, where)
    return _back(avg_pool2d(x, (1, k), (1, s), (0, p), ceil_mode, count_include_pad), batched)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Means over PyTorch's bins to output_size along the last axis (F.adaptive_avg_pool1d)."""
    n = _one(output_size, "output_size", "adaptive_avg_pool1d", 1)
    x, batched = _as_2d(input, "adaptive_avg_pool1d")
    return _back(adaptive_avg_pool2d(x, (1, n)), batched)


def _bins(size: int, n: int) -> List[Tuple[int, int]]:
    return [((i * size) // n, math.ceil((i + 1) * size / n)) for i in range(n)]


def _no_indices(where: str, return_indices) -> None:
    if _args.flag(return_indices, "return_indices", where):
        raise _C.UnsupportedError(f"{where}: return_indices=True is not supported: glassgrad returns the pooled "
                                  f"values only\n  fix: drop return_indices=True")


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False) -> Tensor:
    """Maxima over PyTorch's bins to output_size along the last axis (F.adaptive_max_pool1d)."""
    where = "adaptive_max_pool1d"
    _no_indices(where, return_indices)
    n = _one(output_size, "output_size", where, 1)
    if input.ndim not in (2, 3):
        raise _C.ShapeError(f"{where}: expected a 2-d (C, L) or 3-d (N, C, L) input, got {list(input.shape)}")
    return stack([input[..., a:b].amax(-1) for a, b in _bins(input.shape[-1], n)], -1)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False) -> Tensor:
    """Maxima over PyTorch's bins to output_size (an int or (H, W), None keeping that size) for
    (C, H, W) or (N, C, H, W) input (F.adaptive_max_pool2d)."""
    where = "adaptive_max_pool2d"
    _no_indices(where, return_indices)
    if input.ndim not in (3, 4):
        raise _C.ShapeError(f"{where}: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got {list(input.shape)}")
    h, w = input.shape[-2:]
    sizes: List[Optional[int]] = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * 2
    oh = h if sizes[0] is None else _args.integer(sizes[0], "output_size", where, minimum=1)
    ow = w if sizes[1] is None else _args.integer(sizes[1], "output_size", where, minimum=1)
    rows = [stack([input[..., a:b, c:d].amax((-2, -1)) for c, d in _bins(w, ow)], -1) for a, b in _bins(h, oh)]
    return stack(rows, -2)
