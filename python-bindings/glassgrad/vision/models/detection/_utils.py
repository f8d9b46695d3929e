"""torchvision.models.detection._utils: the pieces every detector shares, as torchvision's.

- BalancedPositiveNegativeSampler(batch_size_per_image, positive_fraction): per image, uint8 masks
  of the positives (matched index >= 1) and negatives (0) drawn at random (randperm), at most
  batch_size_per_image * positive_fraction positives, the rest negatives;
- BoxCoder(weights, bbox_xform_clip): Faster R-CNN's box deltas (dx, dy, dw, dh) times weights,
  encode(gt, proposals) and decode(deltas, boxes), with dw, dh clamped at bbox_xform_clip;
- BoxLinearCoder: FCOS's distances from an anchor's centre to the four sides;
- Matcher(high, low, allow_low_quality_matches) / SSDMatcher(threshold): each prediction's best
  ground truth by quality (IoU), -1 below low, -2 between the thresholds;
- overwrite_eps, retrieve_out_channels, _box_loss (l1, smooth_l1, giou, diou, ciou).

Index tensors are int64 and the random draws use glassgrad's generator (glassgrad.manual_seed),
so a run draws other samples than PyTorch's (docs/porting.md)."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Dict, Optional

import glassgrad as gg
from .... import nn
from ...._tensor import Tensor
from ....nn import functional as F
from ...ops import complete_box_iou_loss, distance_box_iou_loss, FrozenBatchNorm2d, generalized_box_iou_loss


class BalancedPositiveNegativeSampler:
    def __init__(self, batch_size_per_image: int, positive_fraction: float) -> None:
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs: list[Any]) -> tuple[list[Any], list[Any]]:
        pos_idx = []
        neg_idx = []
        for matched_idxs_per_image in matched_idxs:
            positive = gg.where(matched_idxs_per_image >= 1)[0]
            negative = gg.where(matched_idxs_per_image == 0)[0]
            num_pos = int(self.batch_size_per_image * self.positive_fraction)
            num_pos = min(positive.numel(), num_pos)
            num_neg = self.batch_size_per_image - num_pos
            num_neg = min(negative.numel(), num_neg)
            perm1 = gg.randperm(positive.numel(), device=positive.device)[:num_pos]
            perm2 = gg.randperm(negative.numel(), device=negative.device)[:num_neg]
            pos_idx_per_image = positive[perm1]
            neg_idx_per_image = negative[perm2]
            pos_idx_per_image_mask = gg.zeros_like(matched_idxs_per_image, dtype=gg.uint8)
            neg_idx_per_image_mask = gg.zeros_like(matched_idxs_per_image, dtype=gg.uint8)
            pos_idx_per_image_mask[pos_idx_per_image] = 1
            neg_idx_per_image_mask[neg_idx_per_image] = 1
            pos_idx.append(pos_idx_per_image_mask)
            neg_idx.append(neg_idx_per_image_mask)
        return (pos_idx, neg_idx)


def _assert(condition: bool, message: str) -> None:
    """torch._assert: an AssertionError with the message when the condition is false."""
    if not condition:
        raise AssertionError(message)


def encode_boxes(reference_boxes: Any, proposals: Any, weights: Any) -> Any:
    """[N, 4] deltas (wx * dx / w, wy * dy / h, ww * log(gt w / w), wh * log(gt h / h)) of the
    reference (ground-truth) boxes from the proposals, both [N, 4] xyxy."""
    wx, wy, ww, wh = weights[0], weights[1], weights[2], weights[3]
    ex_widths = proposals[:, 2:3] - proposals[:, 0:1]
    ex_heights = proposals[:, 3:4] - proposals[:, 1:2]
    ex_ctr_x = proposals[:, 0:1] + 0.5 * ex_widths
    ex_ctr_y = proposals[:, 1:2] + 0.5 * ex_heights
    gt_widths = reference_boxes[:, 2:3] - reference_boxes[:, 0:1]
    gt_heights = reference_boxes[:, 3:4] - reference_boxes[:, 1:2]
    gt_ctr_x = reference_boxes[:, 0:1] + 0.5 * gt_widths
    gt_ctr_y = reference_boxes[:, 1:2] + 0.5 * gt_heights
    targets_dx = wx * (gt_ctr_x - ex_ctr_x) / ex_widths
    targets_dy = wy * (gt_ctr_y - ex_ctr_y) / ex_heights
    targets_dw = ww * gg.log(gt_widths / ex_widths)
    targets_dh = wh * gg.log(gt_heights / ex_heights)
    return gg.cat((targets_dx, targets_dy, targets_dw, targets_dh), dim=1)


class BoxCoder:
    def __init__(
        self, weights: tuple[float, float, float, float], bbox_xform_clip: float = math.log(1000.0 / 16)
    ) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes: list[Any], proposals: list[Any]) -> list[Any]:
        boxes_per_image = [len(b) for b in reference_boxes]
        reference_boxes = gg.cat(reference_boxes, dim=0)
        proposals = gg.cat(proposals, dim=0)
        targets = self.encode_single(reference_boxes, proposals)
        return targets.split(boxes_per_image, 0)

    def encode_single(self, reference_boxes: Any, proposals: Any) -> Any:
        dtype = reference_boxes.dtype
        device = reference_boxes.device
        weights = gg.as_tensor(self.weights, dtype=dtype, device=device)
        targets = encode_boxes(reference_boxes, proposals, weights)
        return targets

    def decode(self, rel_codes: Any, boxes: list[Any]) -> Any:
        _assert(isinstance(boxes, (list, tuple)), "This function expects boxes of type list or tuple.")
        _assert(isinstance(rel_codes, Tensor), "This function expects rel_codes of type Tensor.")
        boxes_per_image = [b.size(0) for b in boxes]
        concat_boxes = gg.cat(boxes, dim=0)
        box_sum = 0
        for val in boxes_per_image:
            box_sum += val
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes: Any, boxes: Any) -> Any:
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = rel_codes[:, 2::4] / ww
        dh = rel_codes[:, 3::4] / wh
        dw = gg.clamp(dw, max=self.bbox_xform_clip)
        dh = gg.clamp(dh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = gg.exp(dw) * widths[:, None]
        pred_h = gg.exp(dh) * heights[:, None]
        c_to_c_h = gg.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
        c_to_c_w = gg.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w
        pred_boxes1 = pred_ctr_x - c_to_c_w
        pred_boxes2 = pred_ctr_y - c_to_c_h
        pred_boxes3 = pred_ctr_x + c_to_c_w
        pred_boxes4 = pred_ctr_y + c_to_c_h
        pred_boxes = gg.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=2).flatten(1)
        return pred_boxes


class BoxLinearCoder:
    def __init__(self, normalize_by_size: bool = True) -> None:
        self.normalize_by_size = normalize_by_size

    def encode(self, reference_boxes: Any, proposals: Any) -> Any:
        reference_boxes_ctr_x = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        reference_boxes_ctr_y = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        target_l = reference_boxes_ctr_x - proposals[..., 0]
        target_t = reference_boxes_ctr_y - proposals[..., 1]
        target_r = proposals[..., 2] - reference_boxes_ctr_x
        target_b = proposals[..., 3] - reference_boxes_ctr_y
        targets = gg.stack((target_l, target_t, target_r, target_b), dim=-1)
        if self.normalize_by_size:
            reference_boxes_w = reference_boxes[..., 2] - reference_boxes[..., 0]
            reference_boxes_h = reference_boxes[..., 3] - reference_boxes[..., 1]
            reference_boxes_size = gg.stack(
                (reference_boxes_w, reference_boxes_h, reference_boxes_w, reference_boxes_h), dim=-1
            )
            targets = targets / reference_boxes_size
        return targets

    def decode(self, rel_codes: Any, boxes: Any) -> Any:
        boxes = boxes.to(dtype=rel_codes.dtype)
        ctr_x = 0.5 * (boxes[..., 0] + boxes[..., 2])
        ctr_y = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            boxes_w = boxes[..., 2] - boxes[..., 0]
            boxes_h = boxes[..., 3] - boxes[..., 1]
            list_box_size = gg.stack((boxes_w, boxes_h, boxes_w, boxes_h), dim=-1)
            rel_codes = rel_codes * list_box_size
        pred_boxes1 = ctr_x - rel_codes[..., 0]
        pred_boxes2 = ctr_y - rel_codes[..., 1]
        pred_boxes3 = ctr_x + rel_codes[..., 2]
        pred_boxes4 = ctr_y + rel_codes[..., 3]
        pred_boxes = gg.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=-1)
        return pred_boxes


class Matcher:
    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2
    __annotations__ = {"BELOW_LOW_THRESHOLD": int, "BETWEEN_THRESHOLDS": int}

    def __init__(self, high_threshold: float, low_threshold: float, allow_low_quality_matches: bool = False) -> None:
        self.BELOW_LOW_THRESHOLD = -1
        self.BETWEEN_THRESHOLDS = -2
        _assert(low_threshold <= high_threshold, "low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix: Any) -> Any:
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during training")
            else:
                raise ValueError("No proposal boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        if self.allow_low_quality_matches:
            all_matches = matches.clone()
        else:
            all_matches = None
        below_low_threshold = matched_vals < self.low_threshold
        between_thresholds = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below_low_threshold] = self.BELOW_LOW_THRESHOLD
        matches[between_thresholds] = self.BETWEEN_THRESHOLDS
        if self.allow_low_quality_matches:
            if all_matches is None:
                _assert(False, "all_matches should not be None")
            else:
                self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches: Any, all_matches: Any, match_quality_matrix: Any) -> None:
        highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
        gt_pred_pairs_of_highest_quality = gg.where(match_quality_matrix == highest_quality_foreach_gt[:, None])
        pred_inds_to_update = gt_pred_pairs_of_highest_quality[1]
        matches[pred_inds_to_update] = all_matches[pred_inds_to_update]


class SSDMatcher(Matcher):
    def __init__(self, threshold: float) -> None:
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix: Any) -> Any:
        matches = super().__call__(match_quality_matrix)
        _, highest_quality_pred_foreach_gt = match_quality_matrix.max(dim=1)
        matches[highest_quality_pred_foreach_gt] = gg.arange(
            highest_quality_pred_foreach_gt.size(0), dtype=gg.int64, device=highest_quality_pred_foreach_gt.device
        )
        return matches


def overwrite_eps(model: nn.Module, eps: float) -> None:
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def retrieve_out_channels(model: nn.Module, size: tuple[int, int]) -> list[int]:
    in_training = model.training
    model.eval()
    with gg.no_grad():
        device = next(model.parameters()).device
        tmp_img = gg.zeros((1, 3, size[1], size[0]), device=device)
        features = model(tmp_img)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        out_channels = [x.size(1) for x in features.values()]
    if in_training:
        model.train()
    return out_channels


def _topk_min(input: Any, orig_kval: int, axis: int) -> int:
    """k for topk along axis: orig_kval, or the axis' length where that is smaller."""
    return min(orig_kval, input.size(axis))


def _box_loss(
    type: str,
    box_coder: BoxCoder,
    anchors_per_image: Any,
    matched_gt_boxes_per_image: Any,
    bbox_regression_per_image: Any,
    cnf: Optional[dict[str, float]] = None,
) -> Any:
    _assert(type in ["l1", "smooth_l1", "ciou", "diou", "giou"], f"Unsupported loss: {type}")
    if type == "l1":
        target_regression = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        return F.l1_loss(bbox_regression_per_image, target_regression, reduction="sum")
    elif type == "smooth_l1":
        target_regression = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        beta = cnf["beta"] if cnf is not None and "beta" in cnf else 1.0
        return F.smooth_l1_loss(bbox_regression_per_image, target_regression, reduction="sum", beta=beta)
    else:
        bbox_per_image = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
        eps = cnf["eps"] if cnf is not None and "eps" in cnf else 1e-07
        if type == "ciou":
            return complete_box_iou_loss(bbox_per_image, matched_gt_boxes_per_image, reduction="sum", eps=eps)
        if type == "diou":
            return distance_box_iou_loss(bbox_per_image, matched_gt_boxes_per_image, reduction="sum", eps=eps)
        return generalized_box_iou_loss(bbox_per_image, matched_gt_boxes_per_image, reduction="sum", eps=eps)


def builder_arguments(
    name: str,
    weights: Any,
    weights_backbone: Any,
    num_classes: Optional[int],
    kwargs: Dict[str, Any],
    default_classes: int = 91,
) -> int:
    """The checks every detection builder shares: weights (or pretrained=True) and weights_backbone
    (or pretrained_backbone=True) refuse, as nothing is bundled or downloaded; num_classes defaults
    to 91 (COCO's, as torchvision's; Keypoint R-CNN's 2). Returns num_classes."""
    from .._weights import refuse_pretrained

    refuse_pretrained(name, weights, kwargs)
    if kwargs.pop("pretrained_backbone", False) and weights_backbone is None:
        weights_backbone = "pretrained_backbone=True"
    refuse_pretrained(f"{name} backbone", weights_backbone, {})
    return default_classes if num_classes is None else num_classes
