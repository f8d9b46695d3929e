"""Food101 (torchvision.datasets.Food101; Bossard et al. 2014): root/food-101 holds
images/<class>/<id>.jpg and meta/{train,test}.json ({class: ["<class>/<id>", ...]}), the
food-101.tar.gz archive extracted. classes are the JSON's keys sorted; a sample is (the image
through `loader`, int label)."""
from __future__ import annotations

import json
import os
from typing import Callable, Optional

from . import _download
from ._listed import ListedImages
from .utils import verify_str_arg
from .folder import default_loader

__all__ = ["Food101"]


class Food101(ListedImages):
    _URL = "http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz"
    _MD5 = "85eeb15f3717b99a5da872d97d918f87"

    def __init__(self, root, split: str = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False,
                 loader: Callable = default_loader) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = verify_str_arg(split, "split", ("train", "test"))
        self._base_folder = os.path.join(self.root, "food-101")
        self._meta_folder = os.path.join(self._base_folder, "meta")
        self._images_folder = os.path.join(self._base_folder, "images")
        if download and not self._check_exists():
            _download.fetch_archive("Food101", self._URL, self._MD5, self.root)
        if not self._check_exists():
            raise _download.not_found("Food101", f"{self._meta_folder}/ and {self._images_folder}/",
                                      f"Food101(root={self.root!r}, download=True)", "food-101.tar.gz", self.root)
        with open(os.path.join(self._meta_folder, f"{split}.json")) as f:
            metadata = json.load(f)
        self.classes = sorted(metadata)
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self._labels, self._image_files = [], []
        for name, paths in metadata.items():
            self._labels += [self.class_to_idx[name]] * len(paths)
            self._image_files += [os.path.join(self._images_folder, *f"{p}.jpg".split("/")) for p in paths]
        self.loader = loader

    def _check_exists(self) -> bool:
        return os.path.isdir(self._meta_folder) and os.path.isdir(self._images_folder)
