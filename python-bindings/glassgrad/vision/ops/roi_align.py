"""torchvision.ops.roi_align and RoIAlign (He et al. 2017, Mask R-CNN): [K, C, h, w] from input
[N, C, H, W] and regions (a [K, 5] tensor of (batch index, x1, y1, x2, y2) rows or a list of
[L, 4] tensors, one per image).

As torchvision's kernel: a region scaled by spatial_scale (minus 0.5 with aligned=True; without
it, sides below 1 become 1) is cut into h x w bins; each bin averages a grid of sampling_ratio^2
points (sampling_ratio <= 0: ceil(side / bins) points per side) at the centres of its sub-cells,
each read by bilinear interpolation: a point beyond one pixel outside the map reads 0, coordinates
below 0 read row/column 0 and past the last pixel the last one. The grid count divides the sum
even for points reading 0.

Bilinear weights are products of a y weight and an x weight, so each region's output is
A_y @ input[b] @ A_x^T with A_y [h, H] and A_x [w, W] the weights summed over each bin's points
(computed as plain numbers from the boxes): the input's gradient is exact, and no gradient
reaches the boxes, as torchvision's."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

import numpy as np

from ... import _C, nn
from ..._tensor import Tensor
from ._rois import regions

__all__ = ["RoIAlign", "roi_align"]


def _axis_weights(start: np.ndarray, side: np.ndarray, bins: int, grid: np.ndarray, size: int,
                  dt: np.dtype) -> np.ndarray:
    """[K, bins, size]: the bilinear weights each bin's points give each pixel along one axis
    (a point outside [-1, size] or past the region's grid gives none)."""
    k = len(start)
    points = max(int(grid.max()), 1)
    bin_size = (side / dt.type(bins)).astype(dt)
    i = np.arange(points, dtype=dt)
    # sample = start + bin * bin_size + (i + 0.5) * bin_size / grid, in the input's precision
    offset = ((i[None, :] + dt.type(0.5)) * bin_size[:, None] / grid[:, None].astype(dt)).astype(dt)
    pos = (start[:, None, None] + np.arange(bins, dtype=dt)[None, :, None] * bin_size[:, None, None]).astype(dt)
    pos = (pos + offset[:, None, :]).astype(dt)
    used = np.arange(points)[None, None, :] < grid[:, None, None]
    inside = (pos >= -1.0) & (pos <= size)
    pos = np.maximum(pos, 0)
    low = np.floor(pos).astype(np.int64)
    last = low >= size - 1
    low = np.where(last, size - 1, low)
    high = np.where(last, size - 1, low + 1)
    frac = np.where(last, 0, pos - low).astype(dt)
    keep = (used & inside).astype(dt)
    weights: np.ndarray = np.zeros((k, bins, size), dtype=np.float64)
    kk = np.broadcast_to(np.arange(k)[:, None, None], low.shape)
    bb = np.broadcast_to(np.arange(bins)[None, :, None], low.shape)
    np.add.at(weights, (kk, bb, low), (1 - frac) * keep)
    np.add.at(weights, (kk, bb, high), frac * keep)
    return weights


def roi_align(input: Tensor, boxes: Union[Tensor, Sequence[Tensor]], output_size: Union[int, Tuple[int, int]],
              spatial_scale: float = 1.0, sampling_ratio: int = -1, aligned: bool = False) -> Tensor:
    """Region bilinear pooling (torchvision.ops.roi_align): [K, C, h, w] from input [N, C, H, W]."""
    import glassgrad as gg
    if input.ndim != 4:
        raise _C.ShapeError(f"roi_align: input must be [N, C, H, W], got {list(input.shape)}\n  fix: "
                            "input.unsqueeze(0) for a single feature map")
    if not input.is_floating_point():
        raise _C.DTypeError(f"roi_align: input must be floating point, got {input.dtype}\n  fix: input.float()")
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    n, channels, height, width = input.shape
    rows = regions(boxes, "roi_align", n)
    if not rows:
        return gg.zeros(0, channels, out_h, out_w, dtype=input.dtype, device=input.device)
    dt = np.dtype(np.float64 if input.dtype == gg.float64 else np.float32)
    r = np.asarray(rows, dtype=np.float64)
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = ((r[:, j] * spatial_scale - offset).astype(dt) for j in range(1, 5))
    w, h = (x2 - x1).astype(dt), (y2 - y1).astype(dt)
    if not aligned:
        w, h = np.maximum(w, 1).astype(dt), np.maximum(h, 1).astype(dt)
    grid_h: np.ndarray
    grid_w: np.ndarray
    if sampling_ratio > 0:
        grid_h = grid_w = np.full(len(r), sampling_ratio, dtype=np.int64)
    else:
        grid_h = np.ceil(h / dt.type(out_h)).astype(np.int64)
        grid_w = np.ceil(w / dt.type(out_w)).astype(np.int64)
    count = np.maximum(grid_h * grid_w, 1).astype(np.float64)
    a_y = _axis_weights(y1, h, out_h, grid_h, height, dt) / count[:, None, None]
    a_x = _axis_weights(x1, w, out_w, grid_w, width, dt)
    image = r[:, 0].astype(np.int64)
    out = []
    for b in range(n):
        picked = np.nonzero(image == b)[0]
        if len(picked) == 0:
            continue
        k = len(picked)
        ay = gg.tensor(a_y[picked].reshape(k * out_h, height), dtype=input.dtype, device=input.device)
        ax = gg.tensor(a_x[picked].transpose(0, 2, 1).copy(), dtype=input.dtype, device=input.device)
        plane = input[b].permute(1, 0, 2).reshape(height, channels * width)
        rows_done = gg.matmul(ay, plane).reshape(k, out_h * channels, width)
        pooled = gg.matmul(rows_done, ax).reshape(k, out_h, channels, out_w).permute(0, 2, 1, 3)
        out.append((picked, pooled))
    order = np.concatenate([p for p, _ in out])
    result = gg.cat([t for _, t in out]) if len(out) > 1 else out[0][1]
    if not np.array_equal(order, np.arange(len(r))):
        result = result.index_select(0, gg.tensor(np.argsort(order), dtype=gg.int64, device=input.device))
    return result.contiguous()


class RoIAlign(nn.Module):
    """torchvision.ops.RoIAlign(output_size, spatial_scale, sampling_ratio, aligned=False):
    roi_align as a module."""

    def __init__(self, output_size: Union[int, Tuple[int, int]], spatial_scale: float, sampling_ratio: int,
                 aligned: bool = False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input: Tensor, rois: Union[Tensor, Sequence[Tensor]]) -> Tensor:
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")

