"""torchvision.models.detection.generalized_rcnn.GeneralizedRCNN: transform, backbone, rpn and
roi_heads run in turn. forward(images: list of [C, H, W], targets=None) returns the loss dict in
training mode (targets required: each a dict with "boxes" [N, 4] float, "labels" [N] int64) and
the list of detections ({"boxes", "labels", "scores"}, in the original images' coordinates) in
eval mode, as torchvision's."""
# mypy: disable-error-code="assignment, attr-defined, operator, arg-type, return-value, index"
# (torchvision's algorithm rebinds a name from a list of tensors to their concatenation, and Tensor's
# operators are attached at import, so the checker knows neither; the tests run every path)

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Optional, Union

import glassgrad as gg
from .... import nn
from ...._tensor import Tensor
from ._utils import _assert


class GeneralizedRCNN(nn.Module):
    def __init__(self, backbone: nn.Module, rpn: nn.Module, roi_heads: nn.Module, transform: nn.Module) -> None:
        super().__init__()
        self.transform = transform
        self.backbone = backbone
        self.rpn = rpn
        self.roi_heads = roi_heads
        self._has_warned = False

    def forward(
        self, images: list[Any], targets: Optional[list[dict[str, Any]]] = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        if self.training:
            if targets is None:
                _assert(False, "targets should not be none when in training mode")
            else:
                for target in targets:
                    boxes = target["boxes"]
                    if isinstance(boxes, Tensor):
                        _assert(
                            len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                            f"Expected target boxes to be a tensor of shape [N, 4], got {boxes.shape}.",
                        )
                    else:
                        _assert(False, f"Expected target boxes to be of type Any, got {type(boxes)}.")
        original_image_sizes: list[tuple[int, int]] = []
        for img in images:
            val = img.shape[-2:]
            _assert(
                len(val) == 2,
                f"expecting the last two dimensions of the Any to be H and W instead got {img.shape[-2:]}",
            )
            original_image_sizes.append((val[0], val[1]))
        images, targets = self.transform(images, targets)
        if targets is not None:
            for target_idx, target in enumerate(targets):
                boxes = target["boxes"]
                degenerate_boxes = boxes[:, 2:] <= boxes[:, :2]
                if degenerate_boxes.any():
                    bb_idx = gg.where(degenerate_boxes.any(dim=1))[0][0]
                    degen_bb: list[float] = boxes[bb_idx].tolist()
                    _assert(
                        False,
                        f"All bounding boxes should have positive height and width. Found invalid box {degen_bb} for target at index {target_idx}.",
                    )
        features = self.backbone(images.tensors)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(features, proposals, images.image_sizes, targets)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        losses = {}
        losses.update(detector_losses)
        losses.update(proposal_losses)
        return self.eager_outputs(losses, detections)

    def eager_outputs(
        self, losses: dict[str, Any], detections: list[dict[str, Any]]
    ) -> Union[dict[str, Any], list[dict[str, Any]]]:
        if self.training:
            return losses
        return detections
