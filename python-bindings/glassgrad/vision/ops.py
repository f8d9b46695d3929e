"""torchvision.ops's box operations with torchvision's conventions: boxes are (x1, y1, x2, y2)
rows, 0 <= x1 < x2 and 0 <= y1 < y2.

- box_area(boxes) -> [N]; box_iou(boxes1, boxes2) -> [N, M] intersection over union;
- nms(boxes, scores, iou_threshold) -> the int64 indices of the boxes kept, by decreasing score:
  each kept box drops the later ones that overlap it by more than iou_threshold;
- roi_pool(input, boxes, output_size, spatial_scale=1.0) -> [K, C, h, w]: Fast R-CNN's region
  max pooling. Each region, scaled by spatial_scale and rounded to whole pixels (half away from
  zero, both ends included), is cut into h x w bins (bin edges floored and ceiled), each the
  maximum of its pixels, 0 for an empty bin. boxes is a [K, 5] tensor of (batch index, x1, y1,
  x2, y2) rows or a list of [L, 4] tensors, one per image. Composed of slices and amax, so the
  input's gradient flows to each bin's maximum; the regions are read as plain numbers (no
  gradient reaches the boxes, as torchvision's).

The layers torchvision.ops also holds (Conv2dNormActivation, MLP, Permute, SqueezeExcitation,
StochasticDepth) are the ones glassgrad.vision.models builds its networks of."""
from __future__ import annotations

# The box arguments are left unannotated: Tensor's operators and most of its methods are attached
# at import (_methods.py), so the type checker knows Tensor's class but not its arithmetic.

import math
from typing import List, Sequence, Tuple, Union

from .. import _C
from .._tensor import Tensor
from .models._layers import MLP, Conv2dNormActivation, Permute, SqueezeExcitation, StochasticDepth


def _glassgrad():
    import glassgrad
    return glassgrad


def box_area(boxes):
    """The area of each (x1, y1, x2, y2) row of boxes [N, 4] (torchvision.ops.box_area)."""
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2) -> Tensor:
    """[N, M]: the intersection over union of every pair of boxes1 [N, 4] and boxes2 [M, 4]."""
    gg = _glassgrad()
    top_left = gg.maximum(boxes1[:, None, :2], boxes2[None, :, :2])
    bottom_right = gg.minimum(boxes1[:, None, 2:], boxes2[None, :, 2:])
    sides = (bottom_right - top_left).clamp(min=0)
    inter = sides[..., 0] * sides[..., 1]
    return inter / (box_area(boxes1)[:, None] + box_area(boxes2)[None, :] - inter)


def nms(boxes, scores, iou_threshold: float) -> Tensor:
    """The int64 indices of the boxes [N, 4] kept by non-maximum suppression, by decreasing score
    (torchvision.ops.nms): a box is dropped when it overlaps a kept box of higher score by an IoU
    above iou_threshold."""
    gg = _glassgrad()
    if boxes.ndim != 2 or boxes.shape[-1] != 4 or scores.shape != (boxes.shape[0],):
        raise _C.ShapeError(f"nms: boxes must be [N, 4] and scores [N], got {list(boxes.shape)} and "
                            f"{list(scores.shape)}\n  fix: one score per (x1, y1, x2, y2) row")
    order = scores.detach().argsort(descending=True).tolist()
    iou = box_iou(boxes.detach(), boxes.detach()).tolist()
    kept: List[int] = []
    for i in order:
        if all(iou[i][k] <= iou_threshold for k in kept):
            kept.append(i)
    return gg.tensor(kept, dtype=gg.int64, device=boxes.device)


def _half_away(x: float) -> int:
    """C's round(): halves go away from zero (Python's round goes to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _regions(boxes: Union[Tensor, Sequence[Tensor]]) -> List[List[float]]:
    """(batch index, x1, y1, x2, y2) rows from a [K, 5] tensor or a list of [L, 4] tensors."""
    if isinstance(boxes, Tensor):
        if boxes.ndim != 2 or boxes.shape[1] != 5:
            raise _C.ShapeError(f"roi_pool: boxes as a tensor must be [K, 5] rows of (batch index, x1, y1, x2, y2), "
                                f"got {list(boxes.shape)}\n  fix: or pass a list of [L, 4] tensors, one per image")
        return boxes.detach().tolist()
    rows = []
    for b, per_image in enumerate(boxes):
        if per_image.ndim != 2 or per_image.shape[1] != 4:
            raise _C.ShapeError(f"roi_pool: boxes[{b}] must be [L, 4] rows of (x1, y1, x2, y2), got "
                                f"{list(per_image.shape)}")
        rows += [[float(b)] + r for r in per_image.detach().tolist()]
    return rows


def roi_pool(input: Tensor, boxes: Union[Tensor, Sequence[Tensor]], output_size: Union[int, Tuple[int, int]],
             spatial_scale: float = 1.0) -> Tensor:
    """Region max pooling (torchvision.ops.roi_pool): [K, C, h, w] from input [N, C, H, W]."""
    gg = _glassgrad()
    if input.ndim != 4:
        raise _C.ShapeError(f"roi_pool: input must be [N, C, H, W], got {list(input.shape)}")
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    n, channels, height, width = input.shape
    pooled = []
    for b, x1, y1, x2, y2 in _regions(boxes):
        if not 0 <= int(b) < n:
            raise _C.GlassgradIndexError(f"roi_pool: a box names image {int(b)} of a batch of {n}\n  fix: the "
                                         "first column of each row is an index into the batch")
        start_w, start_h = _half_away(x1 * spatial_scale), _half_away(y1 * spatial_scale)
        end_w, end_h = _half_away(x2 * spatial_scale), _half_away(y2 * spatial_scale)
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


__all__ = ["box_area", "box_iou", "nms", "roi_pool", "Conv2dNormActivation", "MLP", "Permute", "SqueezeExcitation",
           "StochasticDepth"]
