"""DTD (torchvision.datasets.DTD; Cimpoi et al. 2014, the Describable Textures Dataset):
root/dtd/dtd holds images/<class>/<name>.jpg and labels/{train,val,test}{1..10}.txt ("<class>/<name>"
lines), dtd-r1.0.1.tar.gz extracted into root/dtd. classes are the split file's classes sorted; a
sample is (the image through `loader`, int label)."""
from __future__ import annotations

import os
from typing import Callable, Optional

from . import _download
from ._listed import ListedImages
from .utils import verify_str_arg
from .folder import default_loader

__all__ = ["DTD"]


class DTD(ListedImages):
    _URL = "https://www.robots.ox.ac.uk/~vgg/data/dtd/download/dtd-r1.0.1.tar.gz"
    _MD5 = "fff73e5086ae6bdbea199a49dfb8a4c1"

    def __init__(self, root, split: str = "train", partition: int = 1, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False,
                 loader: Callable = default_loader) -> None:
        verify_str_arg(split, "split", ("train", "val", "test"))
        if not isinstance(partition, int) or not 1 <= partition <= 10:
            raise ValueError(f"Parameter 'partition' should be an integer with `1 <= partition <= 10`, but got "
                             f"{partition} instead")
        self._split, self._partition = split, partition
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._base_folder = os.path.join(self.root, "dtd")
        self._data_folder = os.path.join(self._base_folder, "dtd")
        self._meta_folder = os.path.join(self._data_folder, "labels")
        self._images_folder = os.path.join(self._data_folder, "images")
        if download and not os.path.isdir(self._data_folder):
            _download.fetch_archive("DTD", self._URL, self._MD5, self._base_folder)
        if not os.path.isdir(self._data_folder):
            raise _download.not_found("DTD", self._data_folder + "/ (images/ and labels/)",
                                      f"DTD(root={self.root!r}, download=True)", "dtd-r1.0.1.tar.gz", self._base_folder)
        names = []
        with open(os.path.join(self._meta_folder, f"{split}{partition}.txt")) as f:
            for line in f:
                if line.strip():
                    cls, name = line.strip().split("/")
                    names.append((cls, name))
        self.classes = sorted({cls for cls, _ in names})
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self._image_files = [os.path.join(self._images_folder, cls, name) for cls, name in names]
        self._labels = [self.class_to_idx[cls] for cls, _ in names]
        self.loader = loader

    def extra_repr(self) -> str:
        return f"split={self._split}, partition={self._partition}"
