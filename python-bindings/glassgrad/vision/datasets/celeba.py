"""CelebA (torchvision.datasets.CelebA; Liu et al. 2015): root/celeba holds img_align_celeba/
(img_align_celeba.zip extracted), list_eval_partition.txt (0 train, 1 valid, 2 test per image),
identity_CelebA.txt, list_attr_celeba.txt, list_bbox_celeba.txt and
list_landmarks_align_celeba.txt (the last three: a count line, a header line, then
"<image> <ints...>" rows), read as torchvision reads them: attr 0/1 (the files' -1/1), identity,
bbox (x_1, y_1, width, height) and landmarks as int64 tensors. target_type "attr", "identity",
"bbox" and/or "landmarks": one gives that target, several a tuple, none None.

The files are served from Google Drive, which needs a browser-like session: download=True raises
DatasetNotFoundError naming each file and where it goes."""
from __future__ import annotations

import os
from typing import Callable, List, Optional, Tuple, Union

import numpy as np

from ...data.errors import DataFormatError, DatasetNotFoundError
from ...utils.data._utils.pin_memory import new_tensor
from ..transforms import _image
from .vision import VisionDataset

__all__ = ["CelebA"]


class CelebA(VisionDataset):
    base_folder = "celeba"
    file_list = [
        ("0B7EVK8r0v71pZjFTYXZWM3FlRnM", "00d2c5bc6d35e252742224ab0c1e8fcb", "img_align_celeba.zip"),
        ("0B7EVK8r0v71pblRyaVFSWGxPY0U", "75e246fa4810816ffd6ee81facbd244c", "list_attr_celeba.txt"),
        ("1_ee_0u7vcNLOfNLegJRHmolfH5ICW-XS", "32bd1bd63d3c78cd57e08160ec5ed1e2", "identity_CelebA.txt"),
        ("0B7EVK8r0v71pbThiMVRxWXZ4dU0", "00566efa6fedff7a56946cd1c10f1c16", "list_bbox_celeba.txt"),
        ("0B7EVK8r0v71pd0FJY3Blby1HUTQ", "cc24ecafdb5b50baae59b03474781f8c", "list_landmarks_align_celeba.txt"),
        ("0B7EVK8r0v71pY0NSMzRuSXJEVkk", "d32c9cbf5e040fd4025c592c306e6668", "list_eval_partition.txt"),
    ]
    _splits = {"train": 0, "valid": 1, "test": 2, "all": None}
    _target_types = ("attr", "identity", "bbox", "landmarks")

    def __init__(self, root, split: str = "train", target_type: Union[List[str], str] = "attr",
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = split
        self.target_type = list(target_type) if isinstance(target_type, list) else [target_type]
        if not self.target_type and self.target_transform is not None:
            raise RuntimeError("target_transform is specified but target_type is empty")
        folder = os.path.join(self.root, self.base_folder)
        if not self._check_integrity():  # download=True too: the files cannot be fetched here
            listing = "\n".join(f"    {name} (Google Drive id {file_id})" for file_id, _, name in self.file_list)
            raise DatasetNotFoundError(
                f"Dataset not found or corrupted. You can use download=True to download it\n"
                f"  CelebA needs these files in {folder} (img_align_celeba.zip extracted to img_align_celeba/):\n"
                f"{listing}\n"
                f"  cause: glassgrad does not fetch from Google Drive (it needs a browser session)\n"
                f"  fix: download them from the CelebA site and copy them there")
        key = split.lower() if isinstance(split, str) else split
        if key not in self._splits:
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are {{'train', 'valid', "
                             f"'test', 'all'}}.")
        wanted = self._splits[key]
        names, parts, _ = self._load_csv("list_eval_partition.txt")
        _, identity, _ = self._load_csv("identity_CelebA.txt")
        _, bbox, _ = self._load_csv("list_bbox_celeba.txt", header=1)
        _, landmarks, _ = self._load_csv("list_landmarks_align_celeba.txt", header=1)
        _, attr, self.attr_names = self._load_csv("list_attr_celeba.txt", header=1)
        mask = np.ones(len(names), bool) if wanted is None else parts[:, 0] == wanted
        self.filename = [n for n, keep in zip(names, mask) if keep]
        self.identity = new_tensor(np.ascontiguousarray(identity[mask]))
        self.bbox = new_tensor(np.ascontiguousarray(bbox[mask]))
        self.landmarks_align = new_tensor(np.ascontiguousarray(landmarks[mask]))
        self.attr = new_tensor(np.ascontiguousarray((attr[mask] + 1) // 2))

    def _load_csv(self, filename: str, header: Optional[int] = None) -> Tuple[List[str], np.ndarray, List[str]]:
        """(first column, the other columns as int64 [N, K], the header's names)."""
        path = os.path.join(self.root, self.base_folder, filename)
        with open(path) as f:
            rows = [line.split() for line in f]
        headers: List[str] = []
        if header is not None:
            headers, rows = rows[header], rows[header + 1:]
        rows = [r for r in rows if r]
        try:
            values = np.array([[int(v) for v in r[1:]] for r in rows], dtype=np.int64)
        except ValueError as e:
            raise DataFormatError(f"{path}: expected '<image> <integers...>' rows ({e})") from None
        return [r[0] for r in rows], values.reshape(len(rows), -1), headers

    def _check_integrity(self) -> bool:
        folder = os.path.join(self.root, self.base_folder)
        return os.path.isdir(os.path.join(folder, "img_align_celeba")) and all(
            os.path.isfile(os.path.join(folder, name)) for _, _, name in self.file_list if not name.endswith(".zip"))

    def __getitem__(self, index: int):
        X = _image.require_pil().open(os.path.join(self.root, self.base_folder, "img_align_celeba",
                                                    self.filename[index]))
        targets = []
        for t in self.target_type:
            if t == "attr":
                targets.append(self.attr[index, :])
            elif t == "identity":
                targets.append(self.identity[index, 0])
            elif t == "bbox":
                targets.append(self.bbox[index, :])
            elif t == "landmarks":
                targets.append(self.landmarks_align[index, :])
            else:
                raise ValueError(f'Target type "{t}" is not recognized.\n  fix: one of "attr", "identity", "bbox", '
                                 '"landmarks"')
        if self.transform is not None:
            X = self.transform(X)
        target = None
        if targets:
            target = tuple(targets) if len(targets) > 1 else targets[0]
            if self.target_transform is not None:
                target = self.target_transform(target)
        return X, target

    def __len__(self) -> int:
        return len(self.attr)

    def extra_repr(self) -> str:
        return f"Target type: {self.target_type}\nSplit: {self.split}"
