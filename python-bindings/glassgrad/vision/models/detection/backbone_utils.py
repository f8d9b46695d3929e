"""torchvision.models.detection.backbone_utils: BackboneWithFPN, resnet_fpn_backbone,
mobilenet_backbone and the helpers detection builders share (_resnet_fpn_extractor,
_mobilenet_extractor, _validate_trainable_layers), with torchvision's arguments and submodule
names (body: an IntermediateLayerGetter of the backbone; fpn: a FeaturePyramidNetwork), so a
backbone's state_dict loads both ways.

Freezing follows torchvision: resnet_fpn_backbone trains the last `trainable_layers` of layer4,
layer3, layer2, layer1, conv1 (and bn1 with all five) and sets requires_grad False on the rest;
mobilenet_backbone freezes the blocks before the last `trainable_layers` stages. The norms default
to FrozenBatchNorm2d, as torchvision's. No weights are bundled or downloaded: weights must be None."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional, Union

from .... import _C, nn
from ...._tensor import Tensor
from ...ops.feature_pyramid_network import ExtraFPNBlock, FeaturePyramidNetwork, LastLevelMaxPool
from ...ops.misc import FrozenBatchNorm2d
from .. import mobilenetv2, mobilenetv3, resnet
from .._utils import IntermediateLayerGetter

__all__ = ["BackboneWithFPN", "resnet_fpn_backbone", "mobilenet_backbone"]

# The ResNets and MobileNets a backbone can be named by (torchvision's resnet / mobilenet modules).
_RESNETS = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d",
            "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2")
_MOBILENETS: Dict[str, Callable[..., Any]] = {"mobilenet_v2": mobilenetv2.mobilenet_v2, "mobilenet_v3_large": mobilenetv3.mobilenet_v3_large,
               "mobilenet_v3_small": mobilenetv3.mobilenet_v3_small}


class BackboneWithFPN(nn.Module):
    """BackboneWithFPN(backbone, return_layers, in_channels_list, out_channels, extra_blocks=None,
    norm_layer=None): forward(x) -> the FPN's OrderedDict of the returned layers (and "pool", the
    default extra block's level). out_channels is the FPN's width."""

    def __init__(self, backbone: nn.Module, return_layers: Dict[str, str], in_channels_list: List[int],
                 out_channels: int, extra_blocks: Optional[ExtraFPNBlock] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(in_channels_list=in_channels_list, out_channels=out_channels,
                                         extra_blocks=extra_blocks if extra_blocks is not None else LastLevelMaxPool(),
                                         norm_layer=norm_layer)
        self.out_channels = out_channels

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        return self.fpn(self.body(x))


def _builder(table: Dict[str, Callable[..., Any]], what: str, name: str) -> Callable[..., Any]:
    if name not in table:
        raise KeyError(f"{name!r}: {what} has no backbone of that name\n  fix: one of {', '.join(table)}")
    return table[name]


def resnet_fpn_backbone(*, backbone_name: str, weights: Optional[object] = None,
                        norm_layer: Callable[..., nn.Module] = FrozenBatchNorm2d, trainable_layers: int = 3,
                        returned_layers: Optional[List[int]] = None, extra_blocks: Optional[ExtraFPNBlock] = None,
                        **kwargs: object) -> BackboneWithFPN:
    """A ResNet named backbone_name ('resnet50', ...) with an FPN of width 256 on its returned
    layers (all four by default, named '0'..'3', plus 'pool')."""
    table: Dict[str, Callable[..., Any]] = {n: getattr(resnet, n) for n in _RESNETS}
    backbone = _builder(table, "resnet_fpn_backbone", backbone_name)(weights=weights, norm_layer=norm_layer,
                                                                    **kwargs)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _resnet_fpn_extractor(backbone: resnet.ResNet, trainable_layers: int, returned_layers: Optional[List[int]] = None,
                          extra_blocks: Optional[ExtraFPNBlock] = None,
                          norm_layer: Optional[Callable[..., nn.Module]] = None) -> BackboneWithFPN:
    if trainable_layers < 0 or trainable_layers > 5:
        raise _C.InvalidArgumentError(f"Trainable layers should be in the range [0,5], got {trainable_layers}\n"
                                      f"  fix: 0 freezes the whole ResNet, 5 trains all of it")
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        layers_to_train.append("bn1")
    for name, parameter in backbone.named_parameters():
        if not any(name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)
    returned_layers = [1, 2, 3, 4] if returned_layers is None else returned_layers
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise _C.InvalidArgumentError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}\n"
                                      f"  fix: name ResNet stages 1 to 4, e.g. [2, 3, 4]")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, 256, extra_blocks=extra_blocks,
                           norm_layer=norm_layer)


def _validate_trainable_layers(is_trained: bool, trainable_backbone_layers: Optional[int], max_value: int,
                               default_value: int) -> int:
    """How many backbone layers a detection builder trains: all of them (max_value) without
    pretrained weights, warning when a count was given; default_value when none was given."""
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn("Changing trainable_backbone_layers has no effect if neither pretrained nor "
                          "pretrained_backbone have been set to True, falling back to "
                          f"trainable_backbone_layers={max_value} so that all layers are trainable")
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if trainable_backbone_layers < 0 or trainable_backbone_layers > max_value:
        raise _C.InvalidArgumentError(f"Trainable backbone layers should be in the range [0,{max_value}], got "
                                      f"{trainable_backbone_layers} ")
    return trainable_backbone_layers


def mobilenet_backbone(*, backbone_name: str, weights: Optional[object] = None, fpn: bool,
                       norm_layer: Callable[..., nn.Module] = FrozenBatchNorm2d, trainable_layers: int = 2,
                       returned_layers: Optional[List[int]] = None, extra_blocks: Optional[ExtraFPNBlock] = None,
                       **kwargs: object) -> nn.Module:
    """A MobileNet's features named backbone_name ('mobilenet_v3_large', ...), with an FPN of width
    256 on its last two stages (fpn=True) or followed by a 1x1 convolution to 256 channels."""
    backbone = _builder(_MOBILENETS, "mobilenet_backbone", backbone_name)(weights=weights, norm_layer=norm_layer,
                                                                         **kwargs)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(backbone: Union[mobilenetv2.MobileNetV2, mobilenetv3.MobileNetV3], fpn: bool,
                         trainable_layers: int, returned_layers: Optional[List[int]] = None,
                         extra_blocks: Optional[ExtraFPNBlock] = None,
                         norm_layer: Optional[Callable[..., nn.Module]] = None) -> nn.Module:
    from ..segmentation.deeplabv3 import mobilenet_stages
    features = backbone.features
    stage_indices = mobilenet_stages(features)
    num_stages = len(stage_indices)
    if trainable_layers < 0 or trainable_layers > num_stages:
        raise _C.InvalidArgumentError(f"Trainable layers should be in the range [0,{num_stages}], got "
                                      f"{trainable_layers} ")
    freeze_before = len(features) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for block in list(features)[:freeze_before]:
        for parameter in block.parameters():
            parameter.requires_grad_(False)
    out_channels = 256
    if not fpn:
        m = nn.Sequential(features, nn.Conv2d(features[-1].out_channels, out_channels, 1))
        m.out_channels = out_channels
        return m
    returned_layers = [num_stages - 2, num_stages - 1] if returned_layers is None else returned_layers
    if min(returned_layers) < 0 or max(returned_layers) >= num_stages:
        raise _C.InvalidArgumentError(f"Each returned layer should be in the range [0,{num_stages - 1}], got "
                                      f"{returned_layers} ")
    return_layers = {f"{stage_indices[k]}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_list = [features[stage_indices[i]].out_channels for i in returned_layers]
    return BackboneWithFPN(features, return_layers, in_channels_list, out_channels, extra_blocks=extra_blocks,
                           norm_layer=norm_layer)
