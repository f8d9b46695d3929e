"""torch.nn.functional.lp_pool1d / lp_pool2d / lp_pool3d (power-average pooling) and adaptive_avg_pool3d,
composed: lp pooling is PyTorch's own formula over average pooling,
    (sign(s) relu(|s|) * kernel elements) ** (1 / p),  s = avg_pool(x ** p),
and adaptive average pooling over 3 axes is one averaging matrix per axis (PyTorch's bins; the
resampling of glassgrad/_interpolate.py)."""
from __future__ import annotations

import math

from . import _C, _args, _autocast
from ._conv_transpose import int_tuple
from ._math import abs as _abs
from ._interpolate import adaptive_matrix, resample_axes
from ._pool3d import avg_pool3d, max_pool3d
from ._pooling import avg_pool2d, max_pool2d
from ._pooling_1d import avg_pool1d, max_pool1d
from ._adaptive_avg_empty import nonempty_sizes, refuse_empty_backward
from ._tensor import Tensor
from ._torch_operands import named_node


def _finish(pooled: Tensor, elements: int, norm_type: float) -> Tensor:
    return ((pooled.sign() * pooled.abs().relu()) * float(elements)) ** (1.0 / norm_type)


def _norm_type(norm_type, where: str, max_pool):
    """(p, None), or (None, the result) for PyTorch's limits: p = inf is the largest |x| of each
    window, -inf the smallest (max_pool(|x|), -max_pool(-|x|)); p = 0 is its ValueError."""
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        return None, max_pool(1.0 if norm_type > 0 else -1.0)
    p = _args.real(norm_type, "norm_type", where)
    if p == 0:
        raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}\n  {where}: fix: norm_type=2")
    return p, None


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """PyTorch's F.lp_pool1d: the p-norm over windows of kernel_size along the last axis."""
    k = _args.integer(kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size, "kernel_size",
                      "lp_pool1d", minimum=1)
    p, limit = _norm_type(norm_type, "lp_pool1d", lambda sign: sign * max_pool1d(
        sign * _abs(input), k, stride, 0, 1, ceil_mode))
    if limit is not None:
        return limit
    pooled = avg_pool1d(input ** p, k, stride, 0, ceil_mode)
    return _finish(pooled, k, p)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """PyTorch's F.lp_pool2d: the p-norm over kernel_size windows of (N, C, H, W) or (C, H, W)."""
    kh, kw = _args.int_pair(kernel_size, "kernel_size", "lp_pool2d", 1)
    p, limit = _norm_type(norm_type, "lp_pool2d", lambda sign: sign * max_pool2d(
        sign * _abs(input), (kh, kw), stride, 0, 1, ceil_mode))
    if limit is not None:
        return limit
    pooled = avg_pool2d(input ** p, (kh, kw), stride, 0, ceil_mode)
    return _finish(pooled, kh * kw, p)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """PyTorch's F.lp_pool3d: the p-norm over kernel_size windows of (N, C, D, H, W) or (C, D, H, W)."""
    kd, kh, kw = int_tuple(kernel_size, 3, "kernel_size", "lp_pool3d", minimum=1)
    p, limit = _norm_type(norm_type, "lp_pool3d", lambda sign: sign * max_pool3d(
        sign * _abs(input), (kd, kh, kw), stride, 0, 1, ceil_mode))
    if limit is not None:
        return limit
    pooled = avg_pool3d(input ** p, (kd, kh, kw), stride, 0, ceil_mode)
    return _finish(pooled, kd * kh * kw, p)


@_autocast.op("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """PyTorch's F.adaptive_avg_pool3d: means over PyTorch's bins to output_size (an int, or (D, H, W)
    where None keeps that size), for (N, C, D, H, W) or (C, D, H, W) input."""
    where = "adaptive_avg_pool3d"
    _args.floating_input(input, "adaptive_avg_pool3d_cpu")
    if input.ndim not in (4, 5):
        raise _C.ShapeError(f"{where}: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input, got "
                            f"{list(input.shape)}\n  fix: add the batch axis, e.g. x.unsqueeze(0)")
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(sizes) != 3:
        _args.fail(where, "output_size", "an int or a triple (D, H, W) (None keeps that size)", output_size,
                   fix="output_size=(1, 7, 7)")
    spatial = list(input.shape[-3:])
    out = [n if o is None else _args.integer(o, "output_size", where, minimum=0) for n, o in zip(spatial, sizes)]
    if all(o == 1 for o in out):  # PyTorch's mean, which takes empty sizes (nan)
        return input.mean(dim=(-3, -2, -1), keepdim=True)  # type: ignore[attr-defined]  # (attached at import)
    nonempty_sizes(input, where, range(1, input.ndim))
    x = input if input.ndim == 5 else input.reshape(1, *input.shape)
    y = resample_axes(x, [adaptive_matrix(n, o) for n, o in zip(spatial, out)])
    y = refuse_empty_backward(y if input.ndim == 5 else y.reshape(*y.shape[1:]), input, where)
    return named_node(y, "AdaptiveAvgPool3DBackward0", input)  # PyTorch's one node of the input
