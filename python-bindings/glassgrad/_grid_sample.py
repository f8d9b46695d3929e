"""F.affine_grid and F.grid_sample (4-D and 5-D) with torch.nn.functional's arguments, defaults,
warnings and errors, as composites of existing ops (docs/porting.md, "Spatial transformers"):

    affine_grid:  grid[n, h, w] = theta[n] @ (x_w, y_h, 1), x and y the pixel centres in [-1, 1]
                  (align_corners=False) or the corner pixels' centres at -1 and 1 (True)
    grid_sample:  each output pixel reads the input at grid (x, y) in [-1, 1], unnormalized to
                  pixels as (x + 1) / 2 * (W - 1) (align_corners=True) or ((x + 1) * W - 1) / 2,
                  then bilinear (the 4 neighbours weighted by distance, gathered from the input
                  flattened to (N, C, H * W)) or nearest (round half to even); padding 'zeros'
                  (neighbours outside read 0), 'border' (coordinates clipped) or 'reflection'
                  (coordinates reflected at the border, then clipped). Volumes (N, C, D, H, W)
                  read (x, y, z) the same way, trilinear over the 8 neighbours. 'bicubic' (4-D)
                  weights the 4 x 4 taps around the unclipped point with the cubic convolution
                  kernel (A = -0.75), each tap's own pixel moved inside by the padding mode.

Gradients come from the ops: the input's through gather, the grid's through the interpolation
weights (zero for nearest, and where a coordinate was clipped)."""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional

from . import _C, _autocast, _trace
from ._factories import linspace, ones
from ._math import abs as _abs, clamp, floor, fmod, logical_and, mul, nan_to_num, round as _round
from ._spatial import cat
from ._tensor import RefusedValueError, Tensor
from ._torch_operands import named_node

_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


def _align(align_corners) -> bool:
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, stacklevel=_trace.user_stacklevel())
        return False
    return bool(align_corners)


def _base(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The n pixel centres along one axis in [-1, 1], as affine_grid places them."""
    if n == 1:
        return linspace(0.0, 0.0, 1, dtype=like.dtype, device=like.device)
    line: Any = linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)  # Tensor's operators are attached at import
    return line if align_corners else line * ((n - 1) / n)


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid of the affine maps theta for an output of `size`: (N, H, W, 2) from
    theta (N, 2, 3) and size (N, C, H, W), or (N, D, H, W, 3) from theta (N, 3, 4) and size
    (N, C, D, H, W) (torch.nn.functional.affine_grid); x runs along W, y along H, z along D."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    k = len(size) - 2  # spatial dims
    if theta.ndim != 3 or theta.shape[-2] != k or theta.shape[-1] != k + 1:
        expected = "Nx2x3" if k == 2 else "Nx3x4"
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape {expected} for size {size}. "
                         f"Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=_trace.user_stacklevel())
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, spatial = size[0], size[2:]
    if theta.shape[0] != n:
        raise _C.ShapeError(f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of {n}\n"
                            f"  fix: size=(theta.shape[0], C, {', '.join('DHW'[3 - k:])})")
    # one column per axis, x (the last axis) first, then a column of ones
    columns = []
    for axis in reversed(range(k)):
        shape = [1] * k
        shape[axis] = spatial[axis]
        columns.append(_base(spatial[axis], align_corners, theta).reshape(*shape, 1).expand(*spatial, 1))
    columns.append(ones(*spatial, 1, dtype=theta.dtype, device=theta.device))
    cells = 1
    for m in spatial:
        cells *= m
    base = cat(columns, dim=k).reshape(1, cells, k + 1)
    # PyTorch's one node of theta
    return named_node(base.matmul(theta.transpose(1, 2)).reshape(n, *spatial, k), "AffineGridGeneratorBackward0", theta)


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """coord reflected into [twice_low / 2, twice_high / 2] by mirroring at both ends."""
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    dist = _abs(coord - low)
    extra = fmod(dist, span)
    flips = floor(dist / span)
    even = fmod(flips, 2) == 0
    return (extra + low).where(even, (span - extra) + low)


def _padded(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """A pixel coordinate moved inside by padding_mode ('zeros' leaves it: outside reads 0)."""
    if padding_mode == "border":
        x = nan_to_num(clamp(x, 0, size - 1), 0.0)  # PyTorch's clip sends nan to pixel 0
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = nan_to_num(clamp(x, 0, size - 1), 0.0)  # (an infinite coordinate reflects to nan, then 0)
    return x


def _read(flat: Tensor, coords, sizes) -> Tensor:
    """flat (N, C, prod(sizes)) at integer-valued float pixels coords (x, y[, z], each (N, P)) of
    an image of sizes (W, H[, D]): the values (N, C, P), pixels outside reading 0."""
    inside: Optional[Tensor] = None
    index: Optional[Tensor] = None
    stride = 1
    for ci, m in zip(coords, sizes):
        ok = logical_and(ci >= 0, ci <= m - 1)
        inside = ok if inside is None else logical_and(inside, ok)
        term = clamp(nan_to_num(ci, 0.0), 0, m - 1) * stride  # a nan pixel is outside: any index reads it
        index = term if index is None else index + term
        stride *= m
    assert index is not None and inside is not None
    n, c, _ = flat.shape
    points = index.shape[1]  # explicit, no -1: a batch of 0 has 0 elements
    values = flat.gather(2, index.long().reshape(n, 1, points).expand(n, c, points))
    return values * inside.reshape(n, 1, points).to(flat.dtype)


def _cubic(t: Tensor):
    """The four cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 for the fraction
    t, as PyTorch's bicubic grid_sample and upsampling compute them."""
    a = -0.75
    t1, t2 = t + 1, 2 - t
    return [((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1, ((a * t2 - 5 * a) * t2 + 8 * a) * t2 - 4 * a]


@_autocast.op("grid_sample")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:
    """The input (N, C, H, W) sampled at grid (N, H_out, W_out, 2) of (x, y) in [-1, 1]: an
    output (N, C, H_out, W_out); or (N, C, D, H, W) at (N, D_out, H_out, W_out, 3) of (x, y, z)
    (torch.nn.functional.grid_sample). mode 'bilinear' (trilinear for 5-D), 'nearest', or
    'bicubic' (4-D: the 4 x 4 taps around each point, each tap's pixel moved by padding_mode)."""
    out = _sampled(input, grid, mode, padding_mode, align_corners)
    # PyTorch's one node of (input, grid), GridSampler2DBackward0 or GridSampler3DBackward0
    return named_node(out, f"GridSampler{input.ndim - 2}DBackward0", input, grid)


def _sampled(input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners) -> Tensor:
    """grid_sample's values (grid_sample names the node)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    k = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or grid.shape[-1] != k:
        # PyTorch checks the grid's last size first: its sentence leads when that is what is wrong
        said = (f"grid_sampler(): expected grid to have size {k} in last dimension, but got grid with sizes "
                f"{list(grid.shape)}\n  cause: " if grid.ndim and grid.shape[-1] != k else "")
        raise _C.ShapeError(f"{said}grid_sample: expected a 4-D input (N, C, H, W) with a grid (N, H_out, W_out, 2), or "
                            f"a 5-D input (N, C, D, H, W) with a grid (N, D_out, H_out, W_out, 3), got input "
                            f"{list(input.shape)} and grid {list(grid.shape)}\n"
                            "  fix: grid = F.affine_grid(theta, x.size(), align_corners=False)")
    if mode == "bicubic" and k == 3:
        raise RefusedValueError(f"grid_sampler(): bicubic interpolation only supports 4D input (got "
                                f"{list(input.shape)})\n  fix: mode='bilinear' (trilinear) for volumes")
    if grid.shape[0] != input.shape[0]:
        raise _C.ShapeError(f"grid_sample(): expected grid and input to have same batch size, but got input with "
                            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise _C.DTypeError(f"grid_sample(): expected input and grid to have the same dtype, but input has "
                            f"{input.dtype} and grid has {grid.dtype}\n  fix: grid = grid.to(input.dtype)")
    n, c = input.shape[:2]
    sizes = list(reversed(input.shape[2:]))  # W, H[, D]: the order of the grid's coordinates
    out_shape = list(grid.shape[1:-1])
    cells = 1
    for m in sizes:
        cells *= m
    flat = input.reshape(n, c, cells)
    points = math.prod(out_shape)  # explicit, no -1: a batch of 0 has 0 elements
    coords = grid.reshape(n, points, k)
    raw = [_unnormalize(coords[..., i], m, align_corners) for i, m in enumerate(sizes)]
    if mode == "bicubic":
        return _bicubic(flat, raw, sizes, padding_mode, align_corners).reshape(n, c, *out_shape)
    src = [_padded(x, m, padding_mode, align_corners) for x, m in zip(raw, sizes)]
    if mode == "nearest":
        out = _read(flat, [_round(x.detach()) for x in src], sizes)
        # the grid gets PyTorch's zero gradient (not None): it joins the graph with weight 0
        total = nan_to_num(mul(src[0], 0), 0.0).sum()  # (an infinite coordinate must not make it nan)
        for x in src[1:]:
            total = total + nan_to_num(mul(x, 0), 0.0).sum()
        return (out + total * 0).reshape(n, c, *out_shape)
    low = [floor(x.detach()) for x in src]
    fractions = [(x - x0).reshape(n, 1, points) for x, x0 in zip(src, low)]
    acc: Optional[Tensor] = None
    for corner in range(2 ** k):  # each neighbour, weighted by its distance along every axis
        offsets = [(corner >> i) & 1 for i in range(k)]
        weight = None
        for f, o in zip(fractions, offsets):
            wf = f if o else 1 - f
            weight = wf if weight is None else weight * wf
        term = _read(flat, [x0 + o for x0, o in zip(low, offsets)], sizes) * weight
        acc = term if acc is None else acc + term
    assert acc is not None
    return acc.reshape(n, c, *out_shape)


def _bicubic(flat: Tensor, raw, sizes, padding_mode: str, align_corners: bool) -> Tensor:
    n = flat.shape[0]
    (x, y), (w, h) = raw, sizes
    x0, y0 = floor(x.detach()), floor(y.detach())
    points = x.shape[1]  # explicit, no -1: a batch of 0 has 0 elements
    cx = [v.reshape(n, 1, points) for v in _cubic(x - x0)]
    cy = [v.reshape(n, 1, points) for v in _cubic(y - y0)]
    out = None
    for j in range(4):
        yj = _padded(y0 + (j - 1), h, padding_mode, align_corners)
        for i in range(4):
            xi = _padded(x0 + (i - 1), w, padding_mode, align_corners)
            term = _read(flat, [xi, yj], sizes) * (cx[i] * cy[j])
            out = term if out is None else out + term
    assert out is not None
    return out
