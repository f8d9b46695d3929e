"""The index of a COCO annotation file that torchvision's Coco data sets keep as `.coco`: the
pycocotools COCO object when pycocotools is installed (as torchvision), else this class with its
attributes and query methods (dataset, anns, imgs, cats, imgToAnns, catToImgs; getAnnIds,
getCatIds, getImgIds, loadAnns, loadCats, loadImgs), which answer as pycocotools' do."""
from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any, Dict, List, Sequence, Union

Ids = Union[int, Sequence[int]]


def _listed(ids):
    """pycocotools' rule: anything with __iter__ and __len__ as it is (a string too: its names then
    match by `in`, substrings included), else a list of the one id."""
    return ids if hasattr(ids, "__iter__") and hasattr(ids, "__len__") else [ids]


class CocoIndex:
    def __init__(self, annotation_file: Union[str, os.PathLike]) -> None:
        with open(os.fspath(annotation_file)) as f:
            self.dataset: Dict[str, Any] = json.load(f)
        if not isinstance(self.dataset, dict):
            raise TypeError(f"COCO: annotation file format {type(self.dataset).__name__} not supported: {annotation_file}"
                            f" holds no JSON object\n  fix: pass a COCO annotation file (images, annotations, categories)")
        self.anns: Dict[int, dict] = {a["id"]: a for a in self.dataset.get("annotations", [])}
        self.imgs: Dict[int, dict] = {i["id"]: i for i in self.dataset.get("images", [])}
        self.cats: Dict[int, dict] = {c["id"]: c for c in self.dataset.get("categories", [])}
        self.imgToAnns: Dict[int, List[dict]] = defaultdict(list)
        self.catToImgs: Dict[int, List[int]] = defaultdict(list)
        for a in self.dataset.get("annotations", []):
            self.imgToAnns[a["image_id"]].append(a)
            if "categories" in self.dataset:
                self.catToImgs[a["category_id"]].append(a["image_id"])

    def getAnnIds(self, imgIds: Ids = (), catIds: Ids = (), areaRng: Sequence[float] = (),
                  iscrowd=None) -> List[int]:
        """Ids of the annotations of the given images (all when none), then of the given
        categories, with area in areaRng, and iscrowd as given; in annotation order."""
        img_ids, cat_ids = _listed(imgIds), _listed(catIds)
        if len(img_ids):
            anns = [a for i in img_ids if i in self.imgToAnns for a in self.imgToAnns[i]]
        else:
            anns = list(self.dataset.get("annotations", []))
        if len(cat_ids):
            anns = [a for a in anns if a["category_id"] in cat_ids]
        if len(areaRng):
            anns = [a for a in anns if areaRng[0] < a["area"] < areaRng[1]]
        if iscrowd is not None:
            anns = [a for a in anns if a["iscrowd"] == iscrowd]
        return [a["id"] for a in anns]

    def getCatIds(self, catNms: Sequence[str] = (), supNms: Sequence[str] = (),
                  catIds: Ids = ()) -> List[int]:
        names, supers, ids = _listed(catNms), _listed(supNms), _listed(catIds)
        cats = list(self.dataset.get("categories", []))
        if len(names):
            cats = [c for c in cats if c["name"] in names]
        if len(supers):
            cats = [c for c in cats if c["supercategory"] in supers]
        if len(ids):
            cats = [c for c in cats if c["id"] in ids]
        return [c["id"] for c in cats]

    def getImgIds(self, imgIds: Ids = (), catIds: Ids = ()) -> List[int]:
        img_ids, cat_ids = _listed(imgIds), _listed(catIds)
        if not len(img_ids) and not len(cat_ids):
            return list(self.imgs.keys())
        chosen = set(img_ids)
        for i, cat in enumerate(cat_ids):
            with_cat = set(self.catToImgs[cat])
            chosen = with_cat if i == 0 and not len(img_ids) else chosen & with_cat
        return list(chosen)

    def loadAnns(self, ids: Ids = ()) -> List[dict]:
        return [self.anns[i] for i in _listed(ids)]

    def loadCats(self, ids: Ids = ()) -> List[dict]:
        return [self.cats[i] for i in _listed(ids)]

    def loadImgs(self, ids: Ids = ()) -> List[dict]:
        return [self.imgs[i] for i in _listed(ids)]


def coco_index(annotation_file):
    """pycocotools' COCO of the file when it is installed (torchvision's `.coco`), else CocoIndex."""
    try:
        from pycocotools.coco import COCO
    except ImportError:
        return CocoIndex(annotation_file)
    return COCO(os.fspath(annotation_file))
