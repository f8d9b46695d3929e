"""SVHN (Street View House Numbers, cropped digits) with torchvision's layout: root/<split>_32x32.mat,
the MATLAB files the dataset's site serves, read with scipy.io.loadmat (as torchvision reads them).
A sample is (PIL image RGB 32x32, int label); .data is uint8 [N, 3, 32, 32] (channel first, as
torchvision's), .labels an int64 array with the files' digit 10 read as 0 (docs/data-loading.md)."""
from __future__ import annotations

import os
from typing import Callable, Optional

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["SVHN"]


class SVHN(VisionDataset):
    split_list = {
        "train": ["http://ufldl.stanford.edu/housenumbers/train_32x32.mat", "train_32x32.mat",
                  "e26dedcc434d2e4c54c9b2d4a06d8373"],
        "test": ["http://ufldl.stanford.edu/housenumbers/test_32x32.mat", "test_32x32.mat",
                 "eb5a983be6a315427106f1b164d9cef3"],
        "extra": ["http://ufldl.stanford.edu/housenumbers/extra_32x32.mat", "extra_32x32.mat",
                  "a93ce644f1a588dc4d68dda5feec44a7"],
    }

    def __init__(self, root, split: str = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        if split not in self.split_list:
            valid = "{" + ", ".join(repr(s) for s in self.split_list) + "}"
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are {valid}.\n"
                             f"  fix: SVHN(root, split='train')")
        self.split = split
        self.url, self.filename, self.file_md5 = self.split_list[split]
        if download:
            self.download()
        path = os.path.join(self.root, self.filename)
        if not os.path.isfile(path):
            raise DatasetNotFoundError(
                f"Dataset not found or corrupted. You can use download=True to download it\n"
                f"  SVHN looked for {path}\n"
                f"  fix: SVHN(root={self.root!r}, split={split!r}, download=True), or copy {self.filename} into "
                f"{self.root}")
        try:
            import scipy.io as sio
        except ImportError:
            raise ImportError("SVHN reads its .mat files with scipy.io.loadmat, and scipy is not installed\n"
                              "  fix: pip install scipy") from None
        loaded = sio.loadmat(path)
        if "X" not in loaded or "y" not in loaded:
            raise DataFormatError(f"{path}: expected the variables 'X' and 'y', found {sorted(loaded)}")
        x, y = np.asarray(loaded["X"]), np.asarray(loaded["y"])
        if x.dtype != np.uint8 or x.ndim != 4 or x.shape[2] != 3 or y.size != x.shape[3]:
            raise DataFormatError(f"{path}: 'X' is {x.dtype} {list(x.shape)} and 'y' {list(y.shape)}, expected uint8 "
                                  f"[32, 32, 3, N] and N labels")
        self.labels = y.astype(np.int64).squeeze(1) if y.ndim == 2 else y.astype(np.int64).reshape(-1)
        np.place(self.labels, self.labels == 10, 0)  # the files write the digit 0 as 10
        self.data = np.ascontiguousarray(np.transpose(x, (3, 2, 0, 1)))  # [N, C, H, W], as torchvision's

    def download(self) -> None:
        """Fetches this split's .mat file into root, unless it is there already."""
        if os.path.isfile(os.path.join(self.root, self.filename)):
            return
        _download.download_all("SVHN", [(self.filename, self.file_md5)], [self.url[:-len(self.filename)]], self.root)

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(np.transpose(self.data[index], (1, 2, 0)))
        return self._apply_transforms(img, int(self.labels[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {self.split}"
