"""torchvision.models.detection.image_list.ImageList: images of different sizes padded into one
batch tensor, with each image's own (height, width) kept beside it."""
from __future__ import annotations

from typing import Any, List, Tuple

from ...._tensor import Tensor

__all__ = ["ImageList"]


class ImageList:
    """ImageList(tensors [N, C, H, W], image_sizes [(h, w), ...])."""

    def __init__(self, tensors: Tensor, image_sizes: List[Tuple[int, int]]) -> None:
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device: Any) -> "ImageList":
        return ImageList(self.tensors.to(device), self.image_sizes)
