"""FakeData: random images for trying a pipeline without files. Sample i is the same on every
call (its own generator, seeded with i + random_offset; glassgrad's generator is untouched): a
PIL image made, as torchvision makes it, from standard normal values of image_size (C, H, W) by
ToPILImage, and an int class in [0, num_classes)."""
from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np

from ..transforms import functional as F
from ..transforms._image import Chw
from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    def __init__(self, size: int = 1000, image_size: Tuple[int, int, int] = (3, 224, 224), num_classes: int = 10,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 random_offset: int = 0) -> None:
        super().__init__(transform=transform, target_transform=target_transform)
        self.size, self.num_classes, self.image_size, self.random_offset = size, num_classes, image_size, random_offset

    def __getitem__(self, index: int):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng = np.random.default_rng(index + self.random_offset)
        values = rng.standard_normal(tuple(self.image_size), dtype=np.float32)
        target = int(rng.integers(0, self.num_classes))
        chw = values if len(self.image_size) == 3 else values[None]
        img = F.to_pil_image(Chw(chw))
        return self._apply_transforms(img, target)

    def __len__(self) -> int:
        return self.size
