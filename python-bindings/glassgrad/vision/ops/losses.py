"""torchvision.ops' detection losses: generalized_box_iou_loss, distance_box_iou_loss,
complete_box_iou_loss (one box of boxes1 [..., 4] against the matching box of boxes2, not every
pair) and sigmoid_focal_loss (Lin et al. 2017, RetinaNet), each with reduction "none" | "mean" |
"sum" as torchvision's. Composed of glassgrad's arithmetic, so each is differentiable in its
float inputs; integer boxes are computed as float32."""
from __future__ import annotations

# The tensor arguments are left unannotated: Tensor's operators are attached
# at import (_methods.py), so the type checker knows Tensor's class but not its arithmetic.

from ..._tensor import Tensor
from .boxes import aspect_term

__all__ = ["complete_box_iou_loss", "distance_box_iou_loss", "generalized_box_iou_loss", "sigmoid_focal_loss"]


def _gg():
    import glassgrad
    return glassgrad


def _as_float(t):
    gg = _gg()
    return t if t.dtype in (gg.float32, gg.float64) else t.float()


def _reduce(loss, reduction: str, what: str, empty_mean_zero: bool = True):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 or not empty_mean_zero else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{what}: invalid reduction {reduction!r}\n  fix: reduction='none', 'mean' or 'sum'")


def _inter_union(boxes1, boxes2):
    """Intersection and union of matching boxes; no overlap gives an intersection of exactly 0."""
    gg = _gg()
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    w = gg.minimum(x2, u2) - gg.maximum(x1, u1)
    h = gg.minimum(y2, v2) - gg.maximum(y1, v1)
    overlap = ((w > 0) & (h > 0)).to(w.dtype)
    inter = w * h * overlap
    return inter, (x2 - x1) * (y2 - y1) + (u2 - u1) * (v2 - v1) - inter


def _enclosing(boxes1, boxes2):
    gg = _gg()
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    return gg.maximum(x2, u2) - gg.minimum(x1, u1), gg.maximum(y2, v2) - gg.minimum(y1, v1)


def generalized_box_iou_loss(boxes1, boxes2, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    """1 - GIoU of matching boxes: 1 - inter / (union + eps) + (C - union) / (C + eps), C the
    area of the smallest enclosing box (torchvision.ops.generalized_box_iou_loss)."""
    boxes1, boxes2 = _as_float(boxes1), _as_float(boxes2)
    inter, union = _inter_union(boxes1, boxes2)
    cw, ch = _enclosing(boxes1, boxes2)
    area_c = cw * ch
    loss = 1 - (inter / (union + eps) - (area_c - union) / (area_c + eps))
    return _reduce(loss, reduction, "generalized_box_iou_loss")


def _diou_loss(boxes1, boxes2, eps: float):
    inter, union = _inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    cw, ch = _enclosing(boxes1, boxes2)
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    centre_sq = ((x1 + x2) / 2 - (u1 + u2) / 2) ** 2 + ((y1 + y2) / 2 - (v1 + v2) / 2) ** 2
    return 1 - iou + centre_sq / (cw ** 2 + ch ** 2 + eps), iou


def distance_box_iou_loss(boxes1, boxes2, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    """1 - IoU + (squared centre distance) / (squared enclosing diagonal + eps) of matching boxes
    (torchvision.ops.distance_box_iou_loss)."""
    loss, _ = _diou_loss(_as_float(boxes1), _as_float(boxes2), eps)
    return _reduce(loss, reduction, "distance_box_iou_loss")


def complete_box_iou_loss(boxes1, boxes2, reduction: str = "none", eps: float = 1e-7) -> Tensor:
    """The DIoU loss + alpha * v, v the aspect-ratio disagreement and alpha = v / (1 - IoU + v +
    eps) held constant in the backward pass (torchvision.ops.complete_box_iou_loss). As
    torchvision's, the DIoU part uses the default eps 1e-7 whatever eps is."""
    boxes1, boxes2 = _as_float(boxes1), _as_float(boxes2)
    diou, iou = _diou_loss(boxes1, boxes2, 1e-7)
    x1, y1, x2, y2 = boxes1.unbind(-1)
    u1, v1, u2, v2 = boxes2.unbind(-1)
    v = aspect_term(x2 - x1, y2 - y1, u2 - u1, v2 - v1)
    alpha = (v / (1 - iou + v + eps)).detach()  # a constant of the backward pass, as torchvision's no_grad
    return _reduce(diou + alpha * v, reduction, "complete_box_iou_loss")


def sigmoid_focal_loss(inputs, targets, alpha: float = 0.25, gamma: float = 2,
                       reduction: str = "none") -> Tensor:
    """RetinaNet's focal loss of logits `inputs` against binary `targets` of the same shape
    (torchvision.ops.sigmoid_focal_loss): BCE-with-logits * (1 - p_t) ** gamma, times
    alpha * t + (1 - alpha) * (1 - t) unless alpha = -1."""
    import glassgrad.nn.functional as F
    gg = _gg()
    if not (0 <= alpha <= 1) and alpha != -1:
        raise ValueError(f"sigmoid_focal_loss: invalid alpha {alpha}\n  fix: an alpha in [0, 1], or -1 for no "
                         "class weighting")
    p = gg.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return _reduce(loss, reduction, "sigmoid_focal_loss", empty_mean_zero=False)
