"""torchvision.models.segmentation.lraspp (Howard et al. 2019, "Searching for MobileNetV3"): LRASPP,
LRASPPHead and lraspp_mobilenet_v3_large with torchvision's arguments and submodule names. The
head reads MobileNetV3-Large's (last stage dilated) features at output stride 8 ("low") and 16
("high"): high goes through a 1x1 conv-BN-ReLU gated by a pooled sigmoid branch, is resized to
low's size and classified, plus a 1x1 classifier of low; the sum is resized to the input.
weights_backbone defaults to None here: nothing is downloaded (docs/porting.md)."""
from __future__ import annotations

from collections import OrderedDict
from functools import partial
from typing import Any, Dict, Optional

from .... import nn
from ....nn import functional as F
from ...._tensor import Tensor
from .._utils import IntermediateLayerGetter
from .._weight_enums import enum_for
from ..mobilenetv3 import MobileNetV3, mobilenet_v3_large
from ._utils import segmentation_backbone
from .deeplabv3 import mobilenet_stages

__all__ = ["LRASPP", "LRASPP_MobileNet_V3_Large_Weights", "lraspp_mobilenet_v3_large"]

LRASPP_MobileNet_V3_Large_Weights = enum_for("lraspp_mobilenet_v3_large")


class LRASPPHead(nn.Module):
    """LRASPPHead(low_channels, high_channels, num_classes, inter_channels): forward({"low", "high"})."""

    def __init__(self, low_channels: int, high_channels: int, num_classes: int, inter_channels: int) -> None:
        super().__init__()
        self.cbr = nn.Sequential(nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                 nn.BatchNorm2d(inter_channels), nn.ReLU(inplace=True))
        self.scale = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                   nn.Sigmoid())
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, input: Dict[str, Tensor]) -> Tensor:
        low, high = input["low"], input["high"]
        x = F.interpolate(self.cbr(high) * self.scale(high), size=low.shape[-2:], mode="bilinear",
                          align_corners=False)
        return self.low_classifier(low) + self.high_classifier(x)


class LRASPP(nn.Module):
    """LRASPP(backbone, low_channels, high_channels, num_classes, inter_channels=128): the backbone
    returns {"low", "high"}; forward(x) -> {"out": [N, classes, H, W]}."""

    def __init__(self, backbone: nn.Module, low_channels: int, high_channels: int, num_classes: int,
                 inter_channels: int = 128) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input: Tensor) -> Dict[str, Tensor]:
        out = self.classifier(self.backbone(input))
        result: "OrderedDict[str, Tensor]" = OrderedDict()
        result["out"] = F.interpolate(out, size=input.shape[-2:], mode="bilinear", align_corners=False)
        return result


def _lraspp_mobilenetv3(backbone: MobileNetV3, num_classes: int) -> LRASPP:
    features = backbone.features
    stages = mobilenet_stages(features)
    low_pos, high_pos = stages[-4], stages[-1]  # C2 (output stride 8) and C5 (16)
    body = IntermediateLayerGetter(features, return_layers={str(low_pos): "low", str(high_pos): "high"})
    return LRASPP(body, features[low_pos].out_channels, features[high_pos].out_channels, num_classes)


def lraspp_mobilenet_v3_large(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                              weights_backbone: Any = None, **kwargs: Any) -> LRASPP:
    """Lite R-ASPP with a MobileNetV3-Large backbone (21 classes by default); aux_loss=True raises
    NotImplementedError, as torchvision's (the model has no auxiliary head)."""
    if kwargs.pop("aux_loss", False):
        raise NotImplementedError("This model does not use auxiliary loss\n  fix: lraspp_mobilenet_v3_large has "
                                  "one head; leave aux_loss out (or use deeplabv3_mobilenet_v3_large(aux_loss=True))")
    backbone, classes = segmentation_backbone("lraspp_mobilenet_v3_large", weights, weights_backbone, num_classes,
                                              kwargs, partial(mobilenet_v3_large, dilated=True))
    return _lraspp_mobilenetv3(backbone, classes)
