"""USPS (torchvision.datasets.USPS): root/usps.bz2 (train, 7,291 digits) and root/usps.t.bz2
(test, 2,007), the bzip2-compressed LIBSVM files the LIBSVM site serves: one line per image,
"<label 1-10> 1:<v> ... 256:<v>" with values in [-1, 1]. As torchvision's: .data is uint8
[N, 16, 16] ((v + 1) / 2 * 255, truncated), .targets a list of int (label - 1); a sample is
(PIL image 'L' 16x16, int)."""
from __future__ import annotations

import bz2
import os
from typing import Callable, Optional

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["USPS"]


class USPS(VisionDataset):
    split_list = {
        "train": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2", "usps.bz2",
                  "ec16c51db3855ca6c91edd34d0e9b197"],
        "test": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2", "usps.t.bz2",
                 "8ea070ee2aca1ac39742fdd1ef5ed118"],
    }

    def __init__(self, root, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        url, filename, md5 = self.split_list["train" if train else "test"]
        path = os.path.join(self.root, filename)
        if download and not os.path.exists(path):
            _download.download_all("USPS", [(filename, md5)], [url[:-len(filename)]], self.root)
        if not os.path.isfile(path):
            raise DatasetNotFoundError(f"Dataset not found. You can use download=True to download it\n"
                                       f"  USPS looked for {path}\n"
                                       f"  fix: USPS(root={self.root!r}, train={train}, download=True), or copy "
                                       f"{filename} into {self.root}")
        rows, labels = [], []
        with bz2.open(path, "rt") as f:
            for number, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                values = [item.split(":")[-1] for item in fields[1:]]
                if len(values) != 256:
                    raise DataFormatError(f"{path}: line {number} has {len(values)} values, expected 256 (16 x 16)")
                labels.append(int(float(fields[0])) - 1)
                rows.append(values)
        imgs = np.asarray(rows, dtype=np.float32).reshape(-1, 16, 16)
        self.data = ((imgs + 1) / 2 * 255).astype(np.uint8)
        self.targets = labels

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(self.data[index], mode="L")
        return self._apply_transforms(img, int(self.targets[index]))

    def __len__(self) -> int:
        return len(self.data)
