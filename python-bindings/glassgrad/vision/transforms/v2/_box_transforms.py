"""v2's transforms and functions for tv_tensors.BoundingBoxes (docs/data-loading.md, "Boxes and
masks"): ConvertBoundingBoxFormat, ClampBoundingBoxes, SanitizeBoundingBoxes and their functions
convert_bounding_box_format and clamp_bounding_boxes, the box kernels under torchvision's names
(horizontal_flip_bounding_boxes, resize_bounding_boxes, ...), and tv_tensor dispatch for the
geometric functions (v2.functional.resize(boxes, ...) moves boxes, resize(mask, ...) a mask)."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ...._tensor import Tensor, tensor
from ... import tv_tensors as tv
from .._geometry_log import Call
from . import _boxes as B
from ._follow import follow
from ._transform import Transform, flatten, unflatten

__all__ = ["ClampBoundingBoxes", "ConvertBoundingBoxFormat", "RandomIoUCrop", "SanitizeBoundingBoxes",
           "clamp_bounding_boxes", "convert_bounding_box_format"]


def _values(boxes) -> np.ndarray:
    return boxes.numpy(force=True)


def _like(a: np.ndarray, boxes, fmt=None):
    """a as boxes' kind: BoundingBoxes (in fmt) for BoundingBoxes, else a plain tensor."""
    out = tensor(np.ascontiguousarray(a), device=boxes.device)
    if isinstance(boxes, tv.BoundingBoxes):
        return tv.BoundingBoxes._from(out, **dict(boxes._meta(), format=fmt or boxes.format))
    return out


def _meta(inpt, format, canvas_size, where: str):
    if isinstance(inpt, tv.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError(f"{where}: format and canvas_size come from the BoundingBoxes; pass them only with a "
                             f"plain tensor")
        return inpt.format, tuple(inpt.canvas_size)
    if not isinstance(inpt, Tensor):
        raise TypeError(f"{where}: expected BoundingBoxes or a tensor of boxes, got {type(inpt).__name__}")
    return format, canvas_size


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace: bool = False):
    """Boxes in new_format (v2.functional.convert_bounding_box_format); a plain tensor needs old_format."""
    where = "convert_bounding_box_format"
    if new_format is None:
        raise TypeError(f"{where}() missing 1 required argument: 'new_format'")
    if isinstance(inpt, tv.BoundingBoxes):
        if old_format is not None:
            raise ValueError(f"{where}: old_format comes from the BoundingBoxes; pass it only with a plain tensor")
        old_format = inpt.format
    elif old_format is None:
        raise ValueError(f"{where}: old_format has to be passed when converting a plain tensor")
    old, new = tv.box_format(old_format, where), tv.box_format(new_format, where)
    return _like(B.convert(_values(inpt), old, new), inpt, fmt=new)


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Boxes clamped to their canvas (v2.functional.clamp_bounding_boxes); a plain tensor needs
    format, canvas_size and a clamping_mode other than 'auto' (the BoundingBoxes' own)."""
    fmt, canvas = _meta(inpt, format, canvas_size, "clamp_bounding_boxes")
    if fmt is None or canvas is None:
        raise ValueError("clamp_bounding_boxes: format and canvas_size have to be passed with a plain tensor")
    if clamping_mode == "auto":
        if not isinstance(inpt, tv.BoundingBoxes):
            raise ValueError("For pure tensor inputs, `format`, `canvas_size` and `clamping_mode` have to be passed.")
        clamping_mode = inpt.clamping_mode
    mode = tv.clamping(clamping_mode, "clamp_bounding_boxes")
    return _like(B.clamp(_values(inpt), tv.box_format(fmt), tuple(canvas), mode), inpt)


class ConvertBoundingBoxFormat(Transform):
    """v2.ConvertBoundingBoxFormat(format): every BoundingBoxes of the sample in `format`."""

    def __init__(self, format) -> None:
        super().__init__()
        self.format = tv.box_format(format, "ConvertBoundingBoxFormat")

    def forward(self, *inputs: Any) -> Any:
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        return unflatten([convert_bounding_box_format(x, new_format=self.format)
                          if isinstance(x, tv.BoundingBoxes) else x for x in flat], spec)


class ClampBoundingBoxes(Transform):
    """v2.ClampBoundingBoxes(clamping_mode='auto'): every BoundingBoxes of the sample clamped to its
    canvas ('auto': each with its own clamping_mode)."""

    def __init__(self, clamping_mode="auto") -> None:
        super().__init__()
        self.clamping_mode = clamping_mode if clamping_mode == "auto" else tv.clamping(clamping_mode,
                                                                                       "ClampBoundingBoxes")

    def forward(self, *inputs: Any) -> Any:
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        return unflatten([clamp_bounding_boxes(x, clamping_mode=self.clamping_mode)
                          if isinstance(x, tv.BoundingBoxes) else x for x in flat], spec)


def _default_labels(sample):
    """torchvision's labels_getter='default': the value of the first key named 'labels' (any case)
    of a dict sample, or of the dict second in a tuple sample (image, target)."""
    if isinstance(sample, tuple) and len(sample) >= 2 and isinstance(sample[1], dict):
        sample = sample[1]
    if not isinstance(sample, dict):
        raise ValueError("SanitizeBoundingBoxes: labels_getter='default' looks for a 'labels' key in a dict sample or "
                         "in the dict second in a tuple, and the sample is neither\n  fix: pass labels_getter=None, or "
                         "a function returning the labels")
    for key, value in sample.items():
        if isinstance(key, str) and key.lower() == "labels":
            return value
    raise ValueError(f"SanitizeBoundingBoxes: no 'labels' key in the sample's dict (keys {list(sample)})\n  fix: "
                     f"name the key 'labels', or pass labels_getter=None or a function returning the labels")


class SanitizeBoundingBoxes(Transform):
    """v2.SanitizeBoundingBoxes(min_size=1.0, min_area=1.0, labels_getter='default'): removes the
    boxes narrower or lower than min_size, smaller than min_area, degenerate (x2 <= x1 or y2 <= y1)
    or outside the canvas, with the labels labels_getter finds and the rows of masks and other
    tensors that have one row a box."""

    def __init__(self, min_size: float = 1.0, min_area: float = 1.0,
                 labels_getter: Optional[Any] = "default") -> None:
        super().__init__()
        if min_size < 1:
            raise ValueError(f"min_size must be >= 1, got {min_size}.")
        if min_area < 1:
            raise ValueError(f"min_area must be >= 1, got {min_area}.")
        if not (labels_getter is None or labels_getter == "default" or callable(labels_getter)):
            raise ValueError(f"labels_getter should either be 'default', a callable, or None, but got {labels_getter}.")
        self.min_size, self.min_area = float(min_size), float(min_area)
        self.labels_getter = labels_getter

    def _valid(self, boxes: "tv.BoundingBoxes") -> np.ndarray:
        a = B.to_xyxy(_values(boxes).astype(np.float64), boxes.format).reshape(-1, 4)
        h, w = boxes.canvas_size
        ws, hs = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
        valid = (ws >= self.min_size) & (hs >= self.min_size) & (ws * hs >= self.min_area)
        valid &= (a[:, 0] < w) & (a[:, 1] < h) & (a[:, 2] > 0) & (a[:, 3] > 0)
        return valid

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        labels = None
        if self.labels_getter == "default":
            labels = _default_labels(sample)
        elif callable(self.labels_getter):
            labels = self.labels_getter(sample)
        flat, spec = flatten(sample)
        boxes = [x for x in flat if isinstance(x, tv.BoundingBoxes)]
        if len(boxes) != 1:
            raise ValueError(f"SanitizeBoundingBoxes: the sample must hold exactly one BoundingBoxes, found "
                             f"{len(boxes)}\n  fix: put the boxes in the sample once, e.g. target['boxes']")
        keep = self._valid(boxes[0])
        n = keep.shape[0]
        label_list = list(labels) if isinstance(labels, (tuple, list)) else [labels]
        if labels is not None:
            for lab in label_list:
                if isinstance(lab, (Tensor, np.ndarray)) and (lab.ndim < 1 or lab.shape[0] != n):
                    raise ValueError(f"SanitizeBoundingBoxes: the labels have {lab.shape[0] if lab.ndim else 0} rows "
                                     f"and the boxes {n}\n  fix: one label a box")
        label_ids = {id(x) for x in label_list if x is not None}
        idx = tensor(np.flatnonzero(keep).astype(np.int64))
        out = []
        for x in flat:
            if isinstance(x, tv.BoundingBoxes):
                x = tv.BoundingBoxes._from(x[idx.to(x.device)], **x._meta())
            elif isinstance(x, tv.Mask) and x.ndim >= 3 and x.shape[0] == n:
                x = tv.Mask._from(x[idx.to(x.device)])
            elif id(x) in label_ids and isinstance(x, Tensor):
                x = x[idx.to(x.device)]
            elif id(x) in label_ids and isinstance(x, np.ndarray):
                x = x[keep]
            out.append(x)
        return unflatten(out, spec)


class RandomIoUCrop(Transform):
    """v2.RandomIoUCrop (SSD's crop): picks a minimum overlap from sampler_options (a value >= 1
    leaves the sample as it is), then up to `trials` crops of min_scale..max_scale of each side
    with an aspect ratio in [min_aspect_ratio, max_aspect_ratio]; a crop is taken when some box's
    centre lies inside it and one of those boxes overlaps it by at least the minimum (IoU). The
    image, masks and boxes are cropped; boxes whose centre fell outside become [0, 0, 0, 0], for a
    later SanitizeBoundingBoxes to drop. The sample needs an image and BoundingBoxes."""

    def __init__(self, min_scale: float = 0.3, max_scale: float = 1.0, min_aspect_ratio: float = 0.5,
                 max_aspect_ratio: float = 2.0, sampler_options: Optional[List[float]] = None, trials: int = 40):
        super().__init__()
        self.min_scale, self.max_scale = min_scale, max_scale
        self.min_aspect_ratio, self.max_aspect_ratio = min_aspect_ratio, max_aspect_ratio
        self.options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 2.0] if sampler_options is None else list(sampler_options)
        self.trials = trials

    def _crop_params(self, boxes: "tv.BoundingBoxes", h: int, w: int) -> Dict[str, Any]:
        from ...ops.boxes import box_iou
        from ..transforms import _rng
        rng = _rng()
        xyxy = B.to_xyxy(_values(boxes).astype(np.float64), boxes.format).reshape(-1, 4)
        cx, cy = 0.5 * (xyxy[:, 0] + xyxy[:, 2]), 0.5 * (xyxy[:, 1] + xyxy[:, 3])
        while True:
            min_overlap = self.options[int(rng.integers(0, len(self.options)))]
            if min_overlap >= 1.0:
                return {}
            for _ in range(self.trials):
                r = self.min_scale + (self.max_scale - self.min_scale) * rng.random(2)
                new_w, new_h = int(w * r[0]), int(h * r[1])
                if new_h == 0 or not self.min_aspect_ratio <= new_w / new_h <= self.max_aspect_ratio:
                    continue
                r = rng.random(2)
                left, top = int((w - new_w) * r[0]), int((h - new_h) * r[1])
                right, bottom = left + new_w, top + new_h
                if left == right or top == bottom:
                    continue
                inside = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
                if not inside.any():
                    continue
                ious = box_iou(tensor(xyxy[inside]), tensor(np.array([[left, top, right, bottom]], np.float64)))
                if float(ious.max()) < min_overlap:
                    continue
                return dict(top=top, left=left, height=new_h, width=new_w, inside=inside)

    def forward(self, *inputs: Any) -> Any:
        from ._transform import needs_transform, query_size, run_sample
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        needed = needs_transform(flat, self._transformed_types)
        boxes = [x for x in flat if isinstance(x, tv.BoundingBoxes)]
        if not boxes or not any(needed):
            raise TypeError("RandomIoUCrop() requires input sample to contain tensor or PIL images and bounding boxes. "
                            "Sample can also contain masks.")
        h, w = query_size([x for x, n in zip(flat, needed) if n])
        params = self._crop_params(boxes[0], h, w)
        if not params:
            return unflatten(flat, spec)
        from .. import functional as F1
        out = run_sample(lambda x: F1.crop(x, params["top"], params["left"], params["height"], params["width"]),
                         flat, needed)
        keep = params["inside"]
        for k, x in enumerate(out):
            if isinstance(x, tv.BoundingBoxes):
                a = _values(x).copy()
                a.reshape(-1, 4)[~keep] = 0
                out[k] = _like(a, x)
        return unflatten(out, spec)


# ---- tv_tensor dispatch of the geometric functions ---------------------------------------------------

def dispatching(image_fn: Callable) -> Callable:
    """image_fn that also takes a Mask (moved with nearest neighbour), BoundingBoxes (their
    kernels) and an Image or Video (the result keeps the type)."""
    raw = getattr(image_fn, "__wrapped__", image_fn)
    signature = inspect.signature(raw)

    @functools.wraps(image_fn)
    def dispatch(inpt, *args, **kwargs):
        if isinstance(inpt, (tv.Mask, tv.BoundingBoxes)):
            bound = signature.bind(inpt, *args, **kwargs)
            bound.apply_defaults()
            named: Dict[str, Any] = dict(bound.arguments)
            named.pop(next(iter(signature.parameters)))
            size = tuple(inpt.canvas_size) if isinstance(inpt, tv.BoundingBoxes) else tuple(inpt.shape[-2:])
            return follow(inpt, [Call(raw.__name__, size, named, raw)])
        out = image_fn(inpt, *args, **kwargs)
        if isinstance(inpt, (tv.Image, tv.Video)) and isinstance(out, Tensor) and not isinstance(out, tv.TVTensor):
            return type(inpt)._from(out)
        return out
    return dispatch


def _plain_like(res: np.ndarray, boxes) -> Tensor:
    return _like(res, tv._plain(boxes) if isinstance(boxes, tv.TVTensor) else boxes)


def _f(fmt, where):
    return tv.box_format(fmt, where)


def horizontal_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    """The boxes (a plain tensor in `format`) mirrored left-right on a canvas of canvas_size."""
    res, _ = B.horizontal_flip(_values(bounding_boxes), _f(format, "horizontal_flip_bounding_boxes"), tuple(canvas_size))
    return _plain_like(res, bounding_boxes)


def vertical_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    """The boxes mirrored top-bottom on a canvas of canvas_size."""
    res, _ = B.vertical_flip(_values(bounding_boxes), _f(format, "vertical_flip_bounding_boxes"), tuple(canvas_size))
    return _plain_like(res, bounding_boxes)


def crop_bounding_boxes(bounding_boxes, format, top: int, left: int, height: int, width: int, clamping_mode="soft"):
    """The boxes in the (height, width) window at (top, left), clamped to it, and (height, width)."""
    res, canvas = B.crop(_values(bounding_boxes), _f(format, "crop_bounding_boxes"), top, left, height, width,
                         clamping_mode)
    return _plain_like(res, bounding_boxes), canvas


def pad_bounding_boxes(bounding_boxes, format, canvas_size, padding, padding_mode: str = "constant",
                       clamping_mode="soft"):
    """The boxes on the padded canvas, and its size."""
    from ..functional import _padding_ltrb
    res, canvas = B.pad(_values(bounding_boxes), _f(format, "pad_bounding_boxes"), tuple(canvas_size),
                        _padding_ltrb(padding), padding_mode, clamping_mode)
    return _plain_like(res, bounding_boxes), canvas


def center_crop_bounding_boxes(bounding_boxes, format, canvas_size, output_size, clamping_mode="soft"):
    """The boxes in the centred window of output_size, and its size."""
    res, canvas = B.center_crop(_values(bounding_boxes), _f(format, "center_crop_bounding_boxes"), tuple(canvas_size),
                                output_size, clamping_mode)
    return _plain_like(res, bounding_boxes), canvas


def resized_crop_bounding_boxes(bounding_boxes, format, top: int, left: int, height: int, width: int, size,
                                clamping_mode="soft"):
    """The boxes cropped to the window at (top, left) and resized to size, and the final size."""
    res, canvas = B.resized_crop(_values(bounding_boxes), _f(format, "resized_crop_bounding_boxes"), top, left, height,
                                 width, size, clamping_mode)
    return _plain_like(res, bounding_boxes), canvas


def rotate_bounding_boxes(bounding_boxes, format, canvas_size, angle: float, expand: bool = False, center=None,
                          clamping_mode="soft"):
    """The bounds of the boxes rotated by angle degrees counter-clockwise, and the canvas size."""
    res, canvas = B.rotate(_values(bounding_boxes), _f(format, "rotate_bounding_boxes"), tuple(canvas_size), angle,
                           expand, center, clamping_mode)
    return _plain_like(res, bounding_boxes), canvas


def affine_bounding_boxes(bounding_boxes, format, canvas_size, angle: float, translate, scale: float, shear,
                          center=None, clamping_mode="soft"):
    """The bounds of the boxes moved by the affine map (as v2.functional.affine moves the image)."""
    shear = [shear, 0.0] if isinstance(shear, (int, float)) else list(shear)
    shear = shear * 2 if len(shear) == 1 else shear
    res, _ = B.affine(_values(bounding_boxes), _f(format, "affine_bounding_boxes"), tuple(canvas_size), float(angle),
                      [float(t) for t in translate], float(scale), [float(v) for v in shear], center, False,
                      clamping_mode)
    return _plain_like(res, bounding_boxes)


def resize_bounding_boxes(bounding_boxes, canvas_size, size, max_size: Optional[int] = None, format="XYXY",
                          clamping_mode="soft"):
    """The boxes scaled from canvas_size to the resized size, and that size."""
    res, canvas = B.resize(_values(bounding_boxes), tuple(canvas_size), size, max_size)
    return _plain_like(res, bounding_boxes), canvas


KERNELS: List[Callable] = [horizontal_flip_bounding_boxes, vertical_flip_bounding_boxes, crop_bounding_boxes,
                           pad_bounding_boxes, center_crop_bounding_boxes, resized_crop_bounding_boxes,
                           rotate_bounding_boxes, affine_bounding_boxes, resize_bounding_boxes]
