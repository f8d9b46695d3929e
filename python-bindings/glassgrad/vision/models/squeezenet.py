"""torchvision.models' SqueezeNet 1.0 and 1.1 (Iandola et al. 2016, "SqueezeNet: AlexNet-level
accuracy with 50x fewer parameters"), with torchvision's arguments, submodule names and order
(features, classifier; Fire modules' squeeze, expand1x1, expand3x3) and initialization, so
state_dicts load both ways."""
from __future__ import annotations

from typing import Any

from ... import _C
from ... import nn
from ..._spatial import cat
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["SqueezeNet", "Fire", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    """A 1x1 squeeze convolution, then 1x1 and 3x3 expand convolutions side by side, each followed
    by ReLU, concatenated on channels (expand1x1_planes + expand3x3_planes out)."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int, expand3x3_planes: int) -> None:
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        x = self.squeeze_activation(self.squeeze(x))
        return cat([self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1)


class SqueezeNet(nn.Module):
    """torchvision.models.SqueezeNet(version="1_0", num_classes=1000, dropout=0.5): features
    (a 7x7 stride-2 conv for 1_0 or 3x3 for 1_1, eight Fire modules, three ceil-mode 3x3 stride-2
    max pools), classifier = [Dropout, final_conv (1x1 to num_classes), ReLU,
    AdaptiveAvgPool2d((1, 1))]. final_conv starts as normal(0, 0.01), the other convolutions as
    kaiming_uniform_; biases 0."""

    def __init__(self, version: str = "1_0", num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(256, 32, 128, 128), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(512, 64, 256, 256))
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(64, 16, 64, 64), Fire(128, 16, 64, 64),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(128, 32, 128, 128), Fire(256, 32, 128, 128),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256), Fire(512, 64, 256, 256))
        else:
            raise _C.InvalidArgumentError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected\n"
                                          f"  fix: SqueezeNet(version='1_1') or squeezenet1_1()")
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.features(x)).flatten(1)


def squeezenet1_0(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.0."""
    refuse_pretrained("squeezenet1_0", weights, kwargs)
    return SqueezeNet("1_0", **kwargs)


def squeezenet1_1(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.1: 2.4x less computation than 1.0, slightly fewer parameters, the same accuracy."""
    refuse_pretrained("squeezenet1_1", weights, kwargs)
    return SqueezeNet("1_1", **kwargs)
