"""torchvision.ops.boxes with torchvision's conventions: boxes are (x1, y1, x2, y2) rows (the
"xyxy" format) with 0 <= x1 < x2 and 0 <= y1 < y2, in a [..., N, 4] tensor.

- box_convert(boxes, in_fmt, out_fmt) between "xyxy", "xywh" (corner, width, height) and
  "cxcywh" (centre, width, height); box_area and box_iou also take those formats (fmt=);
- box_iou / generalized_box_iou / distance_box_iou / complete_box_iou -> [..., N, M] for every
  pair (IoU; GIoU subtracts the share of the smallest enclosing box the union leaves empty; DIoU
  the squared centre distance over the squared enclosing diagonal (+ eps); CIoU also an
  aspect-ratio term alpha * v whose alpha is a constant of the backward pass, as torchvision's);
- nms / batched_nms -> int64 indices kept, by decreasing score (batched_nms: boxes of
  different categories never suppress each other);
- remove_small_boxes -> the indices of boxes whose sides are both >= min_size;
  clip_boxes_to_image(boxes, (height, width)) clamps x to [0, width] and y to [0, height];
- masks_to_boxes(masks [N, H, W]) -> float [N, 4] of the inclusive pixel extent of each
  nonzero mask ([0, 0, 0, 0] for an empty one).

The arithmetic is glassgrad's, so every float output is differentiable in the boxes. Integer
boxes are computed as int32/int64 for areas and as float for IoUs (torchvision's _upcast).
The rotated formats (xywhr, cxcywhr, xyxyxyxy) are not supported."""
from __future__ import annotations

# The tensor arguments are left unannotated: Tensor's operators and most of its methods are attached
# at import (_methods.py), so the type checker knows Tensor's class but not its arithmetic.

from typing import List, Tuple

from ... import _C

__all__ = ["batched_nms", "box_area", "box_convert", "box_iou", "clip_boxes_to_image", "complete_box_iou",
           "distance_box_iou", "generalized_box_iou", "masks_to_boxes", "nms", "remove_small_boxes"]

_FORMATS = ("xyxy", "xywh", "cxcywh")


def _gg():
    import glassgrad
    return glassgrad


def _upcast(t):
    """float16/bfloat16 -> float32 and small integers -> int32 (torchvision's _upcast)."""
    gg = _gg()
    if t.is_floating_point():
        return t if t.dtype in (gg.float32, gg.float64) else t.float()
    return t if t.dtype in (gg.int32, gg.int64) else t.int()


def _check_format(fmt: str, what: str) -> None:
    if fmt not in _FORMATS:
        raise ValueError(f"{what}: unsupported box format {fmt!r}\n  fix: one of 'xyxy', 'xywh', 'cxcywh' (the rotated "
                         "formats xywhr, cxcywhr and xyxyxyxy are not supported by glassgrad)")


def _to_xyxy(boxes, fmt: str):
    gg = _gg()
    if fmt == "xyxy":
        return boxes
    a, b, w, h = boxes.unbind(-1)
    if fmt == "xywh":
        return gg.stack([a, b, a + w, b + h], dim=-1)
    return gg.stack([a - 0.5 * w, b - 0.5 * h, a + 0.5 * w, b + 0.5 * h], dim=-1)


def _from_xyxy(boxes, fmt: str):
    gg = _gg()
    if fmt == "xyxy":
        return boxes
    x1, y1, x2, y2 = boxes.unbind(-1)
    w, h = x2 - x1, y2 - y1
    if fmt == "xywh":
        return gg.stack([x1, y1, w, h], dim=-1)
    return gg.stack([(x1 + x2) / 2, (y1 + y2) / 2, w, h], dim=-1)


def box_convert(boxes, in_fmt: str, out_fmt: str):
    """boxes [..., 4] from in_fmt to out_fmt (torchvision.ops.box_convert): "xyxy" corners,
    "xywh" top-left corner and size, "cxcywh" centre and size. The same format gives a clone."""
    if in_fmt not in _FORMATS or out_fmt not in _FORMATS:
        _check_format(in_fmt if in_fmt not in _FORMATS else out_fmt, "box_convert")
    if in_fmt == out_fmt:
        return boxes.clone()
    return _from_xyxy(_to_xyxy(boxes, in_fmt), out_fmt)


def box_area(boxes, fmt: str = "xyxy"):
    """[..., N]: the area of each box of [..., N, 4] (torchvision.ops.box_area)."""
    _check_format(fmt, "box_area")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _inter_union(boxes1, boxes2, fmt: str = "xyxy"):
    """Pairwise intersection and union areas, [..., N, M]."""
    gg = _gg()
    _check_format(fmt, "box_iou")
    area1, area2 = box_area(boxes1, fmt), box_area(boxes2, fmt)
    a, b = _to_xyxy(boxes1, fmt), _to_xyxy(boxes2, fmt)
    top_left = gg.maximum(a[..., :, None, :2], b[..., None, :, :2])
    bottom_right = gg.minimum(a[..., :, None, 2:], b[..., None, :, 2:])
    sides = _upcast(bottom_right - top_left).clamp(min=0)
    inter = sides[..., 0] * sides[..., 1]
    return inter, area1[..., :, None] + area2[..., None, :] - inter


def box_iou(boxes1, boxes2, fmt: str = "xyxy"):
    """[..., N, M]: the intersection over union of every pair of boxes1 [..., N, 4] and boxes2
    [..., M, 4] (torchvision.ops.box_iou)."""
    inter, union = _inter_union(boxes1, boxes2, fmt)
    return inter / union


def _enclosing_sides(boxes1, boxes2):
    """[..., N, M, 2]: the width and height of the smallest box holding each pair."""
    gg = _gg()
    top_left = gg.minimum(boxes1[..., :, None, :2], boxes2[..., None, :, :2])
    bottom_right = gg.maximum(boxes1[..., :, None, 2:], boxes2[..., None, :, 2:])
    return _upcast(bottom_right - top_left).clamp(min=0)


def generalized_box_iou(boxes1, boxes2):
    """[..., N, M]: IoU minus (enclosing area - union) / enclosing area for every pair
    (torchvision.ops.generalized_box_iou; Rezatofighi et al. 2019)."""
    inter, union = _inter_union(boxes1, boxes2)
    sides = _enclosing_sides(boxes1, boxes2)
    enclosing = sides[..., 0] * sides[..., 1]
    return inter / union - (enclosing - union) / enclosing


def _diou_iou(boxes1, boxes2, eps: float):
    iou = box_iou(boxes1, boxes2)
    sides = _enclosing_sides(boxes1, boxes2)
    diagonal_sq = sides[..., 0] ** 2 + sides[..., 1] ** 2 + eps
    cx1, cy1 = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    cx2, cy2 = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centre_sq = _upcast(cx1[..., :, None] - cx2[..., None, :]) ** 2 + _upcast(cy1[..., :, None] - cy2[..., None, :]) ** 2
    return iou - centre_sq / diagonal_sq, iou


def distance_box_iou(boxes1, boxes2, eps: float = 1e-7):
    """[..., N, M]: IoU minus the squared distance of the centres over the squared diagonal of
    the enclosing box (+ eps) (torchvision.ops.distance_box_iou; Zheng et al. 2019)."""
    return _diou_iou(_upcast(boxes1), _upcast(boxes2), eps)[0]


def aspect_term(w1, h1, w2, h2):
    """CIoU's v = 4 / pi^2 * (atan(w2 / h2) - atan(w1 / h1))^2."""
    gg = _gg()
    return (4 / gg.pi ** 2) * (gg.atan(w2 / h2) - gg.atan(w1 / h1)) ** 2


def complete_box_iou(boxes1, boxes2, eps: float = 1e-7):
    """[..., N, M]: DIoU minus alpha * v, v the aspect-ratio disagreement and alpha =
    v / (1 - IoU + v + eps) held constant in the backward pass (torchvision.ops.complete_box_iou)."""
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _diou_iou(boxes1, boxes2, eps)
    w1, h1 = boxes1[..., :, None, 2] - boxes1[..., :, None, 0], boxes1[..., :, None, 3] - boxes1[..., :, None, 1]
    w2, h2 = boxes2[..., None, :, 2] - boxes2[..., None, :, 0], boxes2[..., None, :, 3] - boxes2[..., None, :, 1]
    v = aspect_term(w1, h1, w2, h2)
    alpha = (v / (1 - iou + v + eps)).detach()  # a constant of the backward pass, as torchvision's no_grad
    return diou - alpha * v


def _check_nms_args(what: str, boxes, scores) -> None:
    if boxes.ndim != 2 or boxes.shape[-1] != 4 or tuple(scores.shape) != (boxes.shape[0],):
        raise _C.ShapeError(f"{what}: boxes must be [N, 4] and scores [N], got {list(boxes.shape)} and "
                            f"{list(scores.shape)}\n  fix: one score per (x1, y1, x2, y2) row")


def _nms_order(boxes, scores, iou_threshold: float) -> List[int]:
    order = scores.detach().argsort(descending=True, stable=True).tolist()
    iou = box_iou(boxes.detach(), boxes.detach()).tolist()
    kept: List[int] = []
    for i in order:
        if all(iou[i][k] <= iou_threshold for k in kept):
            kept.append(i)
    return kept


def nms(boxes, scores, iou_threshold: float):
    """The int64 indices of the boxes [N, 4] kept by non-maximum suppression, by decreasing score
    (torchvision.ops.nms): a box is dropped when it overlaps a kept box of higher score by an IoU
    above iou_threshold."""
    _check_nms_args("nms", boxes, scores)
    return _gg().tensor(_nms_order(boxes, scores, iou_threshold), dtype=_gg().int64, device=boxes.device)


def batched_nms(boxes, scores, idxs, iou_threshold: float):
    """nms within each category idxs [N] (torchvision.ops.batched_nms): the int64 indices kept
    over all categories, by decreasing score."""
    gg = _gg()
    _check_nms_args("batched_nms", boxes, scores)
    if tuple(idxs.shape) != (boxes.shape[0],):
        raise _C.ShapeError(f"batched_nms: idxs must be [N] = [{boxes.shape[0]}] (one category per box), got "
                            f"{list(idxs.shape)}")
    categories = idxs.detach().tolist()
    kept: List[int] = []
    for c in sorted(set(categories)):
        members = [i for i, k in enumerate(categories) if k == c]
        pick = gg.tensor(members, dtype=gg.int64, device=boxes.device)
        kept += [members[j] for j in _nms_order(boxes[pick], scores[pick], iou_threshold)]
    flat = scores.detach().tolist()
    kept.sort(key=lambda i: -flat[i])  # stable: equal scores keep category, then score order
    return gg.tensor(kept, dtype=gg.int64, device=boxes.device)


def remove_small_boxes(boxes, min_size: float):
    """The int64 indices of the boxes [N, 4] whose width and height are both >= min_size
    (torchvision.ops.remove_small_boxes)."""
    gg = _gg()
    keep = ((boxes[..., 2] - boxes[..., 0]) >= min_size) & ((boxes[..., 3] - boxes[..., 1]) >= min_size)
    return gg.where(keep)[0]


def clip_boxes_to_image(boxes, size: Tuple[int, int]):
    """boxes [..., 4] with x clamped to [0, width] and y to [0, height], size = (height, width)
    (torchvision.ops.clip_boxes_to_image)."""
    gg = _gg()
    height, width = size
    xs = boxes[..., 0::2].clamp(min=0, max=width)
    ys = boxes[..., 1::2].clamp(min=0, max=height)
    return gg.stack([xs, ys], dim=boxes.dim()).reshape(boxes.shape)


def masks_to_boxes(masks):
    """float32 [N, 4]: (x1, y1, x2, y2) the first and last nonzero column and row of each mask of
    [N, H, W], inclusive; [0, 0, 0, 0] for an empty mask (torchvision.ops.masks_to_boxes)."""
    gg = _gg()
    if masks.numel() == 0:
        return gg.zeros((0, 4), dtype=gg.float32, device=masks.device)
    if masks.ndim != 3:
        raise _C.ShapeError(f"masks_to_boxes: masks must be [N, H, W], got {list(masks.shape)}\n  fix: "
                            "masks.unsqueeze(0) for a single mask")
    _, h, w = masks.shape
    rows = gg.any(masks.bool(), dim=2).float()
    cols = gg.any(masks.bool(), dim=1).float()
    y1, x1 = rows.argmax(dim=1), cols.argmax(dim=1)
    y2 = (h - 1) - rows.flip(dims=[1]).argmax(dim=1)
    x2 = (w - 1) - cols.flip(dims=[1]).argmax(dim=1)
    out = gg.stack([x1, y1, x2, y2], dim=1).float()
    return out * (rows.amax(dim=1) > 0).float()[:, None]
