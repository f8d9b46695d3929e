"""torchvision.models' GoogLeNet (Szegedy et al. 2014, "Going Deeper with Convolutions", Inception
v1 with batch norms): googlenet, with torchvision's arguments (num_classes, aux_logits,
transform_input, init_weights, blocks, dropout, dropout_aux), submodule names and order, outputs
(GoogLeNetOutputs in training with aux_logits, the logits otherwise) and initialization, so
state_dicts load both ways. BasicConv2d and transform_input are shared with inception.py."""
from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any, Callable, List, Optional, Tuple

from ... import _C, nn
from ..._math import add, mul
from ..._shapes import unsqueeze
from ..._spatial import cat
from ..._tensor import Tensor
from ...nn import functional as F
from ._weights import refuse_pretrained

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])


class BasicConv2d(nn.Module):
    """Conv2d without bias (the keyword arguments are Conv2d's), BatchNorm2d(eps=0.001), ReLU."""

    def __init__(self, in_channels: int, out_channels: int, **kwargs: Any) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.bn(self.conv(x)), inplace=True)


def transform_input(x: Tensor) -> Tensor:
    """Maps an input normalized with ImageNet's mean and std to one normalized with mean 0.5 and
    std 0.5 per channel (what the ported Inception weights expect)."""
    channels = [add(mul(unsqueeze(x[:, c], 1), std / 0.5), (mean - 0.5) / 0.5)
                for c, (mean, std) in enumerate([(0.485, 0.229), (0.456, 0.224), (0.406, 0.225)])]
    return cat(channels, 1)


def warn_default_init(name: str, init_weights: Optional[bool]) -> bool:
    """torchvision's FutureWarning for init_weights=None, which means True."""
    if init_weights is None:
        warnings.warn(f"The default weight initialization of {name} will be changed in future releases of "
                      f"torchvision. If you wish to keep the old behavior (which leads to long initialization "
                      f"times due to scipy/scipy#11299), please set init_weights=True.", FutureWarning,
                      stacklevel=3)
        return True
    return init_weights


def init_inception_weights(model: nn.Module, default_std: float) -> None:
    """Convolutions' and linears' weights trunc_normal_(std, a=-2, b=2), std a module's `stddev`
    attribute where it has one; norms 1 and 0. Biases keep their default initialization."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.trunc_normal_(m.weight, mean=0.0, std=float(getattr(m, "stddev", default_std)), a=-2, b=2)
        elif isinstance(m, nn.BatchNorm2d) and m.weight is not None and m.bias is not None:
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)


def check_blocks(layer: str, blocks: List[Any], count: int, argument: str) -> None:
    if len(blocks) != count:
        raise _C.InvalidArgumentError(f"{layer}: {argument} length should be {count} instead of {len(blocks)}\n"
                                      f"  fix: leave {argument}=None for the default blocks")


class Inception(nn.Module):
    """Four branches concatenated on channels: 1x1; 1x1 then 3x3; 1x1 then 3x3 (torchvision's
    "5x5" branch, a 3x3 as in its ported weights); 3x3 max pool then 1x1."""

    def __init__(self, in_channels: int, ch1x1: int, ch3x3red: int, ch3x3: int, ch5x5red: int, ch5x5: int,
                 pool_proj: int, conv_block: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1 = conv(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv(in_channels, ch3x3red, kernel_size=1),
                                     conv(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv(in_channels, ch5x5red, kernel_size=1),
                                     conv(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
                                     conv(in_channels, pool_proj, kernel_size=1))

    def forward(self, x: Tensor) -> Tensor:
        return cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)


class InceptionAux(nn.Module):
    """The auxiliary classifier: adaptive average pool to 4x4, 1x1 convolution to 128 channels,
    Linear(2048, 1024), ReLU, dropout, Linear(1024, num_classes)."""

    def __init__(self, in_channels: int, num_classes: int, conv_block: Optional[Callable[..., nn.Module]] = None,
                 dropout: float = 0.7) -> None:
        super().__init__()
        self.conv = (BasicConv2d if conv_block is None else conv_block)(in_channels, 128, kernel_size=1)
        self.fc1 = nn.Linear(2048, 1024)
        self.fc2 = nn.Linear(1024, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x: Tensor) -> Tensor:
        x = self.conv(F.adaptive_avg_pool2d(x, (4, 4))).flatten(1)
        return self.fc2(self.dropout(F.relu(self.fc1(x), inplace=True)))


# (in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj) of inception 3a..5b.
_CFG = {"3a": (192, 64, 96, 128, 16, 32, 32), "3b": (256, 128, 128, 192, 32, 96, 64),
        "4a": (480, 192, 96, 208, 16, 48, 64), "4b": (512, 160, 112, 224, 24, 64, 64),
        "4c": (512, 128, 128, 256, 24, 64, 64), "4d": (512, 112, 144, 288, 32, 64, 64),
        "4e": (528, 256, 160, 320, 32, 128, 128), "5a": (832, 256, 160, 320, 32, 128, 128),
        "5b": (832, 384, 192, 384, 48, 128, 128)}


class GoogLeNet(nn.Module):
    """torchvision.models.GoogLeNet(num_classes=1000, aux_logits=True, transform_input=False,
    init_weights=None, blocks=None, dropout=0.2, dropout_aux=0.7). init_weights=None warns and
    initializes as True: convolutions and linears trunc_normal_(std=0.01, a=-2, b=2)."""

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True, transform_input: bool = False,
                 init_weights: Optional[bool] = None, blocks: Optional[List[Callable[..., nn.Module]]] = None,
                 dropout: float = 0.2, dropout_aux: float = 0.7) -> None:
        super().__init__()
        blocks = [BasicConv2d, Inception, InceptionAux] if blocks is None else blocks
        init_weights = warn_default_init("GoogleNet", init_weights)
        check_blocks("GoogLeNet", blocks, 3, "blocks")
        conv, inception, aux = blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.conv1 = conv(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = conv(64, 64, kernel_size=1)
        self.conv3 = conv(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception3a = inception(*_CFG["3a"])
        self.inception3b = inception(*_CFG["3b"])
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        for name in ("4a", "4b", "4c", "4d", "4e"):
            setattr(self, "inception" + name, inception(*_CFG[name]))
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.inception5a = inception(*_CFG["5a"])
        self.inception5b = inception(*_CFG["5b"])
        self.aux1: Optional[nn.Module] = aux(512, num_classes, dropout=dropout_aux) if aux_logits else None
        self.aux2: Optional[nn.Module] = aux(528, num_classes, dropout=dropout_aux) if aux_logits else None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)
        if init_weights:
            init_inception_weights(self, 0.01)

    def _forward(self, x: Tensor) -> Tuple[Tensor, Optional[Tensor], Optional[Tensor]]:
        x = self.maxpool2(self.conv3(self.conv2(self.maxpool1(self.conv1(x)))))
        x = self.inception4a(self.maxpool3(self.inception3b(self.inception3a(x))))
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        x = self.inception5b(self.inception5a(self.maxpool4(self.inception4e(x))))
        return self.fc(self.dropout(self.avgpool(x).flatten(1))), aux2, aux1

    def forward(self, x: Tensor) -> Any:
        if self.transform_input:
            x = transform_input(x)
        logits, aux2, aux1 = self._forward(x)
        if self.training and self.aux_logits:
            return GoogLeNetOutputs(logits, aux2, aux1)
        return logits


def googlenet(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> GoogLeNet:
    """GoogLeNet (Inception v1); kwargs go to GoogLeNet."""
    refuse_pretrained("googlenet", weights, kwargs)
    return GoogLeNet(**kwargs)
