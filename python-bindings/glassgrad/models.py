"""Reference models used by the examples, benchmarks, notebooks and tests.

SimpleCNN is the network of examples-and-tutorials/train_mnist.py (docs/examples.md). ResNet18 is the CIFAR variant of He et al. 2016:
a 3x3 stem of width 64 (no 7x7 conv, no max pool), BasicBlocks 2-2-2-2 with widths
64-128-256-512, global average pooling and one Linear layer.
"""
from __future__ import annotations

from . import functional as F
from .nn import BatchNorm2D, Conv2D, Linear, Module, Sequential


class SimpleCNN(Module):
    """[N, 1, 28, 28] -> conv 1->16 -> BN -> relu -> pool 2 -> conv 16->32 -> BN -> relu -> pool 2
    -> flatten [N, 800] -> Linear 800->10."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = Conv2D(1, 16, 3)
        self.bn1 = BatchNorm2D(16)
        self.conv2 = Conv2D(16, 32, 3)
        self.bn2 = BatchNorm2D(32)
        self.fc = Linear(32 * 5 * 5, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(F.flatten(x))


class BasicBlock(Module):
    """Two 3x3 convs with batch norm; the shortcut is a 1x1 conv + BN when the shape changes."""

    def __init__(self, in_channels: int, out_channels: int, stride: int = 1):
        super().__init__()
        self.conv1 = Conv2D(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = BatchNorm2D(out_channels)
        self.conv2 = Conv2D(out_channels, out_channels, 3, stride=1, padding=1, bias=False)
        self.bn2 = BatchNorm2D(out_channels)
        if stride != 1 or in_channels != out_channels:
            self.shortcut = Sequential(Conv2D(in_channels, out_channels, 1, stride=stride, bias=False),
                                       BatchNorm2D(out_channels))
        else:
            self.shortcut = None

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        skip = x if self.shortcut is None else self.shortcut(x)
        return F.relu(out + skip)


class ResNet18(Module):
    """ResNet-18, CIFAR variant: [N, 3, 32, 32] -> [N, num_classes]."""

    def __init__(self, num_classes: int = 10, width: int = 64, in_channels: int = 3):
        super().__init__()
        w = width
        self.conv1 = Conv2D(in_channels, w, 3, stride=1, padding=1, bias=False)
        self.bn1 = BatchNorm2D(w)
        self.layer1 = Sequential(BasicBlock(w, w), BasicBlock(w, w))
        self.layer2 = Sequential(BasicBlock(w, 2 * w, 2), BasicBlock(2 * w, 2 * w))
        self.layer3 = Sequential(BasicBlock(2 * w, 4 * w, 2), BasicBlock(4 * w, 4 * w))
        self.layer4 = Sequential(BasicBlock(4 * w, 8 * w, 2), BasicBlock(8 * w, 8 * w))
        self.fc = Linear(8 * w, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer4(self.layer3(self.layer2(self.layer1(out))))
        out = out.mean(dim=(2, 3))  # global average pooling
        return self.fc(out)
