"""datasets.wrap_dataset_for_transforms_v2 (torchvision's) for CocoDetection, VOCDetection and
VOCSegmentation: samples come out with tv_tensors targets that v2 transforms move with the image,
and the data set's own transform / target_transform / transforms run after the wrapping.

    CocoDetection   {"image_id", "boxes" (XYXY BoundingBoxes from the XYWH bbox), "labels"
                     (category ids)} by default; "masks" (needs pycocotools), the annotation keys
                     ("segmentation", "area", "iscrowd", "bbox", "category_id") or "all" on request.
                     An image without annotations gives {"image_id": id}.
    VOCDetection    {"boxes", "labels" (indices in VOC's class list, __background__ 0)}.
    VOCSegmentation (image, tv_tensors.Mask (1, H, W) of the class indices)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..._tensor import Tensor, tensor
from ...utils.data import Dataset
from .. import tv_tensors
from .coco import CocoCaptions, CocoDetection
from .voc import VOCDetection, VOCSegmentation

__all__ = ["wrap_dataset_for_transforms_v2"]

VOC_CLASSES = ["__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
               "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
               "tvmonitor"]
_COCO_KEYS = {"segmentation", "area", "iscrowd", "image_id", "bbox", "category_id", "boxes", "masks", "labels"}


def _target_keys(target_keys, allowed: set, default: set, name: str) -> set:
    if target_keys is None:
        return set(default)
    if target_keys == "all":
        return set(allowed)
    keys = set(target_keys)
    unknown = keys - allowed
    if unknown:
        raise ValueError(f"wrap_dataset_for_transforms_v2: target_keys {sorted(unknown)} are not known for {name}; "
                         f"the keys are {sorted(allowed)} (or 'all')")
    return keys


def _columns(items: List[Dict[str, Any]]) -> Dict[str, List[Any]]:
    return {k: [d[k] for d in items] for k in items[0]}


def _size(image) -> Tuple[int, int]:
    if isinstance(image, Tensor):
        return int(image.shape[-2]), int(image.shape[-1])
    return image.height, image.width


class _CocoWrap:
    """A COCO sample's target as tv_tensors (a class, not a closure: the wrapped data set pickles
    for spawned DataLoader workers)."""

    def __init__(self, dataset, keys: set) -> None:
        self.dataset, self.keys = dataset, keys

    def __call__(self, index: int, sample):
        image, target = sample
        image_id, keys = self.dataset.ids[index], self.keys
        if not target:
            return image, {"image_id": image_id}
        h, w = _size(image)
        cols = _columns(target)
        out: Dict[str, Any] = {}
        if "image_id" in keys:
            out["image_id"] = image_id
        if "boxes" in keys:
            xywh = np.asarray(cols["bbox"], dtype=np.float32).reshape(-1, 4)
            xyxy = np.concatenate([xywh[:, :2], xywh[:, :2] + xywh[:, 2:]], axis=1)
            out["boxes"] = tv_tensors.BoundingBoxes(tensor(xyxy), format="XYXY", canvas_size=(h, w))
        if "masks" in keys:
            out["masks"] = tv_tensors.Mask(tensor(np.stack([_coco_mask(s, h, w) for s in cols["segmentation"]])))
        if "labels" in keys:
            out["labels"] = tensor(np.asarray(cols["category_id"], dtype=np.int64))
        for key in sorted(keys - {"image_id", "boxes", "masks", "labels"}):
            out[key] = cols[key]
        return image, out


def _coco_mask(segmentation, h: int, w: int) -> np.ndarray:
    try:
        from pycocotools import mask as coco_mask
    except ImportError:
        raise ImportError("wrap_dataset_for_transforms_v2: the 'masks' of a COCO data set are decoded by pycocotools, "
                          "which is not installed\n  fix: pip install pycocotools, or leave 'masks' out of "
                          "target_keys") from None
    if isinstance(segmentation, dict):  # RLE, possibly uncompressed
        rle = coco_mask.frPyObjects(segmentation, h, w) if isinstance(segmentation["counts"], list) else segmentation
    else:  # polygons
        rle = coco_mask.merge(coco_mask.frPyObjects(segmentation, h, w))
    return np.ascontiguousarray(coco_mask.decode(rle)).astype(np.uint8)


class _VOCDetectionWrap:
    def __init__(self, keys: set) -> None:
        self.keys = keys

    def __call__(self, index: int, sample):
        image, target = sample
        objects = _columns(target["annotation"]["object"])
        out: Dict[str, Any] = {}
        if "boxes" in self.keys:
            boxes = [[int(b[k]) for k in ("xmin", "ymin", "xmax", "ymax")] for b in objects["bndbox"]]
            out["boxes"] = tv_tensors.BoundingBoxes(tensor(np.asarray(boxes, dtype=np.int64).reshape(-1, 4)),
                                                    format="XYXY", canvas_size=_size(image))
        if "labels" in self.keys:
            out["labels"] = tensor(np.asarray([VOC_CLASSES.index(n) for n in objects["name"]], dtype=np.int64))
        return image, out


def _voc_segmentation_wrap(index: int, sample):
    image, mask = sample
    return image, tv_tensors.Mask(tensor(np.asarray(mask)[None]))  # torchvision's pil_to_tensor: (1, H, W)


class _Wrapped(Dataset):
    """The wrapped data set: dataset[i] converted, then the data set's own transforms."""

    def __init__(self, dataset, wrapper: Callable) -> None:
        self._dataset, self._wrapper = dataset, wrapper
        self.transform, dataset.transform = dataset.transform, None
        self.target_transform, dataset.target_transform = dataset.target_transform, None
        self.transforms, dataset.transforms = dataset.transforms, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._dataset, name)

    def __getitem__(self, index: int):
        sample = self._wrapper(index, self._dataset[index])
        return sample if self.transforms is None else self.transforms(*sample)

    def __len__(self) -> int:
        return len(self._dataset)

    def __repr__(self) -> str:
        return repr(self._dataset).replace(type(self._dataset).__name__, f"Wrapped({type(self._dataset).__name__})", 1)


def wrap_dataset_for_transforms_v2(dataset, target_keys: Optional[Any] = None) -> Dataset:
    """The data set with tv_tensors targets (see the module doc); target_keys picks the target's keys."""
    if isinstance(dataset, CocoCaptions):
        raise TypeError("wrap_dataset_for_transforms_v2: CocoCaptions has no targets to wrap (its captions pass "
                        "through v2 transforms as they are)\n  fix: use the data set as it is")
    if isinstance(dataset, CocoDetection):
        keys = _target_keys(target_keys, _COCO_KEYS, {"image_id", "boxes", "labels"}, "CocoDetection")
        return _Wrapped(dataset, _CocoWrap(dataset, keys))
    if isinstance(dataset, VOCDetection):
        keys = _target_keys(target_keys, {"boxes", "labels"}, {"boxes", "labels"}, "VOCDetection")
        return _Wrapped(dataset, _VOCDetectionWrap(keys))
    if isinstance(dataset, VOCSegmentation):
        if target_keys is not None:
            raise ValueError("wrap_dataset_for_transforms_v2: VOCSegmentation takes no target_keys")
        return _Wrapped(dataset, _voc_segmentation_wrap)
    raise TypeError(f"wrap_dataset_for_transforms_v2: {type(dataset).__name__} is not supported; glassgrad wraps "
                    f"CocoDetection, VOCDetection and VOCSegmentation\n  fix: build the tv_tensors targets in the "
                    f"data set's own __getitem__")
