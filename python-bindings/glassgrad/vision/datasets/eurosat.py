"""EuroSAT (torchvision.datasets.EuroSAT; Helber et al. 2019): an ImageFolder over
root/eurosat/2750/<class>/<image>.jpg (EuroSAT.zip extracted into root/eurosat), 10 land-use
classes of 64x64 Sentinel-2 RGB tiles; root stays the given root, as torchvision's."""
from __future__ import annotations

import os
from typing import Callable, Optional

from . import _download
from .folder import ImageFolder, default_loader

__all__ = ["EuroSAT"]

_URL = "https://huggingface.co/datasets/torchgeo/eurosat/resolve/c877bcd43f099cd0196738f714544e355477f3fd/"


class EuroSAT(ImageFolder):
    def __init__(self, root, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = False, loader: Callable = default_loader) -> None:
        self.root = os.path.expanduser(root)
        self._base_folder = os.path.join(self.root, "eurosat")
        self._data_folder = os.path.join(self._base_folder, "2750")
        if download and not os.path.exists(self._data_folder):
            _download.download_all("EuroSAT", [("EuroSAT.zip", "c8fa014336c82ac7804f0398fcb19387")], [_URL],
                                   self._base_folder, lambda path: _download.unzip(path, self._base_folder))
        if not os.path.exists(self._data_folder):
            raise _download.not_found("EuroSAT", self._data_folder + "/<class>/*.jpg",
                                      f"EuroSAT(root={root!r}, download=True)", "EuroSAT.zip", self._base_folder)
        super().__init__(self._data_folder, transform=transform, target_transform=target_transform, loader=loader)
        self.root = os.path.expanduser(root)

    def __len__(self) -> int:
        return len(self.samples)
