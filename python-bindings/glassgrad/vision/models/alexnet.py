"""torchvision.models' AlexNet (Krizhevsky et al. 2012, in the single-tower form of "One weird
trick for parallelizing convolutional neural networks", which torchvision builds), with
torchvision's arguments, submodule names and order (features, avgpool, classifier) so state_dicts
load both ways. Layers keep PyTorch's default initialization, as torchvision's do."""
from __future__ import annotations

from typing import Any

from ... import nn
from ..._tensor import Tensor
from ._weights import refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


class AlexNet(nn.Module):
    """torchvision.models.AlexNet(num_classes=1000, dropout=0.5): five convolutions (11x11 stride
    4, 5x5, 3x3 x3) with three 3x3 stride-2 max pools, AdaptiveAvgPool2d((6, 6)), then
    [Dropout, Linear(9216, 4096), ReLU, Dropout, Linear(4096, 4096), ReLU, Linear(4096, num_classes)]."""

    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(x.flatten(1))


def alexnet(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> AlexNet:
    """AlexNet; inputs of at least 63x63 (the three pools need a 3x3 map each)."""
    refuse_pretrained("alexnet", weights, kwargs)
    return AlexNet(**kwargs)
