"""Omniglot (torchvision.datasets.Omniglot; Lake et al. 2015): root/omniglot-py/images_background
(background=True) or images_evaluation holds <alphabet>/<character>/*.png (the zip extracted).
The target is the character's index over every alphabet's characters; a sample is (PIL image 'L',
or `loader(path)`, int). Alphabets, characters and files are taken in sorted order (torchvision
lists them in the file system's order). As torchvision's, self.root is root/omniglot-py."""
from __future__ import annotations

import os
from typing import Callable, List, Optional, Tuple

from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["Omniglot"]


def _dirs(path: str) -> List[str]:
    return sorted(p for p in os.listdir(path) if os.path.isdir(os.path.join(path, p)))


class Omniglot(VisionDataset):
    folder = "omniglot-py"
    download_url_prefix = "https://raw.githubusercontent.com/brendenlake/omniglot/master/python"
    zips_md5 = {"images_background": "68d2efa1b9178cc56df9314c21c6e718",
                "images_evaluation": "6b91aef0f799c5bb55b94e3f2daec811"}

    def __init__(self, root, background: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False,
                 loader: Optional[Callable] = None) -> None:
        super().__init__(os.path.join(os.path.expanduser(root), self.folder), transform=transform,
                         target_transform=target_transform)
        self.background = background
        name = self._get_target_folder()
        self.target_folder = os.path.join(self.root, name)
        if download and not os.path.isdir(self.target_folder):
            _download.download_all("Omniglot", [(name + ".zip", self.zips_md5[name])], [self.download_url_prefix + "/"],
                                   self.root, lambda path: _download.unzip(path, self.root))
        if not os.path.isdir(self.target_folder):
            raise _download.not_found("Omniglot", self.target_folder + "/<alphabet>/<character>/*.png",
                                      f"Omniglot(root, background={background}, download=True)", name + ".zip",
                                      self.root)
        self._alphabets = _dirs(self.target_folder)
        self._characters = [os.path.join(a, c) for a in self._alphabets
                            for c in _dirs(os.path.join(self.target_folder, a))]
        self._character_images = [
            [(f, idx) for f in sorted(os.listdir(os.path.join(self.target_folder, ch))) if f.endswith(".png")]
            for idx, ch in enumerate(self._characters)]
        self._flat_character_images: List[Tuple[str, int]] = [pair for group in self._character_images
                                                              for pair in group]
        self.loader = loader

    def _get_target_folder(self) -> str:
        return "images_background" if self.background else "images_evaluation"

    def __len__(self) -> int:
        return len(self._flat_character_images)

    def __getitem__(self, index: int):
        name, character = self._flat_character_images[index]
        path = os.path.join(self.target_folder, self._characters[character], name)
        image = _image.require_pil().open(path).convert("L") if self.loader is None else self.loader(path)
        return self._apply_transforms(image, character)
