"""torchvision.models' EfficientNet B0-B7 (Tan and Le 2019, "EfficientNet: Rethinking Model Scaling
for Convolutional Neural Networks") and EfficientNetV2 S/M/L (Tan and Le 2021, "EfficientNetV2:
Smaller Models and Faster Training"), with torchvision's arguments (num_classes, dropout,
stochastic_depth_prob, norm_layer, last_channel), submodule names and order (features: stem,
stages of MBConv / FusedMBConv blocks with their `block` Sequential and `stochastic_depth`, 1x1
head; avgpool; classifier = [Dropout, Linear]) and initialization, so state_dicts load both ways."""
from __future__ import annotations

import copy
import math
from functools import partial
from typing import Any, Callable, List, Optional, Sequence

from ... import _C
from ... import nn
from ..._tensor import Tensor
from ._layers import Conv2dNormActivation, SqueezeExcitation, StochasticDepth, init_mobile_weights, make_divisible
from ._weights import refuse_pretrained

__all__ = ["EfficientNet", "MBConvConfig", "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
           "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7", "FusedMBConvConfig", "efficientnet_v2_s",
           "efficientnet_v2_m", "efficientnet_v2_l"]


class MBConvConfig:
    """One stage: expand_ratio, kernel, stride, channels scaled by width_mult (multiples of 8) and
    num_layers scaled by depth_mult (rounded up)."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int, out_channels: int,
                 num_layers: int, width_mult: float = 1.0, depth_mult: float = 1.0) -> None:
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.num_layers = int(math.ceil(num_layers * depth_mult))
        self.block: Callable[..., nn.Module] = MBConv

    @staticmethod
    def adjust_channels(channels: float, width_mult: float, min_value: Optional[int] = None) -> int:
        return make_divisible(channels * width_mult, 8, min_value)


class MBConv(nn.Module):
    """[1x1 expand, SiLU], kxk depthwise, SiLU, squeeze-excitation (input_channels // 4, SiLU),
    1x1 linear projection; with a kept shape, stochastic depth on the branch plus the input."""

    def __init__(self, cnf: MBConvConfig, stochastic_depth_prob: float, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = SqueezeExcitation) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise _C.InvalidArgumentError(f"MBConv: illegal stride value {cnf.stride}\n"
                                          f"  fix: stride 1 or 2 in the stage's MBConvConfig")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers: List[nn.Module] = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                           groups=expanded, norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(se_layer(expanded, max(1, cnf.input_channels // 4), activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, x: Tensor) -> Tensor:
        result = self.block(x)
        return self.stochastic_depth(result) + x if self.use_res_connect else result


class FusedMBConvConfig(MBConvConfig):
    """One EfficientNetV2 stage of FusedMBConv blocks (channels and depth as given, unscaled)."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int, out_channels: int,
                 num_layers: int) -> None:
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers)
        self.block = FusedMBConv


class FusedMBConv(nn.Module):
    """EfficientNetV2's block: a kxk convolution expanding by expand_ratio (SiLU), then a 1x1
    projection; or one kxk convolution (SiLU) when expand_ratio is 1. Stochastic depth and the
    shortcut as MBConv's."""

    def __init__(self, cnf: MBConvConfig, stochastic_depth_prob: float, norm_layer: Callable[..., nn.Module]) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise _C.InvalidArgumentError(f"FusedMBConv: illegal stride value {cnf.stride}\n"
                                          f"  fix: stride 1 or 2 in the stage's FusedMBConvConfig")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded != cnf.input_channels:
            layers: List[nn.Module] = [
                Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                     norm_layer=norm_layer, activation_layer=nn.SiLU),
                Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                     activation_layer=None)]
        else:
            layers = [Conv2dNormActivation(cnf.input_channels, cnf.out_channels, kernel_size=cnf.kernel,
                                           stride=cnf.stride, norm_layer=norm_layer, activation_layer=nn.SiLU)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    forward = MBConv.forward


class EfficientNet(nn.Module):
    """torchvision.models.EfficientNet(inverted_residual_setting, dropout, stochastic_depth_prob=0.2,
    num_classes=1000, norm_layer=None, last_channel=None). Block i of n gets stochastic depth
    stochastic_depth_prob * i / n. Convolutions start as kaiming_normal_(mode="fan_out") with zero
    bias, norms as 1 and 0, linears as uniform(+-1 / sqrt(out_features)) with zero bias."""

    def __init__(self, inverted_residual_setting: Sequence[MBConvConfig], dropout: float,
                 stochastic_depth_prob: float = 0.2, num_classes: int = 1000,
                 norm_layer: Optional[Callable[..., nn.Module]] = None, last_channel: Optional[int] = None) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise _C.InvalidArgumentError("The inverted_residual_setting should not be empty\n"
                                          "  fix: build it as efficientnet_b0 ... efficientnet_b7 do")
        if not all(isinstance(s, MBConvConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = norm_layer or nn.BatchNorm2d
        layers: List[nn.Module] = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels, kernel_size=3,
                                                        stride=2, norm_layer=norm_layer, activation_layer=nn.SiLU)]
        total_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage: List[nn.Module] = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:  # later blocks of a stage keep its width and resolution
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                stage.append(block_cnf.block(block_cnf, stochastic_depth_prob * float(block_id) / total_blocks,
                                             norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(last_out, num_classes))
        init_range = 1.0 / math.sqrt(num_classes)
        init_mobile_weights(self, lambda w: nn.init.uniform_(w, -init_range, init_range))

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


# B0's stages: (expand_ratio, kernel, stride, input_channels, out_channels, num_layers).
_B0 = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3),
       (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
# name: (width_mult, depth_mult, default dropout, norms with eps 1e-3 and momentum 0.01)
_SCALES = {"efficientnet_b0": (1.0, 1.0, 0.2, False), "efficientnet_b1": (1.0, 1.1, 0.2, False),
           "efficientnet_b2": (1.1, 1.2, 0.3, False), "efficientnet_b3": (1.2, 1.4, 0.3, False),
           "efficientnet_b4": (1.4, 1.8, 0.4, False), "efficientnet_b5": (1.6, 2.2, 0.4, True),
           "efficientnet_b6": (1.8, 2.6, 0.5, True), "efficientnet_b7": (2.0, 3.1, 0.5, True)}


def _efficientnet(name: str, weights: Any, kwargs: Any) -> EfficientNet:
    refuse_pretrained(name, weights, kwargs)
    width, depth, dropout, tf_norm = _SCALES[name]
    setting = [MBConvConfig(*row, width_mult=width, depth_mult=depth) for row in _B0]
    if tf_norm:
        kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))
    return EfficientNet(setting, kwargs.pop("dropout", dropout), **kwargs)


def efficientnet_b0(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B0 (5,288,548 parameters)."""
    return _efficientnet("efficientnet_b0", weights, kwargs)


def efficientnet_b1(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B1: depth x1.1."""
    return _efficientnet("efficientnet_b1", weights, kwargs)


def efficientnet_b2(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B2: width x1.1, depth x1.2."""
    return _efficientnet("efficientnet_b2", weights, kwargs)


def efficientnet_b3(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B3: width x1.2, depth x1.4."""
    return _efficientnet("efficientnet_b3", weights, kwargs)


def efficientnet_b4(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B4: width x1.4, depth x1.8."""
    return _efficientnet("efficientnet_b4", weights, kwargs)


def efficientnet_b5(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B5: width x1.6, depth x2.2, norms with eps 1e-3."""
    return _efficientnet("efficientnet_b5", weights, kwargs)


def efficientnet_b6(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B6: width x1.8, depth x2.6, norms with eps 1e-3."""
    return _efficientnet("efficientnet_b6", weights, kwargs)


def efficientnet_b7(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNet-B7: width x2.0, depth x3.1, norms with eps 1e-3."""
    return _efficientnet("efficientnet_b7", weights, kwargs)


# EfficientNetV2 stages: (fused, expand_ratio, kernel, stride, input_channels, out_channels, num_layers).
_V2 = {
    "efficientnet_v2_s": [(1, 1, 3, 1, 24, 24, 2), (1, 4, 3, 2, 24, 48, 4), (1, 4, 3, 2, 48, 64, 4),
                          (0, 4, 3, 2, 64, 128, 6), (0, 6, 3, 1, 128, 160, 9), (0, 6, 3, 2, 160, 256, 15)],
    "efficientnet_v2_m": [(1, 1, 3, 1, 24, 24, 3), (1, 4, 3, 2, 24, 48, 5), (1, 4, 3, 2, 48, 80, 5),
                          (0, 4, 3, 2, 80, 160, 7), (0, 6, 3, 1, 160, 176, 14), (0, 6, 3, 2, 176, 304, 18),
                          (0, 6, 3, 1, 304, 512, 5)],
    "efficientnet_v2_l": [(1, 1, 3, 1, 32, 32, 4), (1, 4, 3, 2, 32, 64, 7), (1, 4, 3, 2, 64, 96, 7),
                          (0, 4, 3, 2, 96, 192, 10), (0, 6, 3, 1, 192, 224, 19), (0, 6, 3, 2, 224, 384, 25),
                          (0, 6, 3, 1, 384, 640, 7)]}


def _efficientnet_v2(name: str, dropout: float, weights: Any, kwargs: Any) -> EfficientNet:
    refuse_pretrained(name, weights, kwargs)
    setting = [FusedMBConvConfig(*row[1:]) if row[0] else MBConvConfig(*row[1:]) for row in _V2[name]]
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    return EfficientNet(setting, kwargs.pop("dropout", dropout), last_channel=1280, **kwargs)


def efficientnet_v2_s(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNetV2-S (21,458,488 parameters)."""
    return _efficientnet_v2("efficientnet_v2_s", 0.2, weights, kwargs)


def efficientnet_v2_m(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNetV2-M."""
    return _efficientnet_v2("efficientnet_v2_m", 0.3, weights, kwargs)


def efficientnet_v2_l(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> EfficientNet:
    """EfficientNetV2-L."""
    return _efficientnet_v2("efficientnet_v2_l", 0.4, weights, kwargs)
