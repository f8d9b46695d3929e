"""torchvision.models' MobileNetV3 (Howard et al. 2019, "Searching for MobileNetV3"):
mobilenet_v3_large and mobilenet_v3_small with torchvision's arguments (num_classes, dropout,
width_mult, reduced_tail, dilated, norm_layer, block), submodule names and order (features:
stem, InvertedResidual blocks with their `block` Sequential, 1x1 head; avgpool; classifier =
[Linear, Hardswish, Dropout, Linear]) and initialization, so state_dicts load both ways."""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ... import _C
from ... import nn
from ..._tensor import Tensor
from ._layers import Conv2dNormActivation, SqueezeExcitation, init_mobile_weights, make_divisible
from ._weights import refuse_pretrained

__all__ = ["MobileNetV3", "InvertedResidualConfig", "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One block's settings; channel counts are scaled by width_mult and rounded to multiples of 8.
    activation is "RE" (ReLU) or "HS" (Hardswish)."""

    def __init__(self, input_channels: int, kernel: int, expanded_channels: int, out_channels: int, use_se: bool,
                 activation: str, stride: int, dilation: int, width_mult: float) -> None:
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels: int, width_mult: float) -> int:
        return make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    """[1x1 expand], kxk depthwise, [squeeze-excitation with a Hardsigmoid gate], 1x1 linear
    projection; the input is added when stride is 1 and the channel count is kept."""

    def __init__(self, cnf: InvertedResidualConfig, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)
                 ) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise _C.InvalidArgumentError(f"InvertedResidual: illegal stride value {cnf.stride}\n"
                                          f"  fix: stride 1 or 2 in the block's InvertedResidualConfig")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation_layer = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers: List[nn.Module] = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=activation_layer))
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
                                           stride=stride, dilation=cnf.dilation, groups=cnf.expanded_channels,
                                           norm_layer=norm_layer, activation_layer=activation_layer))
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels, make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, x: Tensor) -> Tensor:
        result = self.block(x)
        return result + x if self.use_res_connect else result


class MobileNetV3(nn.Module):
    """torchvision.models.MobileNetV3(inverted_residual_setting, last_channel, num_classes=1000,
    block=None, norm_layer=None, dropout=0.2). Norms default to BatchNorm2d(eps=0.001,
    momentum=0.01); convolutions start as kaiming_normal_(mode="fan_out") with zero bias, norms as
    1 and 0, linears as normal(0, 0.01) with zero bias."""

    def __init__(self, inverted_residual_setting: Sequence[InvertedResidualConfig], last_channel: int,
                 num_classes: int = 1000, block: Optional[Callable[..., nn.Module]] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None, dropout: float = 0.2, **kwargs: Any) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise _C.InvalidArgumentError("The inverted_residual_setting should not be empty\n"
                                          "  fix: build it as mobilenet_v3_large / mobilenet_v3_small do")
        if not all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[InvertedResidualConfig]")
        block = block or InvertedResidual
        norm_layer = norm_layer or partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers: List[nn.Module] = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                                        activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        layers.append(Conv2dNormActivation(last_in, 6 * last_in, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(6 * last_in, last_channel), nn.Hardswish(inplace=True),
                                        nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        init_mobile_weights(self, lambda w: nn.init.normal_(w, 0, 0.01))

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


# (input, kernel, expanded, out, squeeze-excitation, activation, stride, dilation) per block.
_LARGE = [(16, 3, 16, 16, False, "RE", 1, 1), (16, 3, 64, 24, False, "RE", 2, 1), (24, 3, 72, 24, False, "RE", 1, 1),
          (24, 5, 72, 40, True, "RE", 2, 1), (40, 5, 120, 40, True, "RE", 1, 1), (40, 5, 120, 40, True, "RE", 1, 1),
          (40, 3, 240, 80, False, "HS", 2, 1), (80, 3, 200, 80, False, "HS", 1, 1),
          (80, 3, 184, 80, False, "HS", 1, 1), (80, 3, 184, 80, False, "HS", 1, 1),
          (80, 3, 480, 112, True, "HS", 1, 1), (112, 3, 672, 112, True, "HS", 1, 1)]
_SMALL = [(16, 3, 16, 16, True, "RE", 2, 1), (16, 3, 72, 24, False, "RE", 2, 1), (24, 3, 88, 24, False, "RE", 1, 1),
          (24, 5, 96, 40, True, "HS", 2, 1), (40, 5, 240, 40, True, "HS", 1, 1), (40, 5, 240, 40, True, "HS", 1, 1),
          (40, 5, 120, 48, True, "HS", 1, 1), (48, 5, 144, 48, True, "HS", 1, 1)]


def _mobilenet_v3_conf(arch: str, width_mult: float = 1.0, reduced_tail: bool = False,
                       dilated: bool = False) -> Tuple[List[InvertedResidualConfig], int]:
    """The block settings and the classifier's hidden width; reduced_tail halves the last stage's
    channels, dilated turns its stride into dilation 2."""
    rd = 2 if reduced_tail else 1
    d = 2 if dilated else 1
    if arch == "mobilenet_v3_large":
        rows = _LARGE + [(112, 5, 672, 160 // rd, True, "HS", 2, d), (160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, d),
                         (160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, d)]
        last = 1280 // rd
    else:
        rows = _SMALL + [(48, 5, 288, 96 // rd, True, "HS", 2, d), (96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, d),
                         (96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, d)]
        last = 1024 // rd
    setting = [InvertedResidualConfig(*row, width_mult=width_mult) for row in rows]  # type: ignore[misc]
    return setting, InvertedResidualConfig.adjust_channels(last, width_mult)


def _mobilenet_v3(arch: str, weights: Any, kwargs: Any) -> MobileNetV3:
    refuse_pretrained(arch, weights, kwargs)
    conf = {k: kwargs.pop(k) for k in ("width_mult", "reduced_tail", "dilated") if k in kwargs}
    setting, last_channel = _mobilenet_v3_conf(arch, **conf)
    return MobileNetV3(setting, last_channel, **kwargs)


def mobilenet_v3_large(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MobileNetV3:
    """MobileNetV3-Large (5,483,032 parameters)."""
    return _mobilenet_v3("mobilenet_v3_large", weights, kwargs)


def mobilenet_v3_small(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MobileNetV3:
    """MobileNetV3-Small (2,542,856 parameters)."""
    return _mobilenet_v3("mobilenet_v3_small", weights, kwargs)
