"""GTSRB (torchvision.datasets.GTSRB; Stallkamp et al. 2012, German traffic signs): root/gtsrb
holds GTSRB/Training/<class 00000..00042>/*.ppm (train) and GTSRB/Final_Test/Images/*.ppm with
GT-final_test.csv ("Filename;...;ClassId" rows, semicolon separated) for the test split, the
archives extracted. A sample is (PIL image RGB, int class)."""
from __future__ import annotations

import csv
import os
from typing import Callable, Optional

from ..transforms import _image
from . import _download
from .utils import verify_str_arg
from .folder import make_dataset
from .vision import VisionDataset

__all__ = ["GTSRB"]

_URL = "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
_ARCHIVES = {"train": [("GTSRB-Training_fixed.zip", "513f3c79a4c5141765e10e952eaa2478")],
             "test": [("GTSRB_Final_Test_Images.zip", "c7e4e6327067d32654124b0fe9e82185"),
                      ("GTSRB_Final_Test_GT.zip", "fe31e9c9270bbcd7b84b7f21a9d9d9e5")]}


class GTSRB(VisionDataset):
    def __init__(self, root, split: str = "train", transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = verify_str_arg(split, "split", ("train", "test"))
        self._base_folder = os.path.join(self.root, "gtsrb")
        self._target_folder = os.path.join(self._base_folder, "GTSRB",
                                           "Training" if split == "train" else os.path.join("Final_Test", "Images"))
        if download and not os.path.isdir(self._target_folder):
            _download.download_all("GTSRB", _ARCHIVES[split], [_URL], self._base_folder,
                                   lambda path: _download.unzip(path, self._base_folder))
        if not os.path.isdir(self._target_folder):
            raise _download.not_found("GTSRB", self._target_folder + "/",
                                      f"GTSRB(root={self.root!r}, split={split!r}, download=True)",
                                      ", ".join(name for name, _ in _ARCHIVES[split]), self._base_folder)
        if split == "train":
            self._samples = make_dataset(self._target_folder, extensions=(".ppm",))
        else:
            with open(os.path.join(self._base_folder, "GT-final_test.csv")) as f:
                self._samples = [(os.path.join(self._target_folder, row["Filename"]), int(row["ClassId"]))
                                 for row in csv.DictReader(f, delimiter=";", skipinitialspace=True)]

    def __len__(self) -> int:
        return len(self._samples)

    def __getitem__(self, index: int):
        path, target = self._samples[index]
        return self._apply_transforms(_image.require_pil().open(path).convert("RGB"), target)
