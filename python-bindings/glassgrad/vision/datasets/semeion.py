"""SEMEION (torchvision.datasets.SEMEION; the Semeion handwritten digits): root/semeion.data, the
UCI file: one line per digit, 256 pixel values (0 or 1) then 10 one-hot label columns. As
torchvision's: .data uint8 [N, 16, 16] (value * 255), .labels the one-hot column of each line; a
sample is (PIL image 'L' 16x16, int). download defaults to True, as torchvision's."""
from __future__ import annotations

import os
from typing import Callable, Optional

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["SEMEION"]


class SEMEION(VisionDataset):
    url = "http://archive.ics.uci.edu/ml/machine-learning-databases/semeion/semeion.data"
    filename = "semeion.data"
    md5_checksum = "cb545d371d2ce14ec121470795a77432"

    def __init__(self, root, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = True) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        path = os.path.join(self.root, self.filename)
        if download and not os.path.isfile(path):
            _download.download_all("SEMEION", [(self.filename, self.md5_checksum)], [self.url[:-len(self.filename)]],
                                   self.root)
        if not os.path.isfile(path):
            raise DatasetNotFoundError(f"Dataset not found or corrupted. You can use download=True to download it\n"
                                       f"  SEMEION looked for {path}\n"
                                       f"  fix: SEMEION(root={self.root!r}), or copy semeion.data into {self.root}")
        data = np.loadtxt(path, ndmin=2)
        if data.shape[1] != 266:
            raise DataFormatError(f"{path}: lines of {data.shape[1]} values, expected 266 (256 pixels, 10 labels)")
        self.data = (data[:, :256] * 255).astype(np.uint8).reshape(-1, 16, 16)
        self.labels = np.nonzero(data[:, 256:])[1]

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(self.data[index], mode="L")
        return self._apply_transforms(img, int(self.labels[index]))

    def __len__(self) -> int:
        return len(self.data)
