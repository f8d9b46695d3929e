"""torchvision.models.segmentation._utils: _SimpleSegmentationModel, the body FCN and DeepLabV3
share. Its backbone (an IntermediateLayerGetter) returns {"out": features, "aux": features}; the
classifier's output, and the auxiliary classifier's where there is one, are resized back to the
input's height and width (bilinear, align_corners=False) and returned as an OrderedDict under the
same keys, as torchvision's."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Dict, Optional

from .... import nn
from ....nn import functional as F
from ...._tensor import Tensor
from .._weights import refuse_pretrained

__all__ = ["_SimpleSegmentationModel"]


class _SimpleSegmentationModel(nn.Module):
    __constants__ = ["aux_classifier"]

    def __init__(self, backbone: nn.Module, classifier: nn.Module, aux_classifier: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        size = x.shape[-2:]
        features = self.backbone(x)
        result: "OrderedDict[str, Tensor]" = OrderedDict()
        result["out"] = F.interpolate(self.classifier(features["out"]), size=size, mode="bilinear",
                                      align_corners=False)
        if self.aux_classifier is not None:
            result["aux"] = F.interpolate(self.aux_classifier(features["aux"]), size=size, mode="bilinear",
                                          align_corners=False)
        return result


def segmentation_backbone(name: str, weights: Any, weights_backbone: Any, num_classes: Optional[int],
                          kwargs: Dict[str, Any], build_backbone: Callable[..., nn.Module]) -> tuple:
    """The checks every segmentation builder shares: weights (or pretrained=True) and
    weights_backbone (or pretrained_backbone=True) refuse, as nothing is bundled or downloaded;
    num_classes defaults to 21 (Pascal VOC's, as torchvision's). Returns (backbone, num_classes)."""
    refuse_pretrained(name, weights, kwargs)
    if kwargs.pop("pretrained_backbone", False) and weights_backbone is None:
        weights_backbone = "pretrained_backbone=True"
    return build_backbone(weights=weights_backbone), 21 if num_classes is None else num_classes
