"""torchvision.models.segmentation.fcn (Long et al. 2015, "Fully Convolutional Networks for Semantic
Segmentation"): FCN, FCNHead, fcn_resnet50 and fcn_resnet101 with torchvision's arguments and
submodule names (backbone: the ResNet's children up to layer4, its last two stages dilated;
classifier: FCNHead(2048); aux_classifier: FCNHead(1024) on layer3 when aux_loss), so state_dicts
load both ways. weights_backbone defaults to None here: nothing is downloaded (docs/porting.md)."""
from __future__ import annotations

from functools import partial
from typing import Any, Optional

from .... import nn
from .._utils import IntermediateLayerGetter
from .._weight_enums import enum_for
from ..resnet import ResNet, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, segmentation_backbone

__all__ = ["FCN", "FCN_ResNet50_Weights", "FCN_ResNet101_Weights", "fcn_resnet50", "fcn_resnet101"]

FCN_ResNet50_Weights = enum_for("fcn_resnet50")
FCN_ResNet101_Weights = enum_for("fcn_resnet101")


class FCN(_SimpleSegmentationModel):
    """FCN(backbone, classifier, aux_classifier=None): forward(x) -> {"out": [N, classes, H, W],
    "aux": ... when aux_classifier is set}."""


class FCNHead(nn.Sequential):
    """FCNHead(in_channels, channels): 3x3 conv to in_channels // 4, BatchNorm, ReLU, Dropout(0.1),
    1x1 conv to channels."""

    def __init__(self, in_channels: int, channels: int) -> None:
        inter_channels = in_channels // 4
        super().__init__(nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
                         nn.BatchNorm2d(inter_channels), nn.ReLU(), nn.Dropout(0.1),
                         nn.Conv2d(inter_channels, channels, 1))


def _fcn_resnet(backbone: ResNet, num_classes: int, aux: Optional[bool]) -> FCN:
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    body = IntermediateLayerGetter(backbone, return_layers=return_layers)
    return FCN(body, FCNHead(2048, num_classes), FCNHead(1024, num_classes) if aux else None)


def _build(name: str, resnet: Any, weights: Any, num_classes: Optional[int], aux_loss: Optional[bool],
           weights_backbone: Any, kwargs: Any) -> FCN:
    backbone, classes = segmentation_backbone(name, weights, weights_backbone, num_classes, kwargs,
                                              partial(resnet, replace_stride_with_dilation=[False, True, True]))
    return _fcn_resnet(backbone, classes, aux_loss)


def fcn_resnet50(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                 aux_loss: Optional[bool] = None, weights_backbone: Any = None, **kwargs: Any) -> FCN:
    """FCN with a dilated ResNet-50 backbone (21 classes by default)."""
    return _build("fcn_resnet50", resnet50, weights, num_classes, aux_loss, weights_backbone, kwargs)


def fcn_resnet101(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                  aux_loss: Optional[bool] = None, weights_backbone: Any = None, **kwargs: Any) -> FCN:
    """FCN with a dilated ResNet-101 backbone (21 classes by default)."""
    return _build("fcn_resnet101", resnet101, weights, num_classes, aux_loss, weights_backbone, kwargs)
