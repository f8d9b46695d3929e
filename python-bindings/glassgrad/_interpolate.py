"""torch.nn.functional.interpolate (and nn.Upsample's argument check) for 1, 2 or 3 spatial dims:
(N, C, L), (N, C, H, W) and (N, C, D, H, W) input.

Every mode is a separable linear map: the output is A_1 ... A_k applied to x, one resampling
matrix per spatial axis (out_i x in_i), built here with PyTorch's source-index rules
(area_pixel_compute_scale, align_corners, scale_factor, recompute_scale_factor), so the result
equals PyTorch's up to rounding and the gradient is the transposed maps (MatMul's rule). The
rows hold:

- nearest: one 1 at floor(i * scale); nearest-exact: at floor((i + 0.5) * scale), each in the
  float arithmetic of PyTorch's kernel for the input (_nearest_index);
- linear / bilinear / trilinear: two weights (1 - t, t) at floor(src), floor(src) + 1;
- bicubic: four weights of Keys' cubic convolution (A = -0.75) at floor(src) - 1 ... + 2, the
  indices clamped to the input (PyTorch's upsample_bicubic2d);
- area: the adaptive average pooling bins [floor(i n / out), ceil((i + 1) n / out));
- antialias=True (bilinear and bicubic, 4-d input): PyTorch's separable anti-aliasing filter
  (triangle, or Keys with A = -0.5), stretched by the scale when downsampling, weights
  normalised to sum 1.

An inf or NaN in the input reaches its whole output row and column (0 * inf = NaN) instead of its
neighbourhood only. An integer nearest factor repeats elements instead (Expand, exact).
"""
from __future__ import annotations

import math
import warnings
from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

from . import _C, _args, _trace
from ._adaptive_avg_empty import refuse_empty_backward
from ._tensor import Tensor, _op, tensor
from ._nearest_index import nearest_rule, nearest_source
from ._torch_operands import named_node

INTERPOLATE_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
# the modes that interpolate between neighbours, and the input rank each needs
_RANK_OF = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


@lru_cache(maxsize=256)
def adaptive_matrix(n: int, out: int) -> np.ndarray:
    """Row i averages input positions [floor(i n / out), ceil((i + 1) n / out))."""
    a = np.zeros((out, n))
    for i in range(out):
        s, e = (i * n) // out, -((-(i + 1) * n) // out)
        a[i, s:e] = 1.0 / (e - s)
    return a


def _source_scale(n: int, out: int, align_corners: bool, scale_factor: Optional[float]) -> float:
    """PyTorch's area_pixel_compute_scale: the input step per output step."""
    if align_corners:
        return (n - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale_factor if scale_factor else n / out


def _cubic(x: float, a: float) -> float:
    """Keys' cubic convolution kernel at distance x."""
    x = abs(x)
    if x <= 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2.0:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _antialias_row(a: np.ndarray, i: int, n: int, scale: float, mode: str) -> None:
    """PyTorch's _compute_indices_min_size_weights_aa (float input): the filter's support grows
    with the scale when downsampling; weights over [xmin, xmin + xsize) normalised to sum 1."""
    size = 2 if mode == "bilinear" else 4
    support = size * 0.5 * scale if scale >= 1.0 else size * 0.5
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    center = scale * (i + 0.5)
    xmin = max(int(center - support + 0.5), 0)
    xsize = min(int(center + support + 0.5), n) - xmin
    w = np.array([(max(0.0, 1.0 - abs((j + xmin - center + 0.5) * invscale))) if mode == "bilinear"
                  else _cubic((j + xmin - center + 0.5) * invscale, -0.5) for j in range(xsize)])
    if w.sum() != 0.0:
        w = w / w.sum()
    a[i, xmin:xmin + xsize] = w


@lru_cache(maxsize=256)
def resampling_matrix(n: int, out: int, mode: str, align_corners: bool, scale_factor: Optional[float],
                      antialias: bool = False, nearest: str = "float32") -> np.ndarray:
    """The (out, n) matrix that resamples one axis of n elements to out by `mode`; `nearest` is the
    nearest modes' index rule (_nearest_index)."""
    if mode == "area":
        return adaptive_matrix(n, out)
    scale = _source_scale(n, out, align_corners, scale_factor)
    a = np.zeros((out, n))
    for i in range(out):
        if antialias:
            _antialias_row(a, i, n, scale, mode)
        elif mode in ("nearest", "nearest-exact"):
            a[i, nearest_source(i, n, out, mode == "nearest-exact", scale_factor, nearest)] = 1.0
        elif mode == "bicubic":
            src = i * scale if align_corners else scale * (i + 0.5) - 0.5   # not clamped at 0 (PyTorch's cubic)
            i0 = int(math.floor(src))
            t = src - i0
            for k, w in zip(range(i0 - 1, i0 + 3), (_cubic(t + 1, -0.75), _cubic(t, -0.75), _cubic(1 - t, -0.75),
                                                   _cubic(2 - t, -0.75))):
                a[i, min(max(k, 0), n - 1)] += w
        else:  # linear
            src = i * scale if align_corners else max(scale * (i + 0.5) - 0.5, 0.0)
            i0 = min(int(math.floor(src)), n - 1)
            i1 = min(i0 + 1, n - 1)
            lam = src - i0
            a[i, i0] += 1.0 - lam
            a[i, i1] += lam
    return a


def resample_axes(x: Tensor, matrices, saves_input: bool = True) -> Tensor:
    """Applies matrices[j] along spatial axis j of x (axes 2, 3, ...); identities are skipped.
    saves_input: whether PyTorch's node saves a tensor (adaptive pooling's input), so a second
    backward without retain_graph raises; upsampling's saves none."""
    spatial = list(x.shape[2:])
    for j, a in enumerate(matrices):
        if a.shape[0] == a.shape[1] and np.array_equal(a, np.eye(a.shape[0])):
            continue
        # the matrices are constants: what PyTorch's node saves decides (attribute torch_saves)
        named = {"torch_saves": 1.0 if saves_input else 0.0} if x.requires_grad else {}
        if j == len(spatial) - 1:
            x = _op("MatMul", [x, tensor(np.ascontiguousarray(a.T), dtype=x.dtype, device=x.device)], named)
        else:
            lead, after = list(x.shape[:2 + j]), int(np.prod(spatial[j + 1:]))
            m = tensor(a, dtype=x.dtype, device=x.device)
            x = _op("MatMul", [m, x.reshape(*lead, spatial[j], after)], named)
            x = x.reshape(*lead, a.shape[0], *spatial[j + 1:])
        spatial[j] = a.shape[0]
    return x


def _sizes(value, name: str, where: str, check) -> Tuple:
    """One value (every spatial axis) or a tuple of 1 to 3 (one per axis), each passing check."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(values) <= 3:
        fix = f"{name}=2, or one per spatial axis, e.g. {name}=(2, 2) for (N, C, H, W)"
        _args.fail(where, name, "a number or a tuple of one per spatial axis (at most 3)", value, fix=fix)
    return tuple(check(v) for v in values)


def interpolate_arguments(where: str, size=None, scale_factor=None, mode="nearest", align_corners=None,
                          recompute_scale_factor=None, antialias=False):
    """Checks interpolate's (and nn.Upsample's) arguments, everything that does not depend on the
    input, as PyTorch documents them: exactly one of size (an int >= 1, or a tuple of them) and
    scale_factor (a finite number > 0, or a tuple); mode one of INTERPOLATE_MODES; align_corners
    None, or a bool with the interpolating modes only; recompute_scale_factor None or a bool, not
    with size; antialias a bool, True with 'bilinear' and 'bicubic' only. Returns (sizes or None,
    scales or None, align_corners, recompute_scale_factor, antialias); a single number stands for
    every spatial axis (a 1-tuple)."""
    if not isinstance(mode, str):
        _args.fail(where, "mode", "one of " + ", ".join(repr(m) for m in INTERPOLATE_MODES), mode, type_error=True)
    if mode not in INTERPOLATE_MODES:
        raise _C.UnsupportedError(f"{where}: mode '{mode}' is not supported\n  fix: mode= one of "
                                  + ", ".join(repr(m) for m in INTERPOLATE_MODES))
    antialias = _args.flag(antialias, "antialias", where)
    if antialias and mode not in ("bilinear", "bicubic"):
        raise _C.InvalidArgumentError(f"{where}: Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                                      f"modes and requires a 4-D tensor as input (mode is '{mode}'; PyTorch's "
                                      f"ValueError)\n  fix: antialias=False, or mode='bilinear'")
    if align_corners is not None:
        _args.flag(align_corners, "align_corners", where)
        if mode not in _RANK_OF:
            raise _C.InvalidArgumentError(
                f"{where}: align_corners option can only be set with the interpolating modes: linear | bilinear | "
                f"bicubic | trilinear (mode is '{mode}')\n  fix: leave align_corners=None for mode='{mode}', or "
                f"mode='linear' (3-d input) / 'bilinear' (4-d)")
    if (size is None) == (scale_factor is None):  # PyTorch's sentence for each case first
        said = "either size or scale_factor" if size is None else "only one of size or scale_factor"
        raise _C.InvalidArgumentError(f"{where}: {said} should be defined\n  cause: got size={size!r} and "
                                      f"scale_factor={scale_factor!r}\n  fix: size=(64, 64) for a fixed output "
                                      f"size, or scale_factor=2")
    if recompute_scale_factor is not None:
        _args.flag(recompute_scale_factor, "recompute_scale_factor", where)
        if recompute_scale_factor and size is not None:
            with _args.pytorch_says("recompute_scale_factor is not meaningful with an explicit size."):
                _args.fail(where, "recompute_scale_factor", "None or False with an explicit size",
                           recompute_scale_factor, fix="drop recompute_scale_factor")
    flags = (bool(align_corners), bool(recompute_scale_factor), antialias)
    if size is not None:
        def whole(v):
            v = v if (held := _args.element_index(v)) is None else held  # a one-element integer tensor is its int
            if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1):
                _args.fail(where, "size", "an int >= 1 or a tuple of them (one per spatial axis)", size,
                           fix="size=7, or size=(7, 7)")
            return int(v)
        return (_sizes(size, "size", where, whole), None) + flags
    fix = "scale_factor=2, or scale_factor=(2, 1.5) for (H, W)"
    scales = _sizes(scale_factor, "scale_factor", where,
                    lambda v: _args.real(v, "scale_factor", where, minimum=0.0, above=True, fix=fix))
    return (None, scales) + flags


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate: (N, C, L), (N, C, H, W) or (N, C, D, H, W) input resampled
    to `size` or by `scale_factor` (output size floor(in * scale)); mode 'nearest' (default),
    'nearest-exact', 'linear' (3-d), 'bilinear' / 'bicubic' (4-d), 'trilinear' (5-d) or 'area';
    align_corners (False by default for the interpolating modes), recompute_scale_factor and
    antialias (bilinear, bicubic) as PyTorch defines them."""
    sizes, scales, ac, recompute, antialias = interpolate_arguments(
        "interpolate", size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    if input.ndim not in (3, 4, 5):
        raise _C.UnsupportedError(f"interpolate: expected a 3-d (N, C, L), 4-d (N, C, H, W) or 5-d (N, C, D, H, W) "
                                  f"input, got {list(input.shape)}\n  fix: add the batch axis, e.g. x.unsqueeze(0)")
    need = _RANK_OF.get(mode)
    if need is not None and input.ndim != need:
        fixed = {3: "linear", 4: "bilinear", 5: "trilinear"}[input.ndim]
        # PyTorch raises NotImplementedError here (UnsupportedError is one)
        raise _C.UnsupportedError(f"interpolate: got {input.ndim}D input {list(input.shape)}, but {mode} mode "
                                  f"needs {need}D input\n  fix: mode='{fixed}' for this input")
    k = input.ndim - 2
    given = sizes if sizes is not None else scales
    if len(given) not in (1, k):
        name = "size" if sizes is not None else "scale_factor"
        raise _C.InvalidArgumentError(f"interpolate: Input and {name} must have the same number of spatial dimensions,"
                                      f" but got input with spatial dimensions of {list(input.shape[2:])} and {name} "
                                      f"of {given}\n  fix: {name}= one value, or {k} of them")
    given = given * k if len(given) == 1 else given
    spatial = list(input.shape[2:])
    if sizes is not None:
        out, factors = list(given), [None] * k
    else:
        out = [int(math.floor(n * s)) for n, s in zip(spatial, given)]
        factors = [None] * k if recompute else list(given)
    if min(spatial + out) <= 0 and not (mode == "area" and min(spatial) > 0):  # area pools to empty, as PyTorch
        raise _C.InvalidArgumentError(f"interpolate: input and output sizes should be greater than 0, got input "
                                      f"{list(input.shape)} and output {tuple(out)}"
                                      + (f" (scale_factor={scale_factor})" if sizes is None else "")
                                      + "\n  fix: a larger scale_factor, or a larger size")
    if not input.dtype.is_floating_point:
        from ._interpolate_uint8 import resample_uint8   # it builds on this module's weights
        return resample_uint8(input, out, mode, ac, factors, antialias)
    node = _UPSAMPLE_NODES.get(mode, "").format(k) + ("Aa" if antialias else "")
    if mode == "area":  # PyTorch pools: adaptive_avg_pool1d's squeeze of its 2-d pool, the 2-d and 3-d pools
        node = "Squeeze" if k == 1 else f"AdaptiveAvgPool{k}D"
    rule = nearest_rule(input, out)
    if mode == "nearest" and all(o % n == 0 and (f is None or f == o // n) and _repeats(n, o, f, rule)
                                 for n, o, f in zip(spatial, out, factors)):
        y = _repeat(input, [o // n for n, o in zip(spatial, out)])
        return named_node(y, node + "Backward0", input) if input.requires_grad else y
    kind = mode if mode in ("nearest", "nearest-exact", "area", "bicubic") else "linear"
    if antialias:
        kind = mode
    y = resample_axes(input, [resampling_matrix(n, o, kind, ac, f, antialias, rule)
                              for n, o, f in zip(spatial, out, factors)], saves_input=mode == "area")
    if mode == "area":  # an empty result's backward is refused by PyTorch's pool (a 1-d one is its 2-d pool)
        y = refuse_empty_backward(y, input, f"adaptive_avg_pool{max(k, 2)}d")
    suffix = "Backward1" if node == "Squeeze" else "Backward0"
    return named_node(y, node + suffix, input) if node and input.requires_grad else y


# PyTorch's node of each mode ({} the number of spatial dims; Aa appended with antialias)
_UPSAMPLE_NODES = {"nearest": "UpsampleNearest{}D", "nearest-exact": "UpsampleNearestExact{}D",
                   "linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D", "bicubic": "UpsampleBicubic2D",
                   "trilinear": "UpsampleTrilinear3D"}


def _repeats(n: int, out: int, scale_factor: Optional[float], rule: str) -> bool:
    """Whether nearest's float index rule reads input i // (out // n) at every output i (n -> 82 n
    reads 0 at i = 41 in float32: 41 * (2 / 82) rounds below 1)."""
    return all(nearest_source(i, n, out, False, scale_factor, rule) == i // (out // n) for i in range(out))


def _repeat(x: Tensor, factors) -> Tensor:
    """Nearest resampling by integer factors: each element repeated (Expand), exact."""
    lead, spatial = list(x.shape[:2]), list(x.shape[2:])
    split = [v for n in spatial for v in (n, 1)]
    grown = [v for n, f in zip(spatial, factors) for v in (n, f)]
    return x.reshape(*lead, *split).expand(*lead, *grown).reshape(*lead, *[n * f for n, f in zip(spatial, factors)])


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """PyTorch's deprecated F.upsample: interpolate (with its warning)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=_trace.user_stacklevel())
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """PyTorch's deprecated F.upsample_nearest: interpolate(mode='nearest') (with its warning)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=_trace.user_stacklevel())
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """PyTorch's deprecated F.upsample_bilinear: interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=_trace.user_stacklevel())
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
