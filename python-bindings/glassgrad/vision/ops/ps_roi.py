"""torchvision.ops.ps_roi_align / PSRoIAlign and ps_roi_pool / PSRoIPool (position-sensitive
region pooling, Dai et al. 2016, R-FCN): the input has C * h * w channels and output bin (i, j) of
output channel c reads input channel (c * h + i) * w + j only; [K, C, h, w].

ps_roi_align samples as roi_align with the half-pixel offset (aligned=True): it is roi_align on
every channel, of which each bin keeps its own channel. ps_roi_pool averages each bin's pixels,
the region's corners rounded half away from zero and its sides at least 1, bin edges floored and
ceiled and clamped to [0, size - 1] (so the last row and column are
never read, as torchvision's kernel clamps them), an empty bin 0. Both are composed of glassgrad ops: the input gradient is exact, the
boxes get none, as torchvision's."""
from __future__ import annotations

import math
from typing import Any, Sequence, Tuple, Union

from ... import _C, nn
from ..._tensor import Tensor
from ._rois import half_away, regions
from .roi_align import roi_align

__all__ = ["PSRoIAlign", "PSRoIPool", "ps_roi_align", "ps_roi_pool"]


def _out_channels(what: str, input, out_h: int, out_w: int) -> int:
    if input.ndim != 4:
        raise _C.ShapeError(f"{what}: input must be [N, C, H, W], got {list(input.shape)}")
    if input.shape[1] % (out_h * out_w) != 0:
        raise ValueError(f"{what}: input channels must be a multiple of output h*w = {out_h * out_w}, got "
                         f"{input.shape[1]}\n  fix: C * {out_h} * {out_w} input channels for C output channels")
    return input.shape[1] // (out_h * out_w)


def _pair(output_size) -> Tuple[int, int]:
    return (output_size, output_size) if isinstance(output_size, int) else (int(output_size[0]), int(output_size[1]))


def ps_roi_align(input, boxes: Union[Tensor, Sequence[Tensor]], output_size, spatial_scale: float = 1.0,
                 sampling_ratio: int = -1) -> Tensor:
    """Position-sensitive roi_align (torchvision.ops.ps_roi_align): [K, C, h, w] from
    [N, C * h * w, H, W]."""
    out_h, out_w = _pair(output_size)
    channels = _out_channels("ps_roi_align", input, out_h, out_w)
    pooled: Any = roi_align(input, boxes, (out_h, out_w), spatial_scale, sampling_ratio, aligned=True)
    k = pooled.shape[0]
    bins = out_h * out_w
    every = pooled.reshape(k, channels, bins, bins)  # [K, C, own bin, sampled bin]
    return every.diagonal(dim1=2, dim2=3).reshape(k, channels, out_h, out_w)


def ps_roi_pool(input, boxes: Union[Tensor, Sequence[Tensor]], output_size,
                spatial_scale: float = 1.0) -> Tensor:
    """Position-sensitive average region pooling (torchvision.ops.ps_roi_pool): [K, C, h, w] from
    [N, C * h * w, H, W]."""
    import glassgrad as gg
    out_h, out_w = _pair(output_size)
    channels = _out_channels("ps_roi_pool", input, out_h, out_w)
    n, _, height, width = input.shape
    out = []
    for b, x1, y1, x2, y2 in regions(boxes, "ps_roi_pool", n):
        start_w, start_h = half_away(x1 * spatial_scale), half_away(y1 * spatial_scale)
        bin_w = max(half_away(x2 * spatial_scale) - start_w, 1) / out_w
        bin_h = max(half_away(y2 * spatial_scale) - start_h, 1) / out_h
        cells = []
        for i in range(out_h):
            h0 = min(max(math.floor(i * bin_h) + start_h, 0), height - 1)
            h1 = min(max(math.ceil((i + 1) * bin_h) + start_h, 0), height - 1)
            for j in range(out_w):
                w0 = min(max(math.floor(j * bin_w) + start_w, 0), width - 1)
                w1 = min(max(math.ceil((j + 1) * bin_w) + start_w, 0), width - 1)
                if h1 <= h0 or w1 <= w0:
                    cells.append(gg.zeros(channels, dtype=input.dtype, device=input.device))
                    continue
                chans = gg.tensor([(c * out_h + i) * out_w + j for c in range(channels)], dtype=gg.int64,
                                  device=input.device)
                cells.append(input[int(b)].index_select(0, chans)[:, h0:h1, w0:w1].mean(dim=(-2, -1)))
        out.append(gg.stack(cells, dim=-1).reshape(channels, out_h, out_w))
    if not out:
        return gg.zeros(0, channels, out_h, out_w, dtype=input.dtype, device=input.device)
    return gg.stack(out)


class PSRoIAlign(nn.Module):
    """torchvision.ops.PSRoIAlign(output_size, spatial_scale, sampling_ratio)."""

    def __init__(self, output_size, spatial_scale: float, sampling_ratio: int):
        super().__init__()
        self.output_size, self.spatial_scale, self.sampling_ratio = output_size, spatial_scale, sampling_ratio

    def forward(self, input: Tensor, rois) -> Tensor:
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio})")


class PSRoIPool(nn.Module):
    """torchvision.ops.PSRoIPool(output_size, spatial_scale)."""

    def __init__(self, output_size, spatial_scale: float):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, input: Tensor, rois) -> Tensor:
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
