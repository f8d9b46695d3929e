"""torchvision.models' Inception v3 (Szegedy et al. 2015, "Rethinking the Inception Architecture for
Computer Vision"): inception_v3 and Inception3, with torchvision's arguments (num_classes,
aux_logits, transform_input, inception_blocks, init_weights, dropout), submodule names and order
(Conv2d_1a_3x3 ... Mixed_7c, AuxLogits, fc), outputs (InceptionOutputs in training with
aux_logits, the logits otherwise) and initialization, so state_dicts load both ways. It expects
299x299 inputs (75x75 at least; in training, the AuxLogits head needs 299x299)."""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Callable, List, Optional, Tuple

from ... import nn
from ..._spatial import cat
from ..._tensor import Tensor
from ...nn import functional as F
from ._weights import refuse_pretrained
from .googlenet import BasicConv2d, check_blocks, init_inception_weights, transform_input, warn_default_init

__all__ = ["Inception3", "InceptionOutputs", "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
_Conv = Optional[Callable[..., nn.Module]]


def _chain(x: Tensor, *layers: nn.Module) -> Tensor:
    for layer in layers:
        x = layer(x)
    return x


class InceptionA(nn.Module):
    """35x35 block: 1x1 (64); 1x1 (48), 5x5 (64); 1x1 (64), 3x3 (96), 3x3 (96); 3x3 average pool,
    1x1 (pool_features)."""

    def __init__(self, in_channels: int, pool_features: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1x1 = conv(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = conv(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = conv(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, padding=1)
        self.branch_pool = conv(in_channels, pool_features, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        return cat([self.branch1x1(x), _chain(x, self.branch5x5_1, self.branch5x5_2),
                    _chain(x, self.branch3x3dbl_1, self.branch3x3dbl_2, self.branch3x3dbl_3),
                    self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))], 1)


class InceptionB(nn.Module):
    """Grid reduction 35 -> 17: 3x3 stride 2 (384); 1x1, 3x3, 3x3 stride 2 (96); 3x3 max pool."""

    def __init__(self, in_channels: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3 = conv(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, stride=2)

    def forward(self, x: Tensor) -> Tensor:
        return cat([self.branch3x3(x), _chain(x, self.branch3x3dbl_1, self.branch3x3dbl_2, self.branch3x3dbl_3),
                    F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class InceptionC(nn.Module):
    """17x17 block with factorized 7x7 convolutions (1x7 and 7x1) of channels_7x7 channels."""

    def __init__(self, in_channels: int, channels_7x7: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        c7 = channels_7x7
        self.branch1x1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = conv(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = conv(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = conv(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = conv(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = conv(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = conv(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        dbl = _chain(x, self.branch7x7dbl_1, self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4,
                     self.branch7x7dbl_5)
        return cat([self.branch1x1(x), _chain(x, self.branch7x7_1, self.branch7x7_2, self.branch7x7_3), dbl,
                    self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))], 1)


class InceptionD(nn.Module):
    """Grid reduction 17 -> 8: 1x1, 3x3 stride 2 (320); 1x1, 1x7, 7x1, 3x3 stride 2 (192); max pool."""

    def __init__(self, in_channels: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = conv(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = conv(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = conv(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = conv(192, 192, kernel_size=3, stride=2)

    def forward(self, x: Tensor) -> Tensor:
        return cat([_chain(x, self.branch3x3_1, self.branch3x3_2),
                    _chain(x, self.branch7x7x3_1, self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4),
                    F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class InceptionE(nn.Module):
    """8x8 block with expanded filter banks: the 3x3 branches end in parallel 1x3 and 3x1
    convolutions whose outputs are concatenated."""

    def __init__(self, in_channels: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1x1 = conv(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = conv(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = conv(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = conv(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        b3 = self.branch3x3_1(x)
        dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return cat([self.branch1x1(x), cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], 1),
                    cat([self.branch3x3dbl_3a(dbl), self.branch3x3dbl_3b(dbl)], 1),
                    self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))], 1)


class InceptionAux(nn.Module):
    """The auxiliary classifier on the 17x17 grid: 5x5 average pool stride 3, 1x1 (128), 5x5 (768),
    adaptive average pool, Linear (initialized with std 0.001). conv1's stddev 0.01 is set on the
    block, not on its Conv2d, so, as in torchvision, that convolution starts with std 0.1."""

    def __init__(self, in_channels: int, num_classes: int, conv_block: _Conv = None) -> None:
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.conv0 = conv(in_channels, 128, kernel_size=1)
        self.conv1 = conv(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x: Tensor) -> Tensor:
        x = self.conv1(self.conv0(F.avg_pool2d(x, kernel_size=5, stride=3)))
        return self.fc(F.adaptive_avg_pool2d(x, (1, 1)).flatten(1))


class Inception3(nn.Module):
    """torchvision.models.Inception3(num_classes=1000, aux_logits=True, transform_input=False,
    inception_blocks=None, init_weights=None, dropout=0.5). init_weights=None warns and initializes
    as True: convolutions and linears trunc_normal_(std=0.1, a=-2, b=2) unless the module sets
    `stddev`."""

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True, transform_input: bool = False,
                 inception_blocks: Optional[List[Callable[..., nn.Module]]] = None,
                 init_weights: Optional[bool] = None, dropout: float = 0.5) -> None:
        super().__init__()
        if inception_blocks is None:
            inception_blocks = [BasicConv2d, InceptionA, InceptionB, InceptionC, InceptionD, InceptionE, InceptionAux]
        init_weights = warn_default_init("inception_v3", init_weights)
        check_blocks("Inception3", inception_blocks, 7, "inception_blocks")
        conv, block_a, block_b, block_c, block_d, block_e, aux = inception_blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.Conv2d_1a_3x3 = conv(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = conv(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = conv(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = conv(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = conv(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = block_a(192, pool_features=32)
        self.Mixed_5c = block_a(256, pool_features=64)
        self.Mixed_5d = block_a(288, pool_features=64)
        self.Mixed_6a = block_b(288)
        self.Mixed_6b = block_c(768, channels_7x7=128)
        self.Mixed_6c = block_c(768, channels_7x7=160)
        self.Mixed_6d = block_c(768, channels_7x7=160)
        self.Mixed_6e = block_c(768, channels_7x7=192)
        self.AuxLogits: Optional[nn.Module] = aux(768, num_classes) if aux_logits else None
        self.Mixed_7a = block_d(768)
        self.Mixed_7b = block_e(1280)
        self.Mixed_7c = block_e(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            init_inception_weights(self, 0.1)

    def _forward(self, x: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        x = _chain(x, self.Conv2d_1a_3x3, self.Conv2d_2a_3x3, self.Conv2d_2b_3x3, self.maxpool1, self.Conv2d_3b_1x1,
                   self.Conv2d_4a_3x3, self.maxpool2, self.Mixed_5b, self.Mixed_5c, self.Mixed_5d, self.Mixed_6a,
                   self.Mixed_6b, self.Mixed_6c, self.Mixed_6d, self.Mixed_6e)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = _chain(x, self.Mixed_7a, self.Mixed_7b, self.Mixed_7c, self.avgpool, self.dropout)
        return self.fc(x.flatten(1)), aux

    def forward(self, x: Tensor) -> Any:
        if self.transform_input:
            x = transform_input(x)
        logits, aux = self._forward(x)
        if self.training and self.aux_logits:
            return InceptionOutputs(logits, aux)
        return logits


def inception_v3(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> Inception3:
    """Inception v3 (299x299 inputs); kwargs go to Inception3."""
    refuse_pretrained("inception_v3", weights, kwargs)
    return Inception3(**kwargs)
