"""torchvision.models' DenseNet (Huang et al. 2016, "Densely Connected Convolutional Networks"):
densenet121, densenet161, densenet169, densenet201, with torchvision's arguments (growth_rate,
block_config, num_init_features, bn_size, drop_rate, num_classes, memory_efficient), submodule names
and order (features.conv0/norm0/relu0/pool0, denseblockN.denselayerM.norm1/relu1/conv1/norm2/
relu2/conv2, transitionN.norm/relu/conv/pool, norm5; classifier) and initialization, so
state_dicts load both ways. memory_efficient (gradient checkpointing in torchvision) is accepted
and computes the same values without checkpointing."""
from __future__ import annotations

from typing import Any, List, Tuple

from ... import nn
from ..._spatial import cat
from ..._tensor import Tensor
from ...nn import functional as F
from ._weights import refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-Conv1x1 (to bn_size * growth_rate) then BN-ReLU-Conv3x3 (to growth_rate) over the
    concatenation of every earlier feature map of the block; dropout of drop_rate in training."""

    def __init__(self, num_input_features: int, growth_rate: int, bn_size: int, drop_rate: float,
                 memory_efficient: bool = False) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def forward(self, features: Any) -> Tensor:
        x = cat(list(features), 1) if isinstance(features, (list, tuple)) else features
        x = self.conv1(self.relu1(self.norm1(x)))
        x = self.conv2(self.relu2(self.norm2(x)))
        if self.drop_rate > 0:
            x = F.dropout(x, p=self.drop_rate, training=self.training)
        return x


class _DenseBlock(nn.ModuleDict):
    """num_layers _DenseLayers named denselayer1..N; layer i sees num_input_features + (i - 1) *
    growth_rate channels; the block returns all of them concatenated."""

    def __init__(self, num_layers: int, num_input_features: int, bn_size: int, growth_rate: int, drop_rate: float,
                 memory_efficient: bool = False) -> None:
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(num_input_features + i * growth_rate, growth_rate,
                                                              bn_size, drop_rate, memory_efficient))

    def forward(self, init_features: Tensor) -> Tensor:
        features: List[Tensor] = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return cat(features, 1)


class _Transition(nn.Sequential):
    """norm, relu, 1x1 conv (halving the channels in DenseNet), 2x2 average pool of stride 2."""

    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """torchvision.models.DenseNet(growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64,
    bn_size=4, drop_rate=0, num_classes=1000, memory_efficient=False): features = [7x7 stride-2 conv0,
    norm0, relu0, 3x3 stride-2 pool0, denseblock1, transition1, ..., denseblockN, norm5], then ReLU,
    global average pool and the linear classifier. Convolutions start as kaiming_normal_, norms as
    1 and 0, the classifier's bias as 0."""

    def __init__(self, growth_rate: int = 32, block_config: Tuple[int, ...] = (6, 12, 24, 16),
                 num_init_features: int = 64, bn_size: int = 4, drop_rate: float = 0, num_classes: int = 1000,
                 memory_efficient: bool = False) -> None:
        super().__init__()
        self.features = nn.Sequential()
        self.features.add_module("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                                    bias=False))
        self.features.add_module("norm0", nn.BatchNorm2d(num_init_features))
        self.features.add_module("relu0", nn.ReLU(inplace=True))
        self.features.add_module("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(num_layers, num_features, bn_size, growth_rate,
                                                                        drop_rate, memory_efficient))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module(f"transition{i + 1}", _Transition(num_features, num_features // 2))
                num_features //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d) and m.weight is not None and m.bias is not None:
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        out = F.adaptive_avg_pool2d(F.relu(self.features(x)), (1, 1))
        return self.classifier(out.flatten(1))


def _densenet(name: str, growth_rate: int, block_config: Tuple[int, ...], num_init_features: int, weights: Any,
              kwargs: Any) -> DenseNet:
    refuse_pretrained(name, weights, kwargs)
    return DenseNet(growth_rate, block_config, num_init_features, **kwargs)


def densenet121(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> DenseNet:
    """DenseNet-121: growth 32, blocks (6, 12, 24, 16), 64 initial features."""
    return _densenet("densenet121", 32, (6, 12, 24, 16), 64, weights, kwargs)


def densenet161(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> DenseNet:
    """DenseNet-161: growth 48, blocks (6, 12, 36, 24), 96 initial features."""
    return _densenet("densenet161", 48, (6, 12, 36, 24), 96, weights, kwargs)


def densenet169(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> DenseNet:
    """DenseNet-169: growth 32, blocks (6, 12, 32, 32), 64 initial features."""
    return _densenet("densenet169", 32, (6, 12, 32, 32), 64, weights, kwargs)


def densenet201(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> DenseNet:
    """DenseNet-201: growth 32, blocks (6, 12, 48, 32), 64 initial features."""
    return _densenet("densenet201", 32, (6, 12, 48, 32), 64, weights, kwargs)
