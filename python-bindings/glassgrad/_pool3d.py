"""torch.nn.functional.avg_pool3d, max_pool3d (return_indices) and adaptive_max_pool3d, composed
from one window table per geometry (built in NumPy and cached), as 2-d max pooling's indices are
(docs/pooling.md): T[o, j] is the flat position d * H * W + h * W + w that slot j of output window
o reads, or an extra slot past the input (0 for average pooling, -inf for max pooling) where the
window leaves it. Then

- average: index_select the windows, sum the slots, divide by PyTorch's divisor (the window size
  clipped at input + padding with count_include_pad, else the in-bounds count, or
  divisor_override);
- max: the winning slot is argmax (the first maximum, PyTorch's tie rule), its flat position is
  the index, and the value is a gather of the input at it, so the gradient reaches one element.

Output sizes are PyTorch's: floor((n + 2 p - d (k - 1) - 1) / s) + 1, rounded up with ceil_mode,
less a last window that would start past the input and its left padding."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

from . import _C, _args, _autocast
from ._conv_transpose import int_tuple
from ._integer_pooling import INTEGRAL, integer_average, integer_max
from ._adaptive_avg_empty import empty_pooled, nonempty_sizes, refuse_empty_backward
from ._pooling import nonempty_planes
from ._spatial import cat
from ._tensor import Tensor, tensor
from ._torch_operands import named_node


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    if out < 1:
        raise _C.ShapeError(f"pool3d: the window (kernel {k}, dilation {d}) does not fit in an axis of {n} with "
                            f"padding {p}: output size {out} is too small\n  fix: a smaller kernel_size or "
                            f"dilation, or more padding")
    return out


@lru_cache(maxsize=64)
def _axis(n: int, k: int, s: int, p: int, d: int, out: int):
    """Per axis: positions [out, k] of each window slot, whether each is inside the input, and the
    window sizes (clipped at n + p) and in-bounds counts of average pooling."""
    starts: np.ndarray = np.arange(out) * s - p
    pos = starts[:, None] + np.arange(k)[None, :] * d
    inside = (pos >= 0) & (pos < n)
    ends = np.minimum(starts + k, n + p)
    size = ends - starts
    count = np.minimum(ends, n) - np.maximum(starts, 0)
    return pos, inside, size, count


def _table(axes, shape) -> Tuple[np.ndarray, np.ndarray]:
    """The (O, K) flat positions (the extra slot prod(shape) where outside) over three axes."""
    (pd, vd), (ph, vh), (pw, vw) = [(a[0], a[1]) for a in axes]
    _, hh, ww = shape
    flat = (pd[:, None, None, :, None, None] * hh + ph[None, :, None, None, :, None]) * ww \
        + pw[None, None, :, None, None, :]
    valid = vd[:, None, None, :, None, None] & vh[None, :, None, None, :, None] & vw[None, None, :, None, None, :]
    o = pd.shape[0] * ph.shape[0] * pw.shape[0]
    flat = np.where(valid, flat, int(np.prod(shape))).reshape(o, -1)
    return flat.astype(np.int64), valid.reshape(o, -1)


def _arguments(where: str, input: Tensor, kernel_size, stride, padding, dilation):
    if input.ndim not in (4, 5):
        raise _C.ShapeError(f"{where}: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input, got "
                            f"{list(input.shape)}\n  fix: add the batch axis, e.g. x.unsqueeze(0)")
    nonempty_planes(input, where, 3)
    k = int_tuple(kernel_size, 3, "kernel_size", where, minimum=1)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else \
        int_tuple(stride, 3, "stride", where, minimum=1)
    p = int_tuple(padding, 3, "padding", where, minimum=0)
    d = int_tuple(dilation, 3, "dilation", where, minimum=1)
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise _C.InvalidArgumentError(f"{where}: pad should be at most half of effective kernel size, but got "
                                      f"pad={p} and kernel_size={k}\n  fix: padding <= kernel_size // 2")
    return k, s, p, d


def _windows(x: Tensor, table: np.ndarray, fill: float) -> Tensor:
    """(N, C, O, K): each window's slots, `fill` where a slot is outside the input."""
    n, c = x.shape[:2]
    flat = cat([x.reshape(n, c, math.prod(x.shape[2:])), tensor(np.full((n, c, 1), fill), dtype=x.dtype, device=x.device)], 2)
    o, kk = table.shape
    return flat.index_select(2, tensor(table.reshape(-1), device=x.device)).reshape(n, c, o, kk)


@_autocast.op("avg_pool3d")
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """PyTorch's F.avg_pool3d over (N, C, D, H, W) or (C, D, H, W) input; int64 input averages in
    integers, truncated (_integer_pooling.py)."""
    if isinstance(input, Tensor) and not input.is_floating_point():
        return integer_average(input, "avg_pool3d_out_frame", lambda x: avg_pool3d(
            x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override))
    where = "avg_pool3d"
    k, s, p, _ = _arguments(where, input, kernel_size, stride, padding, 1)
    x = input if input.ndim == 5 else input.reshape(1, *input.shape)
    shape = tuple(x.shape[2:])
    if any(n < kk for n, kk in zip(shape, k)):   # PyTorch's check, on the input before padding
        raise _C.ShapeError(f"{where}: input image (T: {shape[0]} H: {shape[1]} W: {shape[2]}) smaller than kernel "
                            f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})\n  fix: a smaller kernel_size, or a larger "
                            f"input")
    outs = [_out_size(n, kk, ss, pp, 1, ceil_mode) for n, kk, ss, pp in zip(shape, k, s, p)]
    axes = [_axis(n, kk, ss, pp, 1, o) for n, kk, ss, pp, o in zip(shape, k, s, p, outs)]
    table, _ = _table(axes, shape)
    if divisor_override:
        divisor = np.full(table.shape[0], float(divisor_override))
    else:
        part = [a[2] if count_include_pad else a[3] for a in axes]
        divisor = (part[0][:, None, None] * part[1][None, :, None] * part[2][None, None, :]).reshape(-1)
    sums = _windows(x, table, 0.0).sum(-1)
    y = (sums / tensor(divisor.astype(np.float64), dtype=x.dtype, device=x.device)).reshape(*x.shape[:2], *outs)
    return named_node(y if input.ndim == 5 else y.reshape(*y.shape[1:]), "AvgPool3DBackward0", input)


def _max_over(x: Tensor, table: np.ndarray, outs, input: Tensor, return_indices: bool, node: str):
    """The maxima of input (x: it batched) over the table's windows, the values PyTorch's node
    `node` of the input (MaxPool3DWithIndicesBackward0)."""
    n, c = x.shape[:2]
    seen = _windows(x, table, -math.inf)
    slot = seen.argmax(-1, keepdim=True)                                           # (N, C, O, 1)
    positions = tensor(table, device=x.device).reshape(1, 1, *table.shape).expand(n, c, *table.shape)
    indices = positions.gather(3, slot).reshape(n, c, table.shape[0])
    values = x.reshape(n, c, math.prod(x.shape[2:])).gather(2, indices).reshape(n, c, *outs)
    indices = indices.reshape(n, c, *outs)
    if input.ndim == 4:
        values, indices = values.reshape(*values.shape[1:]), indices.reshape(*indices.shape[1:])
    values = named_node(values, node, input)
    return (values, indices) if return_indices else values


@_autocast.op("max_pool3d")
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """PyTorch's F.max_pool3d over (N, C, D, H, W) or (C, D, H, W) input; with return_indices the
    flat positions d * H * W + h * W + w of the maxima too (int64)."""
    if input._h.dtype in INTEGRAL:
        return integer_max(input, "max_pool3d", lambda x: max_pool3d(x, kernel_size, stride, padding, dilation,
                                                                     ceil_mode, return_indices))
    k, s, p, d = _arguments("max_pool3d", input, kernel_size, stride, padding, dilation)
    x = input if input.ndim == 5 else input.reshape(1, *input.shape)
    shape = tuple(x.shape[2:])
    outs = [_out_size(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip(shape, k, s, p, d)]
    table, _ = _table([_axis(n, kk, ss, pp, dd, o) for n, kk, ss, pp, dd, o in zip(shape, k, s, p, d, outs)], shape)
    return _max_over(x, table, outs, input, return_indices, "MaxPool3DWithIndicesBackward0")


@lru_cache(maxsize=64)
def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False):
    """F.max_pool3d_with_indices: (values, indices) whatever return_indices says, as PyTorch's."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _adaptive_axis(n: int, out: int):
    """PyTorch's adaptive bins [floor(i n / out), ceil((i + 1) n / out)) as slot positions."""
    starts = np.array([(i * n) // out for i in range(out)])
    ends = np.array([-((-(i + 1) * n) // out) for i in range(out)])
    k = int((ends - starts).max())
    pos = starts[:, None] + np.arange(k)[None, :]
    return pos, pos < ends[:, None]


@_autocast.op("adaptive_max_pool3d")
def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """PyTorch's F.adaptive_max_pool3d: maxima over PyTorch's bins to output_size (an int, or
    (D, H, W) where None keeps that size); with return_indices the flat positions too."""
    where = "adaptive_max_pool3d"
    _args.floating_input(input, "adaptive_max_pool3d_cpu")
    if input.ndim not in (4, 5):
        raise _C.ShapeError(f"{where}: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input, got "
                            f"{list(input.shape)}\n  fix: add the batch axis, e.g. x.unsqueeze(0)")
    nonempty_sizes(input, where, range(1, input.ndim))
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    x = input if input.ndim == 5 else input.reshape(1, *input.shape)
    shape = tuple(x.shape[2:])
    outs = [n if o is None else int(o) for n, o in zip(shape, sizes)]
    if 0 in outs:  # PyTorch pools to the empty result, whose backward its kernel refuses
        values = empty_pooled(input, outs)
        indices = tensor(np.zeros(tuple(values.shape), np.int64), device=x.device)
        values = named_node(refuse_empty_backward(values, input, where), "AdaptiveMaxPool3DBackward0", input)
        return (values, indices) if return_indices else values
    table, _ = _table([_adaptive_axis(n, o) for n, o in zip(shape, outs)], shape)
    return _max_over(x, table, outs, input, return_indices, "AdaptiveMaxPool3DBackward0")


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """F.adaptive_max_pool3d_with_indices: (values, indices) whatever return_indices says."""
    return adaptive_max_pool3d(input, output_size, True)


def unpool3d_arguments(where: str, kernel_size, stride, padding):
    """(kernel, stride, padding) triples; stride None is the kernel size."""
    k = int_tuple(kernel_size, 3, "kernel_size", where, minimum=1)
    s = k if stride is None else int_tuple(stride, 3, "stride", where, minimum=1)
    return k, s, int_tuple(padding, 3, "padding", where, minimum=0)


@_autocast.op("max_unpool3d")
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """PyTorch's F.max_unpool3d: each value of a 3-d max pooling's output back at its flat index
    d * H * W + h * W + w, zeros elsewhere (the unpooling of glassgrad/_pool_indices.py)."""
    from ._pool_indices import max_unpool
    k, s, p = unpool3d_arguments("max_unpool3d", kernel_size, stride, padding)
    return max_unpool("max_unpool3d", input, indices, k, s, p, output_size)
