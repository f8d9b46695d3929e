"""STL-10 with torchvision's layout: root/stl10_binary/ (the extracted binary archive) holding
train_X.bin, train_y.bin, test_X.bin, test_y.bin, unlabeled_X.bin, class_names.txt and
fold_indices.txt. An X file is raw uint8 images, each 3 x 96 x 96 written channel by channel and
column-major within a channel (torchvision transposes each to rows); a y file one uint8 label
per image, 1 to 10 (read as 0 to 9). A sample is (PIL image RGB 96x96, int label; -1 for the
unlabeled split); .data is uint8 [N, 3, 96, 96], .labels int64 (docs/data-loading.md)."""
from __future__ import annotations

import os
from typing import Callable, List, Optional

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["STL10"]

_SIDE = 96
_IMAGE_BYTES = 3 * _SIDE * _SIDE


class STL10(VisionDataset):
    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    tgz_md5 = "91f7769df0f17e558f3565bffb0c7dfb"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    train_list = [["train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"],
                  ["train_y.bin", "5a34089d4802c674881badbb80307741"],
                  ["unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"]]
    test_list = [["test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"],
                 ["test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"]]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(self, root, split: str = "train", folds: Optional[int] = None, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        if split not in self.splits:
            valid = ", ".join(repr(s) for s in self.splits)
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are {{{valid}}}.\n"
                             f"  fix: STL10(root, split='train')")
        self.split = split
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        missing = self._missing()
        if missing:
            raise DatasetNotFoundError(
                f"Dataset not found or corrupted. You can use download=True to download it\n"
                f"  STL10 looked in {os.path.join(self.root, self.base_folder)} for {', '.join(missing)}\n"
                f"  fix: STL10(root={self.root!r}, split={split!r}, download=True), or extract {self.filename} "
                f"into {self.root}")
        if split in ("train", "train+unlabeled"):
            self.data, labels = self._load("train_X.bin", "train_y.bin")
            self.data, labels = self._fold(self.data, labels)
            if split == "train+unlabeled":
                unlabeled, _ = self._load("unlabeled_X.bin")
                self.data = np.concatenate((self.data, unlabeled))
                labels = np.concatenate((labels, np.full(len(unlabeled), -1, np.int64)))
        elif split == "unlabeled":
            self.data, _ = self._load("unlabeled_X.bin")
            labels = np.full(len(self.data), -1, np.int64)
        else:
            self.data, labels = self._load("test_X.bin", "test_y.bin")
        self.labels: np.ndarray = labels
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    @staticmethod
    def _verify_folds(folds):
        if folds is None:
            return folds
        if isinstance(folds, int) and not isinstance(folds, bool):
            if folds in range(10):
                return folds
            raise ValueError(f"Value for argument folds should be in the range [0, 10), but got {folds}.\n"
                             f"  fix: folds=0 (one of the 10 predefined training folds) or None (all of them)")
        raise ValueError(f"Expected type None or int for argument folds, but got type {type(folds)}.\n"
                         f"  fix: folds=0")

    def _needed(self) -> List[str]:
        return {"train": ["train_X.bin", "train_y.bin"],
                "train+unlabeled": ["train_X.bin", "train_y.bin", "unlabeled_X.bin"],
                "unlabeled": ["unlabeled_X.bin"], "test": ["test_X.bin", "test_y.bin"]}[self.split]

    def _missing(self) -> List[str]:
        folder = os.path.join(self.root, self.base_folder)
        return [n for n in self._needed() if not os.path.isfile(os.path.join(folder, n))]

    def _load(self, data_file: str, labels_file: Optional[str] = None):
        path = os.path.join(self.root, self.base_folder, data_file)
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size % _IMAGE_BYTES:
            raise DataFormatError(f"{path}: {raw.size} bytes is not a whole number of 3x96x96 images "
                                  f"({_IMAGE_BYTES} bytes each)\n  fix: extract the archive again")
        images = np.ascontiguousarray(raw.reshape(-1, 3, _SIDE, _SIDE).transpose(0, 1, 3, 2))  # columns -> rows
        if labels_file is None:
            return images, None
        lpath = os.path.join(self.root, self.base_folder, labels_file)
        labels = np.fromfile(lpath, dtype=np.uint8).astype(np.int64) - 1  # the files count classes from 1
        if len(labels) != len(images):
            raise DataFormatError(f"{lpath}: {len(labels)} labels for the {len(images)} images of {path}")
        return images, labels

    def _fold(self, data: np.ndarray, labels: np.ndarray):
        """One of the 10 predefined training folds (a line of indices in fold_indices.txt)."""
        if self.folds is None:
            return data, labels
        path = os.path.join(self.root, self.base_folder, self.folds_list_file)
        if not os.path.isfile(path):
            raise DatasetNotFoundError(f"STL10: folds={self.folds} needs {path}\n  fix: extract {self.filename} "
                                       f"into {self.root}, or folds=None")
        with open(path) as f:
            lines = f.read().splitlines()
        if self.folds >= len(lines):
            raise DataFormatError(f"{path}: {len(lines)} lines, no fold {self.folds}")
        idx = np.array(lines[self.folds].split(), dtype=np.int64)
        return data[idx], labels[idx]

    def download(self) -> None:
        """Fetches and extracts the archive into root, unless this split's files are there already."""
        if not self._missing():
            return
        _download.fetch_archive("STL10", self.url, self.tgz_md5, self.root)

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(np.transpose(self.data[index], (1, 2, 0)))
        target = None if self.labels is None else int(self.labels[index])
        return self._apply_transforms(img, target)

    def __len__(self) -> int:
        return self.data.shape[0]

    def extra_repr(self) -> str:
        return f"Split: {self.split}"
