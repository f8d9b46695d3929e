"""torchvision.models' ResNet family (He et al. 2015, "Deep Residual Learning for Image
Recognition"; the "v1.5" form torchvision builds, with a Bottleneck's stride on its 3x3
convolution), with torchvision's constructors, arguments, submodule names and initialization, so
state_dicts load both ways: resnet18/34/50/101/152, resnext50_32x4d, resnext101_32x8d,
resnext101_64x4d, wide_resnet50_2, wide_resnet101_2.

Pretrained weights are not bundled and nothing is downloaded: `weights=None` (the default) builds
a randomly initialized network; any other value raises, naming how to load weights from a file.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Type, Union

from ... import _C
from ... import nn
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Conv2d:
    """3x3 convolution with padding (= dilation, so the size only changes with stride), no bias."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False,
                     dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """1x1 convolution, no bias."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), two 3x3 convolutions."""
    expansion: int = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise _C.InvalidArgumentError("BasicBlock only supports groups=1 and base_width=64\n"
                                          "  fix: use Bottleneck (resnet50 and up) for grouped or wider blocks")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride, groups, dilation), 1x1 expand by 4, plus the shortcut."""
    expansion: int = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    """torchvision.models.ResNet(block, layers, num_classes=1000, zero_init_residual=False, groups=1,
    width_per_group=64, replace_stride_with_dilation=None, norm_layer=None): conv1 (7x7, stride
    2), bn1, relu, maxpool, layer1..layer4, avgpool, fc. Convolutions start as
    kaiming_normal_(mode="fan_out", nonlinearity="relu"), norms as weight 1 and bias 0;
    zero_init_residual zeroes each block's last norm weight."""

    def __init__(self, block: Type[Union[BasicBlock, Bottleneck]], layers: List[int], num_classes: int = 1000,
                 zero_init_residual: bool = False, groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: Optional[List[bool]] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise _C.InvalidArgumentError(f"replace_stride_with_dilation should be None or a 3-element tuple, got "
                                          f"{replace_stride_with_dilation}\n  fix: e.g. [False, True, True]")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)) and m.weight is not None and m.bias is not None:
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock):
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block: Type[Union[BasicBlock, Bottleneck]], planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        return self.fc(x.flatten(1))


def _resnet(name: str, block, layers: List[int], weights: Any, progress: bool, **kwargs: Any) -> ResNet:
    refuse_pretrained(name, weights, kwargs)
    return ResNet(block, layers, **kwargs)


def resnet18(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-18: BasicBlocks [2, 2, 2, 2]."""
    return _resnet("resnet18", BasicBlock, [2, 2, 2, 2], weights, progress, **kwargs)


def resnet34(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-34: BasicBlocks [3, 4, 6, 3]."""
    return _resnet("resnet34", BasicBlock, [3, 4, 6, 3], weights, progress, **kwargs)


def resnet50(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-50: Bottlenecks [3, 4, 6, 3]."""
    return _resnet("resnet50", Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


def resnet101(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-101: Bottlenecks [3, 4, 23, 3]."""
    return _resnet("resnet101", Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


def resnet152(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNet-152: Bottlenecks [3, 8, 36, 3]."""
    return _resnet("resnet152", Bottleneck, [3, 8, 36, 3], weights, progress, **kwargs)


def resnext50_32x4d(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNeXt-50 32x4d: ResNet-50 with 32 groups of width 4."""
    return _resnet("resnext50_32x4d", Bottleneck, [3, 4, 6, 3], weights, progress,
                   **{"groups": 32, "width_per_group": 4, **kwargs})


def resnext101_32x8d(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNeXt-101 32x8d."""
    return _resnet("resnext101_32x8d", Bottleneck, [3, 4, 23, 3], weights, progress,
                   **{"groups": 32, "width_per_group": 8, **kwargs})


def resnext101_64x4d(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """ResNeXt-101 64x4d."""
    return _resnet("resnext101_64x4d", Bottleneck, [3, 4, 23, 3], weights, progress,
                   **{"groups": 64, "width_per_group": 4, **kwargs})


def wide_resnet50_2(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """Wide ResNet-50-2: ResNet-50 with bottlenecks twice as wide."""
    return _resnet("wide_resnet50_2", Bottleneck, [3, 4, 6, 3], weights, progress,
                   **{"width_per_group": 64 * 2, **kwargs})


def wide_resnet101_2(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ResNet:
    """Wide ResNet-101-2."""
    return _resnet("wide_resnet101_2", Bottleneck, [3, 4, 23, 3], weights, progress,
                   **{"width_per_group": 64 * 2, **kwargs})
