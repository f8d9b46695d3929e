"""CIFAR-10 and CIFAR-100 with torchvision's layout: root/cifar-10-batches-py (the extracted
"python version"). A sample is (PIL image RGB 32x32, int label); .data is uint8 [N, 32, 32, 3]
(height, width, channel), .targets a list of ints. The batches are pickles, read with
glassgrad.data.cifar's unpickler that accepts only what they hold (never code)."""
from __future__ import annotations

import os
from typing import Callable, Optional

import numpy as np

from ...data.cifar import _key, _load_pickle
from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}
    _label_key = "labels"

    def __init__(self, root, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        missing = self._missing()
        if missing:
            raise DatasetNotFoundError(
                f"Dataset not found or corrupted. You can use download=True to download it\n"
                f"  {type(self).__name__} looked in {os.path.join(self.root, self.base_folder)} for "
                f"{', '.join(missing)}\n"
                f"  fix: {type(self).__name__}(root={self.root!r}, download=True), or extract {self.filename} "
                f"into {self.root}")
        names = self.train_list if self.train else self.test_list
        data, targets = [], []
        for name, _ in names:
            path = os.path.join(self.root, self.base_folder, name)
            entry = _load_pickle(path)
            batch = np.asarray(_key(entry, b"data", path))
            if batch.dtype != np.uint8 or batch.ndim != 2 or batch.shape[1] != 3072:
                raise DataFormatError(f"{path}: 'data' is {batch.dtype} {list(batch.shape)}, expected uint8 [N, 3072]")
            labels = [int(v) for v in _key(entry, self._label_key.encode(), path)]
            if len(labels) != batch.shape[0]:
                raise DataFormatError(f"{path}: {len(labels)} labels for {batch.shape[0]} images")
            data.append(batch)
            targets.extend(labels)
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)  # HWC, as torchvision
        self.data = np.ascontiguousarray(self.data)
        self.targets = targets
        meta_path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        names_ = _key(_load_pickle(meta_path), self.meta["key"].encode(), meta_path)
        self.classes = [n.decode() if isinstance(n, bytes) else str(n) for n in names_]
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def _missing(self):
        folder = os.path.join(self.root, self.base_folder)
        names = [n for n, _ in self.train_list + self.test_list] + [self.meta["filename"]]
        return [n for n in names if not os.path.isfile(os.path.join(folder, n))]

    def download(self) -> None:
        """Fetches and extracts the archive into root, unless the batches are there already."""
        if not self._missing():
            return
        _download.fetch_archive(type(self).__name__, self.url, self.tgz_md5, self.root)

    def __getitem__(self, index: int):
        img = _image.require_pil().fromarray(self.data[index])
        target = self.targets[index]
        return self._apply_transforms(img, target)

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
    _label_key = "fine_labels"
