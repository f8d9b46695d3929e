"""torchvision.models' MobileNetV2 (Sandler et al. 2018, "MobileNetV2: Inverted Residuals and
Linear Bottlenecks"), with torchvision's arguments (num_classes, width_mult,
inverted_residual_setting, round_nearest, block, norm_layer, dropout), submodule names and order
(features: Conv2dNormActivation stem, InvertedResidual blocks with their `conv` Sequential, the
1x1 head; classifier = [Dropout, Linear]) and initialization, so state_dicts load both ways."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ... import _C
from ... import nn
from ...nn import functional as F
from ..._tensor import Tensor
from ._layers import Conv2dNormActivation, init_mobile_weights, make_divisible
from ._weights import refuse_pretrained

__all__ = ["MobileNetV2", "InvertedResidual", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """[1x1 expand to inp * expand_ratio (skipped when 1), ReLU6], 3x3 depthwise (stride), ReLU6,
    1x1 linear projection to oup, norm; the input is added when stride is 1 and inp == oup."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise _C.InvalidArgumentError(f"InvertedResidual: stride should be 1 or 2 instead of {stride}\n"
                                          f"  fix: stride=1 or stride=2")
        norm_layer = norm_layer or nn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers: List[nn.Module] = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers += [Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                        norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x: Tensor) -> Tensor:
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    """torchvision.models.MobileNetV2(num_classes=1000, width_mult=1.0, inverted_residual_setting=None,
    round_nearest=8, block=None, norm_layer=None, dropout=0.2). Each row of the setting is
    [t (expansion), c (channels), n (repeats), s (first stride)]; channels are width_mult times
    and rounded to multiples of round_nearest. Convolutions start as kaiming_normal_(mode="fan_out")
    with zero bias, norms as 1 and 0, linears as normal(0, 0.01) with zero bias."""

    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0,
                 inverted_residual_setting: Optional[List[List[int]]] = None, round_nearest: int = 8,
                 block: Optional[Callable[..., nn.Module]] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None, dropout: float = 0.2) -> None:
        super().__init__()
        block = block or InvertedResidual
        norm_layer = norm_layer or nn.BatchNorm2d
        input_channel, last_channel = 32, 1280
        if inverted_residual_setting is None:
            inverted_residual_setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                                         [6, 160, 3, 2], [6, 320, 1, 1]]
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise _C.InvalidArgumentError(
                f"inverted_residual_setting should be non-empty or a 4-element list, got {inverted_residual_setting}\n"
                f"  fix: rows of [expand_ratio, channels, repeats, stride], e.g. [[1, 16, 1, 1], [6, 24, 2, 2]]")
        input_channel = make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features: List[nn.Module] = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                                          activation_layer=nn.ReLU6)]
        for t, c, n, s in inverted_residual_setting:
            output_channel = make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                      norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))
        init_mobile_weights(self, lambda w: nn.init.normal_(w, 0, 0.01))

    def forward(self, x: Tensor) -> Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(x.flatten(1))


def mobilenet_v2(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MobileNetV2:
    """MobileNetV2 (width_mult=1.0 by default: 3,504,872 parameters)."""
    refuse_pretrained("mobilenet_v2", weights, kwargs)
    return MobileNetV2(**kwargs)
