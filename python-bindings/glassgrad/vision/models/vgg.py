"""torchvision.models' VGG family (Simonyan and Zisserman 2014, "Very Deep Convolutional Networks
for Large-Scale Image Recognition"): configurations A, B, D, E (vgg11, vgg13, vgg16, vgg19), each
with or without batch norm (the _bn constructors), with torchvision's constructor arguments,
submodule names and order (features, avgpool, classifier) and initialization, so state_dicts load
both ways and `model.classifier[6] = nn.Linear(4096, 10)` edits the same layer.

The adaptive 7x7 average pool makes any input of at least 32x32 work (the 1x1 map left by five
stride-2 pools is repeated to 7x7)."""
from __future__ import annotations

from typing import Any, Dict, List, Union

from ... import nn
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]

# Output channels of each 3x3 convolution; "M" is a 2x2 max pool of stride 2.
_CFGS: Dict[str, List[Union[str, int]]] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(nn.Module):
    """torchvision.models.VGG(features, num_classes=1000, init_weights=True, dropout=0.5):
    features, AdaptiveAvgPool2d((7, 7)), classifier = [Linear(25088, 4096), ReLU, Dropout,
    Linear(4096, 4096), ReLU, Dropout, Linear(4096, num_classes)]. init_weights: convolutions
    kaiming_normal_(mode="fan_out", nonlinearity="relu") with zero bias, norms weight 1 bias 0,
    linears normal(0, 0.01) with zero bias."""

    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d) and m.weight is not None and m.bias is not None:
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(x.flatten(1))


def make_layers(cfg: List[Union[str, int]], batch_norm: bool = False) -> nn.Sequential:
    """The feature extractor of one configuration: conv3x3 (padding 1)[, BatchNorm2d], ReLU per
    number; MaxPool2d(2, 2) per "M"."""
    layers: List[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv = nn.Conv2d(in_channels, int(v), kernel_size=3, padding=1)
        layers += [conv, nn.BatchNorm2d(int(v)), nn.ReLU(inplace=True)] if batch_norm else \
            [conv, nn.ReLU(inplace=True)]
        in_channels = int(v)
    return nn.Sequential(*layers)


def _vgg(name: str, cfg: str, batch_norm: bool, weights: Any, kwargs: Dict[str, Any]) -> VGG:
    refuse_pretrained(name, weights, kwargs)
    return VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-11 (configuration A)."""
    return _vgg("vgg11", "A", False, weights, kwargs)


def vgg11_bn(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-11 with batch norm."""
    return _vgg("vgg11_bn", "A", True, weights, kwargs)


def vgg13(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-13 (configuration B)."""
    return _vgg("vgg13", "B", False, weights, kwargs)


def vgg13_bn(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-13 with batch norm."""
    return _vgg("vgg13_bn", "B", True, weights, kwargs)


def vgg16(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-16 (configuration D)."""
    return _vgg("vgg16", "D", False, weights, kwargs)


def vgg16_bn(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-16 with batch norm."""
    return _vgg("vgg16_bn", "D", True, weights, kwargs)


def vgg19(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-19 (configuration E)."""
    return _vgg("vgg19", "E", False, weights, kwargs)


def vgg19_bn(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-19 with batch norm."""
    return _vgg("vgg19_bn", "E", True, weights, kwargs)
