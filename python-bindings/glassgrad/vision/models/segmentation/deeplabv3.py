"""torchvision.models.segmentation.deeplabv3 (Chen et al. 2017, "Rethinking Atrous Convolution for
Semantic Image Segmentation"): DeepLabV3, DeepLabHead, ASPP, ASPPConv, ASPPPooling and the builders
deeplabv3_resnet50, deeplabv3_resnet101 and deeplabv3_mobilenet_v3_large with torchvision's
arguments and submodule names, so state_dicts load both ways. The ResNet backbones dilate their
last two stages (output stride 8); the MobileNetV3 one dilates its last stage and feeds the head
from its last block (stride 16) and the auxiliary head from the last block of stride 8.
weights_backbone defaults to None here: nothing is downloaded (docs/porting.md)."""
from __future__ import annotations

from functools import partial
from typing import Any, List, Optional, Sequence

from .... import nn
from ...._spatial import cat
from ....nn import functional as F
from ...._tensor import Tensor
from .._utils import IntermediateLayerGetter
from .._weight_enums import enum_for
from ..mobilenetv3 import MobileNetV3, mobilenet_v3_large
from ..resnet import ResNet, resnet50, resnet101
from ._utils import _SimpleSegmentationModel, segmentation_backbone
from .fcn import FCNHead

__all__ = ["DeepLabV3", "DeepLabV3_ResNet50_Weights", "DeepLabV3_ResNet101_Weights",
           "DeepLabV3_MobileNet_V3_Large_Weights", "deeplabv3_mobilenet_v3_large", "deeplabv3_resnet50",
           "deeplabv3_resnet101"]

DeepLabV3_ResNet50_Weights = enum_for("deeplabv3_resnet50")
DeepLabV3_ResNet101_Weights = enum_for("deeplabv3_resnet101")
DeepLabV3_MobileNet_V3_Large_Weights = enum_for("deeplabv3_mobilenet_v3_large")


class DeepLabV3(_SimpleSegmentationModel):
    """DeepLabV3(backbone, classifier, aux_classifier=None): forward(x) -> {"out": [N, classes, H, W],
    "aux": ... when aux_classifier is set}."""


class ASPPConv(nn.Sequential):
    """3x3 conv of dilation `dilation` (padded to keep the size), BatchNorm, ReLU."""

    def __init__(self, in_channels: int, out_channels: int, dilation: int) -> None:
        super().__init__(nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU())


class ASPPPooling(nn.Sequential):
    """Global average pool, 1x1 conv, BatchNorm, ReLU, resized back to the input's size (bilinear)."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(nn.AdaptiveAvgPool2d(1), nn.Conv2d(in_channels, out_channels, 1, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU())

    def forward(self, x: Tensor) -> Tensor:
        size = x.shape[-2:]
        for module in self:
            x = module(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Atrous spatial pyramid pooling: a 1x1 branch, one ASPPConv per atrous rate and ASPPPooling
    (convs, in that order), concatenated and projected to out_channels (1x1 conv, BatchNorm, ReLU,
    Dropout(0.5))."""

    def __init__(self, in_channels: int, atrous_rates: Sequence[int], out_channels: int = 256) -> None:
        super().__init__()
        modules: List[nn.Module] = [nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, bias=False),
                                                  nn.BatchNorm2d(out_channels), nn.ReLU())]
        modules += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        modules.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(modules)
        self.project = nn.Sequential(nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
                                     nn.BatchNorm2d(out_channels), nn.ReLU(), nn.Dropout(0.5))

    def forward(self, x: Tensor) -> Tensor:
        return self.project(cat([conv(x) for conv in self.convs], dim=1))


class DeepLabHead(nn.Sequential):
    """DeepLabHead(in_channels, num_classes, atrous_rates=(12, 24, 36)): ASPP to 256 channels, 3x3
    conv, BatchNorm, ReLU, 1x1 conv to num_classes."""

    def __init__(self, in_channels: int, num_classes: int, atrous_rates: Sequence[int] = (12, 24, 36)) -> None:
        super().__init__(ASPP(in_channels, atrous_rates), nn.Conv2d(256, 256, 3, padding=1, bias=False),
                         nn.BatchNorm2d(256), nn.ReLU(), nn.Conv2d(256, num_classes, 1))


def _deeplabv3_resnet(backbone: ResNet, num_classes: int, aux: Optional[bool]) -> DeepLabV3:
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    body = IntermediateLayerGetter(backbone, return_layers=return_layers)
    return DeepLabV3(body, DeepLabHead(2048, num_classes), FCNHead(1024, num_classes) if aux else None)


def mobilenet_stages(features: nn.Sequential) -> List[int]:
    """The indices of MobileNetV3's stage ends: the stem, each block that strides (C1..Cn-1) and
    the last layer, as torchvision's segmentation and detection heads pick them."""
    return [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]


def _deeplabv3_mobilenetv3(backbone: MobileNetV3, num_classes: int, aux: Optional[bool]) -> DeepLabV3:
    features = backbone.features
    stages = mobilenet_stages(features)
    out_pos, aux_pos = stages[-1], stages[-4]  # C5 (output stride 16) and C2 (stride 8)
    return_layers = {str(out_pos): "out"}
    if aux:
        return_layers[str(aux_pos)] = "aux"
    body = IntermediateLayerGetter(features, return_layers=return_layers)
    aux_classifier = FCNHead(features[aux_pos].out_channels, num_classes) if aux else None
    return DeepLabV3(body, DeepLabHead(features[out_pos].out_channels, num_classes), aux_classifier)


def deeplabv3_resnet50(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                       aux_loss: Optional[bool] = None, weights_backbone: Any = None, **kwargs: Any) -> DeepLabV3:
    """DeepLabV3 with a dilated ResNet-50 backbone (21 classes by default)."""
    backbone, classes = segmentation_backbone("deeplabv3_resnet50", weights, weights_backbone, num_classes, kwargs,
                                              partial(resnet50, replace_stride_with_dilation=[False, True, True]))
    return _deeplabv3_resnet(backbone, classes, aux_loss)


def deeplabv3_resnet101(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                        aux_loss: Optional[bool] = None, weights_backbone: Any = None, **kwargs: Any) -> DeepLabV3:
    """DeepLabV3 with a dilated ResNet-101 backbone (21 classes by default)."""
    backbone, classes = segmentation_backbone("deeplabv3_resnet101", weights, weights_backbone, num_classes, kwargs,
                                              partial(resnet101, replace_stride_with_dilation=[False, True, True]))
    return _deeplabv3_resnet(backbone, classes, aux_loss)


def deeplabv3_mobilenet_v3_large(*, weights: Any = None, progress: bool = True, num_classes: Optional[int] = None,
                                 aux_loss: Optional[bool] = None, weights_backbone: Any = None,
                                 **kwargs: Any) -> DeepLabV3:
    """DeepLabV3 with a MobileNetV3-Large backbone, its last stage dilated (21 classes by default)."""
    backbone, classes = segmentation_backbone("deeplabv3_mobilenet_v3_large", weights, weights_backbone, num_classes,
                                              kwargs, partial(mobilenet_v3_large, dilated=True))
    return _deeplabv3_mobilenetv3(backbone, classes, aux_loss)
