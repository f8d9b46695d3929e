"""F.affine_grid and F.grid_sample (4-D input) with torch.nn.functional's arguments, defaults,
warnings and errors, as composites of existing ops (docs/porting.md, "Spatial transformers"):

    affine_grid:  grid[n, h, w] = theta[n] @ (x_w, y_h, 1), x and y the pixel centres in [-1, 1]
                  (align_corners=False) or the corner pixels' centres at -1 and 1 (True)
    grid_sample:  each output pixel reads the input at grid (x, y) in [-1, 1], unnormalized to
                  pixels as (x + 1) / 2 * (W - 1) (align_corners=True) or ((x + 1) * W - 1) / 2,
                  then bilinear (the 4 neighbours weighted by distance, gathered from the input
                  flattened to (N, C, H * W)) or nearest (round half to even); padding 'zeros'
                  (neighbours outside read 0), 'border' (coordinates clipped) or 'reflection'
                  (coordinates reflected at the border, then clipped).

Gradients come from the ops: the input's through gather, the grid's through the bilinear
weights (zero for nearest, and where a coordinate was clipped)."""
from __future__ import annotations

import warnings

from . import _C
from ._factories import linspace, ones
from ._math import abs as _abs, clamp, floor, fmod, logical_and, round as _round
from ._spatial import cat
from ._tensor import Tensor

_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


def _align(align_corners) -> bool:
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, stacklevel=3)
        return False
    return bool(align_corners)


def _base(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The n pixel centres along one axis in [-1, 1], as affine_grid places them."""
    if n == 1:
        return linspace(0.0, 0.0, 1, dtype=like.dtype, device=like.device)
    line = linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return line if align_corners else line * ((n - 1) / n)


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid (N, H, W, 2) of the 2-D affine maps theta (N, 2, 3) for an output of
    size (N, C, H, W) (torch.nn.functional.affine_grid)."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 5:
        raise _C.UnsupportedError(f"affine_grid: 3-D affine grids (size {size}, theta N x 3 x 4) are not supported\n"
                                  "  fix: use a 4-D size (N, C, H, W) with theta of shape (N, 2, 3)")
    if len(size) != 4:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                         f"Got {theta.shape}.")
    if align_corners and min(size[-2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, _, h, w = size
    if theta.shape[0] != n:
        raise _C.ShapeError(f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of {n}\n"
                            f"  fix: size=(theta.shape[0], C, H, W)")
    xs = _base(w, align_corners, theta).reshape(1, w, 1).expand(h, w, 1)
    ys = _base(h, align_corners, theta).reshape(h, 1, 1).expand(h, w, 1)
    base = cat([xs, ys, ones(h, w, 1, dtype=theta.dtype, device=theta.device)], dim=2).reshape(1, h * w, 3)
    return base.matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)


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


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    x = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        x = clamp(x, 0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = clamp(x, 0, size - 1)
    return x


def _read(flat: Tensor, xi: Tensor, yi: Tensor, h: int, w: int):
    """flat (N, C, H * W) at integer-valued float pixels (xi, yi) of shape (N, P): the values
    (N, C, P) and whether each pixel lies inside (N, 1, P), outside pixels reading 0."""
    inside = logical_and(logical_and(xi >= 0, xi <= w - 1), logical_and(yi >= 0, yi <= h - 1))
    index = (clamp(yi, 0, h - 1) * w + clamp(xi, 0, w - 1)).long()
    n, c, _ = flat.shape
    values = flat.gather(2, index.reshape(n, 1, -1).expand(n, c, index.shape[1]))
    inside = inside.reshape(n, 1, -1).to(flat.dtype)
    return values * inside, inside


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners=None) -> Tensor:
    """The input (N, C, H, W) sampled at grid (N, H_out, W_out, 2) of (x, y) in [-1, 1]: an
    output (N, C, H_out, W_out) (torch.nn.functional.grid_sample)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    if mode == "bicubic":
        raise _C.UnsupportedError("grid_sample: mode='bicubic' is not supported\n"
                                  "  fix: mode='bilinear' (the default) or 'nearest'")
    if input.ndim == 5:
        raise _C.UnsupportedError(f"grid_sample: volumetric (5-D) input {list(input.shape)} is not supported\n"
                                  "  fix: sample each depth slice as a 4-D (N, C, H, W) input")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise _C.ShapeError(f"grid_sample: expected a 4-D input (N, C, H, W) and a grid (N, H_out, W_out, 2), got "
                            f"input {list(input.shape)} and grid {list(grid.shape)}\n"
                            "  fix: grid = F.affine_grid(theta, x.size(), align_corners=False)")
    if grid.shape[0] != input.shape[0]:
        raise _C.ShapeError(f"grid_sample(): expected grid and input to have same batch size, but got input with "
                            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise _C.DTypeError(f"grid_sample(): expected input and grid to have the same dtype, but input has "
                            f"{input.dtype} and grid has {grid.dtype}\n  fix: grid = grid.to(input.dtype)")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    flat = input.reshape(n, c, h * w)
    coords = grid.reshape(n, ho * wo, 2)
    x = _source(coords[..., 0], w, padding_mode, align_corners)
    y = _source(coords[..., 1], h, padding_mode, align_corners)
    if mode == "nearest":
        out, _ = _read(flat, _round(x.detach()), _round(y.detach()), h, w)
        # the grid gets PyTorch's zero gradient (not None): it joins the graph with weight 0
        return (out + (x.sum() + y.sum()) * 0).reshape(n, c, ho, wo)
    x0, y0 = floor(x.detach()), floor(y.detach())
    wx1, wy1 = (x - x0).reshape(n, 1, -1), (y - y0).reshape(n, 1, -1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    out = None
    for dx, wx in ((0, wx0), (1, wx1)):
        for dy, wy in ((0, wy0), (1, wy1)):
            values, _ = _read(flat, x0 + dx, y0 + dy, h, w)
            term = values * (wx * wy)
            out = term if out is None else out + term
    return out.reshape(n, c, ho, wo)
