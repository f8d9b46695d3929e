"""CocoDetection and CocoCaptions with torchvision's signature and samples: root holds the images,
annFile is the COCO JSON; sample i is (the PIL RGB image of the i-th image id in increasing order,
its annotations as the file lists them: dicts for detection, the caption strings for captions).
`.coco` indexes the file (_coco_index.py)."""
from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, Tuple

from ..transforms import _image
from ._coco_index import coco_index
from .vision import VisionDataset

__all__ = ["CocoCaptions", "CocoDetection"]


class CocoDetection(VisionDataset):
    def __init__(self, root, annFile: str, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, transforms: Optional[Callable] = None) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.coco = coco_index(annFile)
        self.ids = sorted(self.coco.imgs.keys())

    def _load_image(self, id: int):
        name = self.coco.loadImgs(id)[0]["file_name"]
        return _image.require_pil().open(os.path.join(self.root, name)).convert("RGB")

    def _load_target(self, id: int) -> List[Any]:
        return self.coco.loadAnns(self.coco.getAnnIds(id))

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        if not isinstance(index, int):
            raise ValueError(f"Index must be of type integer, got {type(index)} instead.")
        id = self.ids[index]
        image, target = self._load_image(id), self._load_target(id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self) -> int:
        return len(self.ids)


class CocoCaptions(CocoDetection):
    """The target is the list of the image's caption strings."""

    def _load_target(self, id: int) -> List[str]:
        return [ann["caption"] for ann in super()._load_target(id)]
