"""Pascal VOC (torchvision's VOCSegmentation and VOCDetection) from the extracted archive:
root/VOCdevkit/VOC<year>/ (2011: root/TrainVal/VOCdevkit/VOC2011/) with JPEGImages/<name>.jpg, the
split's names in ImageSets/Segmentation (or Main)/<image_set>.txt, and SegmentationClass/<name>.png
masks or Annotations/<name>.xml. A sample is (the RGB image, the mask as PIL opens it) or (the RGB
image, the annotation XML as nested dicts, parse_voc_xml)."""
from __future__ import annotations

import collections
import os
import xml.etree.ElementTree as ET
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..transforms import _image
from . import _download
from .utils import verify_str_arg
from .vision import VisionDataset

__all__ = ["VOCDetection", "VOCSegmentation"]

_MIRROR = "https://thor.robots.ox.ac.uk/pascal/VOC/"
# year -> (archive, its md5, the folder it extracts to under root)
_ARCHIVES: Dict[str, Tuple[str, str, str]] = {
    "2012": ("voc2012/VOCtrainval_11-May-2012.tar", "6cd6e144f989b92b3379bac3b3de84fd", "VOCdevkit/VOC2012"),
    "2011": ("voc2011/VOCtrainval_25-May-2011.tar", "6c3384ef61512963050cb5d687e5bf1e", "TrainVal/VOCdevkit/VOC2011"),
    "2010": ("voc2010/VOCtrainval_03-May-2010.tar", "da459979d0c395079b5c75ee67908abb", "VOCdevkit/VOC2010"),
    "2009": ("voc2009/VOCtrainval_11-May-2009.tar", "a3e00b113cfcfebf17e343f59da3caa1", "VOCdevkit/VOC2009"),
    "2008": ("voc2008/VOCtrainval_14-Jul-2008.tar", "2629fa636546599198acfcfbfcf1904a", "VOCdevkit/VOC2008"),
    "2007": ("voc2007/VOCtrainval_06-Nov-2007.tar", "c52e279531787c972589f7e41ab4ae64", "VOCdevkit/VOC2007"),
    "2007-test": ("voc2007/VOCtest_06-Nov-2007.tar", "b6e924de25625d8de591ea690078ad9f", "VOCdevkit/VOC2007"),
}


class _VOCBase(VisionDataset):
    _SPLITS_DIR = ""
    _TARGET_DIR = ""
    _TARGET_FILE_EXT = ""

    def __init__(self, root, year: str = "2012", image_set: str = "train", download: bool = False,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 transforms: Optional[Callable] = None) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.year = verify_str_arg(year, "year", valid_values=[str(y) for y in range(2007, 2013)])
        sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        self.image_set = verify_str_arg(image_set, "image_set", sets)
        archive, md5, base_dir = _ARCHIVES["2007-test" if year == "2007" and image_set == "test" else year]
        self.url, self.md5 = _MIRROR + archive, md5
        self.filename = archive.rsplit("/", 1)[1]
        voc_root = os.path.join(self.root, base_dir)
        if download and not os.path.isdir(voc_root):
            _download.fetch_archive(type(self).__name__, self.url, md5, self.root)
        if not os.path.isdir(voc_root):
            raise _download.not_found(type(self).__name__, voc_root + "/", f"{type(self).__name__}(root={self.root!r}, "
                                      f"year={year!r}, download=True)", self.filename, self.root)
        with open(os.path.join(voc_root, "ImageSets", self._SPLITS_DIR, image_set + ".txt")) as f:
            names = [line.strip() for line in f.readlines()]
        self.images = [os.path.join(voc_root, "JPEGImages", n + ".jpg") for n in names]
        self.targets = [os.path.join(voc_root, self._TARGET_DIR, n + self._TARGET_FILE_EXT) for n in names]

    def __len__(self) -> int:
        return len(self.images)

    def _load_target(self, path: str) -> Any:
        raise NotImplementedError

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        img = _image.require_pil().open(self.images[index]).convert("RGB")
        target = self._load_target(self.targets[index])
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class VOCSegmentation(_VOCBase):
    """(RGB image, segmentation mask: the PNG as PIL opens it, a palette image of class indices)."""

    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    masks = property(lambda self: self.targets)

    def _load_target(self, path: str) -> Any:
        return _image.require_pil().open(path)


class VOCDetection(_VOCBase):
    """(RGB image, the annotation XML as nested dicts: {"annotation": {..., "object": [...]}})."""

    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    annotations = property(lambda self: self.targets)

    def _load_target(self, path: str) -> Dict[str, Any]:
        return self.parse_voc_xml(ET.parse(path).getroot())

    @staticmethod
    def parse_voc_xml(node: ET.Element) -> Dict[str, Any]:
        """torchvision's dict of a VOC XML node: a leaf is {tag: its stripped text}; a node with
        children maps each child tag to its value, a list when the tag repeats; the annotation's
        "object" entry is always a list."""
        children = list(node)
        out: Dict[str, Any] = {}
        if children:
            grouped: Dict[str, List[Any]] = collections.defaultdict(list)
            for parsed in map(VOCDetection.parse_voc_xml, children):
                for key, value in parsed.items():
                    grouped[key].append(value)
            if node.tag == "annotation":
                grouped["object"] = [grouped["object"]]
            out = {node.tag: {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}}
        if node.text:
            text = node.text.strip()
            if not children:
                out[node.tag] = text
        return out
