"""torchvision.ops.roi_pool and RoIPool: Fast R-CNN's region max pooling, [K, C, h, w] from
input [N, C, H, W]. Each region, scaled by spatial_scale and rounded to whole pixels (half away
from zero, both ends included), is cut into h x w bins (bin edges floored and ceiled), each the
maximum of its pixels, 0 for an empty bin. boxes is a [K, 5] tensor of (batch index, x1, y1, x2,
y2) rows or a list of [L, 4] tensors, one per image. Composed of slices and amax, so the input's
gradient flows to each bin's maximum; the regions are read as plain numbers (no gradient reaches
the boxes, as torchvision's)."""
from __future__ import annotations

import math
from typing import Sequence, Tuple, Union

from ... import _C, nn
from ..._tensor import Tensor
from ._rois import half_away, regions


def _glassgrad():
    import glassgrad
    return glassgrad


def roi_pool(input: Tensor, boxes: Union[Tensor, Sequence[Tensor]], output_size: Union[int, Tuple[int, int]],
             spatial_scale: float = 1.0) -> Tensor:
    """Region max pooling (torchvision.ops.roi_pool): [K, C, h, w] from input [N, C, H, W]."""
    gg = _glassgrad()
    if input.ndim != 4:
        raise _C.ShapeError(f"roi_pool: input must be [N, C, H, W], got {list(input.shape)}")
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    n, channels, height, width = input.shape
    pooled = []
    for b, x1, y1, x2, y2 in regions(boxes, "roi_pool", n):
        start_w, start_h = half_away(x1 * spatial_scale), half_away(y1 * spatial_scale)
        end_w, end_h = half_away(x2 * spatial_scale), half_away(y2 * spatial_scale)
        bin_h = max(end_h - start_h + 1, 1) / out_h
        bin_w = max(end_w - start_w + 1, 1) / out_w
        cells = []
        for ph in range(out_h):
            h0 = min(max(math.floor(ph * bin_h) + start_h, 0), height)
            h1 = min(max(math.ceil((ph + 1) * bin_h) + start_h, 0), height)
            for pw in range(out_w):
                w0 = min(max(math.floor(pw * bin_w) + start_w, 0), width)
                w1 = min(max(math.ceil((pw + 1) * bin_w) + start_w, 0), width)
                if h1 <= h0 or w1 <= w0:
                    cells.append(gg.zeros(channels, dtype=input.dtype, device=input.device))
                else:
                    cells.append(gg.amax(input[int(b), :, h0:h1, w0:w1], dim=(-2, -1)))
        if cells:
            pooled.append(gg.stack(cells, dim=-1).view(channels, out_h, out_w))
    if not pooled:
        return gg.zeros(0, channels, out_h, out_w, dtype=input.dtype, device=input.device)
    return gg.stack(pooled)


class RoIPool(nn.Module):
    """torchvision.ops.RoIPool(output_size, spatial_scale): roi_pool as a module."""

    def __init__(self, output_size: Union[int, Tuple[int, int]], spatial_scale: float):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input: Tensor, rois: Union[Tensor, Sequence[Tensor]]) -> Tensor:
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
