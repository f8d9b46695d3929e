"""The data sets that are a list of image files with a label each, read by `loader`
(Flowers102, Food101): subclasses fill _image_files, _labels, _split and loader."""
from __future__ import annotations

from typing import Callable, List

from .vision import VisionDataset


class ListedImages(VisionDataset):
    _image_files: List[str]
    _labels: List[int]
    _split: str
    loader: Callable

    def __len__(self) -> int:
        return len(self._image_files)

    def __getitem__(self, idx: int):
        return self._apply_transforms(self.loader(self._image_files[idx]), self._labels[idx])

    def extra_repr(self) -> str:
        return f"split={self._split}"
