"""OxfordIIITPet (37 cat and dog breeds) with torchvision's layout: root/oxford-iiit-pet/images/<id>.jpg
and root/oxford-iiit-pet/annotations/{trainval,test}.txt, each line `<id> <class 1-37> <species 1-2>
<breed id>`, with the trimaps under annotations/trimaps/<id>.png. A sample is (PIL image RGB,
target): the 0-based breed ("category"), 0 cat / 1 dog ("binary-category"), the trimap as a PIL
image ("segmentation"), or a tuple of those in the order target_types names them."""
from __future__ import annotations

import os
from typing import Callable, Optional, Sequence, Union

from ...data.errors import DataFormatError, DatasetNotFoundError
from ..transforms import _image
from . import _download
from .vision import VisionDataset

__all__ = ["OxfordIIITPet"]

_SPLITS = ("trainval", "test")
_TARGET_TYPES = ("category", "binary-category", "segmentation")


def _choice(value, argument: str, valid: Sequence[str], fix: str) -> str:
    """torchvision's verify_str_arg: value if it is one of valid, else its ValueError."""
    if value not in valid:
        listing = "{" + ", ".join(repr(v) for v in valid) + "}"
        raise ValueError(f"Unknown value '{value}' for argument {argument}. Valid values are {listing}.\n"
                         f"  fix: {fix}")
    return value


class OxfordIIITPet(VisionDataset):
    _RESOURCES = (
        ("https://www.robots.ox.ac.uk/~vgg/data/pets/data/images.tar.gz", "5c4f3ee8e5d25df40f4fd59a7f44e54c"),
        ("https://www.robots.ox.ac.uk/~vgg/data/pets/data/annotations.tar.gz", "95a8c909bbe2e81eed6a22bccdf3f68f"),
    )
    _VALID_TARGET_TYPES = _TARGET_TYPES

    def __init__(self, root, split: str = "trainval", target_types: Union[Sequence[str], str] = "category",
                 transforms: Optional[Callable] = None, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        self._split = _choice(split, "split", _SPLITS, "OxfordIIITPet(root, split='trainval') or split='test'")
        names = [target_types] if isinstance(target_types, str) else list(target_types)
        self._target_types = [_choice(t, "target_types", _TARGET_TYPES,
                                      "target_types='category', 'binary-category', 'segmentation' or a list of them")
                              for t in names]
        super().__init__(root, transforms=transforms, transform=transform, target_transform=target_transform)
        self._base_folder = os.path.join(str(self.root), "oxford-iiit-pet")
        self._images_folder = os.path.join(self._base_folder, "images")
        self._anns_folder = os.path.join(self._base_folder, "annotations")
        self._segs_folder = os.path.join(self._anns_folder, "trimaps")
        if download:
            self._download()
        if not self._check_exists():
            raise DatasetNotFoundError(
                f"Dataset not found. You can use download=True to download it\n"
                f"  OxfordIIITPet looked for the folders {self._images_folder} and {self._anns_folder}\n"
                f"  fix: OxfordIIITPet(root={self.root!r}, download=True), or extract images.tar.gz and "
                f"annotations.tar.gz into {self._base_folder}")
        ids, self._labels, self._bin_labels = [], [], []
        listing = os.path.join(self._anns_folder, f"{self._split}.txt")
        with open(listing, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 4:
                    raise DataFormatError(f"{listing}:{n}: expected '<image id> <class> <species> <breed id>', "
                                          f"found {line.strip()!r}")
                ids.append(fields[0])
                self._labels.append(int(fields[1]) - 1)
                self._bin_labels.append(int(fields[2]) - 1)
        self.bin_classes = ["Cat", "Dog"]
        # a breed's name from its image ids (`great_pyrenees_12` -> "Great Pyrenees"), in label order
        breeds = sorted({(image_id.rsplit("_", 1)[0], label) for image_id, label in zip(ids, self._labels)},
                        key=lambda breed: breed[1])
        self.classes = [" ".join(part.title() for part in raw.split("_")) for raw, _ in breeds]
        self.bin_class_to_idx = {name: i for i, name in enumerate(self.bin_classes)}
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        self._images = [os.path.join(self._images_folder, f"{image_id}.jpg") for image_id in ids]
        self._segs = [os.path.join(self._segs_folder, f"{image_id}.png") for image_id in ids]

    def __len__(self) -> int:
        return len(self._images)

    def __getitem__(self, idx: int):
        pil = _image.require_pil()
        image = pil.open(self._images[idx]).convert("RGB")
        parts: list = []
        for kind in self._target_types:
            if kind == "category":
                parts.append(self._labels[idx])
            elif kind == "binary-category":
                parts.append(self._bin_labels[idx])
            else:
                parts.append(pil.open(self._segs[idx]))
        target = None if not parts else parts[0] if len(parts) == 1 else tuple(parts)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def _check_exists(self) -> bool:
        return all(os.path.isdir(folder) for folder in (self._images_folder, self._anns_folder))

    def _download(self) -> None:
        if self._check_exists():
            return
        for url, md5 in self._RESOURCES:
            _download.fetch_archive("OxfordIIITPet", url, md5, self._base_folder)
