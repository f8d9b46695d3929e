"""torchvision.models' RegNet (Radosavovic et al. 2020, "Designing Network Design Spaces"):
regnet_y_400mf ... regnet_y_128gf and regnet_x_400mf ... regnet_x_32gf, RegNet and BlockParams,
with torchvision's arguments, submodule names and order (stem, trunk_output.blockI.blockI-J with
proj and f.a / f.b / f.se / f.c, fc) and initialization, so state_dicts load both ways."""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, Iterator, List, Optional, Tuple

import numpy as np

from ... import _C, nn
from ..._tensor import Tensor
from ._layers import Conv2dNormActivation, SqueezeExcitation, make_divisible
from ._weights import refuse_pretrained

__all__ = ["RegNet", "BlockParams", "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf",
           "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf",
           "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf"]

_Layer = Callable[..., nn.Module]


class SimpleStemIN(Conv2dNormActivation):
    """The ImageNet stem: 3x3 stride-2 convolution, norm, activation."""

    def __init__(self, width_in: int, width_out: int, norm_layer: _Layer, activation_layer: _Layer) -> None:
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """a: 1x1 to the bottleneck width w_b = round(width_out * bottleneck_multiplier); b: grouped
    3x3 (groups w_b // group_width, the stride); se: squeeze-excitation to round(se_ratio *
    width_in) channels where se_ratio is set; c: 1x1 to width_out without activation."""

    def __init__(self, width_in: int, width_out: int, stride: int, norm_layer: _Layer, activation_layer: _Layer,
                 group_width: int, bottleneck_multiplier: float, se_ratio: Optional[float]) -> None:
        super().__init__()
        w_b = int(round(width_out * bottleneck_multiplier))
        self.a = Conv2dNormActivation(width_in, w_b, kernel_size=1, stride=1, norm_layer=norm_layer,
                                      activation_layer=activation_layer)
        self.b = Conv2dNormActivation(w_b, w_b, kernel_size=3, stride=stride, groups=w_b // group_width,
                                      norm_layer=norm_layer, activation_layer=activation_layer)
        if se_ratio:
            self.se = SqueezeExcitation(input_channels=w_b, squeeze_channels=int(round(se_ratio * width_in)),
                                        activation=activation_layer)
        self.c = Conv2dNormActivation(w_b, width_out, kernel_size=1, stride=1, norm_layer=norm_layer,
                                      activation_layer=None)


class ResBottleneckBlock(nn.Module):
    """activation(proj(x) + f(x)), proj a 1x1 convolution and norm where the width or the
    resolution changes, the identity otherwise."""

    def __init__(self, width_in: int, width_out: int, stride: int, norm_layer: _Layer, activation_layer: _Layer,
                 group_width: int = 1, bottleneck_multiplier: float = 1.0, se_ratio: Optional[float] = None) -> None:
        super().__init__()
        self.proj: Optional[nn.Module] = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride, norm_layer=norm_layer,
                                             activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer, group_width,
                                     bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x if self.proj is None else self.proj(x)
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    """depth blocks named block{stage_index}-{i}; the first changes the width and the resolution."""

    def __init__(self, width_in: int, width_out: int, stride: int, depth: int, block_constructor: _Layer,
                 norm_layer: _Layer, activation_layer: _Layer, group_width: int, bottleneck_multiplier: float,
                 se_ratio: Optional[float] = None, stage_index: int = 0) -> None:
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{stage_index}-{i}", block_constructor(
                width_in if i == 0 else width_out, width_out, stride if i == 0 else 1, norm_layer, activation_layer,
                group_width, bottleneck_multiplier, se_ratio))


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides, and the
    squeeze-excitation ratio."""

    def __init__(self, depths: List[int], widths: List[int], group_widths: List[int],
                 bottleneck_multipliers: List[float], strides: List[int], se_ratio: Optional[float] = None) -> None:
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth: int, w_0: int, w_a: float, w_m: float, group_width: int,
                         bottleneck_multiplier: float = 1.0, se_ratio: Optional[float] = None,
                         **kwargs: Any) -> "BlockParams":
        """The quantized linear parametrization: block j has width w_0 * w_m ** round(log(
        (w_0 + j * w_a) / w_0) / log(w_m)) rounded to a multiple of 8; consecutive blocks of one
        width form a stage (stride 2 each). Computed in float32, as torchvision computes it, so
        the rounding agrees."""
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise _C.InvalidArgumentError(
                f"BlockParams: Invalid RegNet settings (depth={depth}, w_0={w_0}, w_a={w_a}, w_m={w_m})\n"
                f"  cause: it needs w_a >= 0, w_0 > 0 and a multiple of 8, w_m > 1\n"
                f"  fix: e.g. BlockParams.from_init_params(depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8)")
        f32 = np.float32
        widths_cont = np.arange(depth, dtype=f32) * f32(w_a) + f32(w_0)
        capacity = np.round(np.log(widths_cont / f32(w_0)) / f32(math.log(w_m)))
        block_widths = (np.round(f32(w_0) * np.power(f32(w_m), capacity) / f32(8)) * f32(8)).astype(np.int64)
        starts = [j for j in range(depth) if j == 0 or block_widths[j] != block_widths[j - 1]]
        stage_depths = [end - start for start, end in zip(starts, starts[1:] + [depth])]
        stage_widths = [int(block_widths[j]) for j in starts]
        n = len(starts)
        multipliers = [bottleneck_multiplier] * n
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(stage_widths, multipliers,
                                                                            [group_width] * n)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=multipliers, strides=[2] * n, se_ratio=se_ratio)

    def _get_expanded_params(self) -> Iterator[Tuple[int, int, int, int, float]]:
        return zip(self.widths, self.strides, self.depths, self.group_widths, self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths: List[int], bottleneck_ratios: List[float],
                                           group_widths: List[int]) -> Tuple[List[int], List[int]]:
        """Group widths at most the bottleneck width, and bottleneck widths multiples of them."""
        bottlenecks = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        groups = [min(g, w) for g, w in zip(group_widths, bottlenecks)]
        bottlenecks = [make_divisible(w, g) for w, g in zip(bottlenecks, groups)]
        return [int(w / b) for w, b in zip(bottlenecks, bottleneck_ratios)], groups


class RegNet(nn.Module):
    """torchvision.models.RegNet(block_params, num_classes=1000, stem_width=32, stem_type=None,
    block_type=None, norm_layer=None, activation=None). Convolutions start as normal with std
    sqrt(2 / (kh * kw * out_channels)), norms 1 and 0, the Linear normal(std=0.01) with bias 0."""

    def __init__(self, block_params: BlockParams, num_classes: int = 1000, stem_width: int = 32,
                 stem_type: Optional[_Layer] = None, block_type: Optional[_Layer] = None,
                 norm_layer: Optional[_Layer] = None, activation: Optional[_Layer] = None) -> None:
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        activation = nn.ReLU if activation is None else activation
        block_type = ResBottleneckBlock if block_type is None else block_type
        self.stem = (SimpleStemIN if stem_type is None else stem_type)(3, stem_width, norm_layer, activation)
        width = stem_width
        self.trunk_output = nn.Sequential()
        for i, (width_out, stride, depth, group_width, multiplier) in enumerate(block_params._get_expanded_params()):
            stage = AnyStage(width, width_out, stride, depth, block_type, norm_layer, activation, group_width,
                             multiplier, block_params.se_ratio, stage_index=i + 1)
            self.trunk_output.add_module(f"block{i + 1}", stage)
            width = width_out
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=width, out_features=num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d) and m.weight is not None and m.bias is not None:
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(self.avgpool(self.trunk_output(self.stem(x))).flatten(1))


# name: (depth, w_0, w_a, w_m, group_width); the Y models add squeeze-excitation (se_ratio 0.25).
_CONFIGS = {
    "regnet_y_400mf": (16, 48, 27.89, 2.09, 8), "regnet_y_800mf": (14, 56, 38.84, 2.4, 16),
    "regnet_y_1_6gf": (27, 48, 20.71, 2.65, 24), "regnet_y_3_2gf": (21, 80, 42.63, 2.66, 24),
    "regnet_y_8gf": (17, 192, 76.82, 2.19, 56), "regnet_y_16gf": (18, 200, 106.23, 2.48, 112),
    "regnet_y_32gf": (20, 232, 115.89, 2.53, 232), "regnet_y_128gf": (27, 456, 160.83, 2.52, 264),
    "regnet_x_400mf": (22, 24, 24.48, 2.54, 16), "regnet_x_800mf": (16, 56, 35.73, 2.28, 16),
    "regnet_x_1_6gf": (18, 80, 34.01, 2.25, 24), "regnet_x_3_2gf": (25, 88, 26.31, 2.25, 48),
    "regnet_x_8gf": (23, 80, 49.56, 2.88, 120), "regnet_x_16gf": (22, 216, 55.59, 2.1, 128),
    "regnet_x_32gf": (23, 320, 69.86, 2.0, 168)}


def _regnet(name: str, weights: Any, kwargs: Any) -> RegNet:
    refuse_pretrained(name, weights, kwargs)
    depth, w_0, w_a, w_m, group_width = _CONFIGS[name]
    se_ratio = 0.25 if name.startswith("regnet_y") else None
    params = BlockParams.from_init_params(depth=depth, w_0=w_0, w_a=w_a, w_m=w_m, group_width=group_width,
                                          se_ratio=se_ratio, **kwargs)
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    return RegNet(params, norm_layer=norm_layer, **kwargs)


def regnet_y_400mf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-400MF."""
    return _regnet("regnet_y_400mf", weights, kwargs)


def regnet_y_800mf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-800MF."""
    return _regnet("regnet_y_800mf", weights, kwargs)


def regnet_y_1_6gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-1.6GF."""
    return _regnet("regnet_y_1_6gf", weights, kwargs)


def regnet_y_3_2gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-3.2GF."""
    return _regnet("regnet_y_3_2gf", weights, kwargs)


def regnet_y_8gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-8GF."""
    return _regnet("regnet_y_8gf", weights, kwargs)


def regnet_y_16gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-16GF."""
    return _regnet("regnet_y_16gf", weights, kwargs)


def regnet_y_32gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-32GF."""
    return _regnet("regnet_y_32gf", weights, kwargs)


def regnet_y_128gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetY-128GF."""
    return _regnet("regnet_y_128gf", weights, kwargs)


def regnet_x_400mf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-400MF."""
    return _regnet("regnet_x_400mf", weights, kwargs)


def regnet_x_800mf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-800MF."""
    return _regnet("regnet_x_800mf", weights, kwargs)


def regnet_x_1_6gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-1.6GF."""
    return _regnet("regnet_x_1_6gf", weights, kwargs)


def regnet_x_3_2gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-3.2GF."""
    return _regnet("regnet_x_3_2gf", weights, kwargs)


def regnet_x_8gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-8GF."""
    return _regnet("regnet_x_8gf", weights, kwargs)


def regnet_x_16gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-16GF."""
    return _regnet("regnet_x_16gf", weights, kwargs)


def regnet_x_32gf(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> RegNet:
    """RegNetX-32GF."""
    return _regnet("regnet_x_32gf", weights, kwargs)
