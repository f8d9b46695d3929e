"""Masks and boxes follow the image (docs/data-loading.md, "Boxes and masks"): the geometric calls
recorded while a transform ran on the sample's image (_geometry_log) are replayed on each
tv_tensors.Mask (the same functions, nearest neighbour) and on each tv_tensors.BoundingBoxes
(the box kernels of _boxes.py, which also carry the canvas size along)."""
from __future__ import annotations

from typing import List

import numpy as np

from .... import _C
from ...._tensor import Tensor, bool_, tensor, uint8
from ...tv_tensors import BoundingBoxes, Mask
from .. import _geometry_log
from ..functional import InterpolationMode, _padding_ltrb
from . import _boxes as B
from . import _fills

# Geometric functions that have no box kernel: a sample with boxes is refused with this reason.
NO_BOX_KERNEL = {
    "perspective": "a perspective warp of boxes",
    "elastic": "an elastic distortion of boxes",
    "five_crop": "five crops of one set of boxes (the image becomes five images)",
    "ten_crop": "ten crops of one set of boxes (the image becomes ten images)",
}
NO_MASK = {"five_crop", "ten_crop"}


def follow_mask(mask: Mask, calls: List[_geometry_log.Call]) -> Mask:
    """The mask moved by the recorded calls, each with nearest-neighbour interpolation (the area
    a move uncovers takes the transform's fill when it is one number, else 0)."""
    if not calls:
        return mask
    t: Tensor = Tensor.__new__(Tensor)
    t._h = mask._h
    two_d, as_bool = t.ndim == 2, t.dtype == "bool"
    if two_d:
        t = t.reshape(1, *t.shape)
    if as_bool:
        t = t.to(uint8)
    for c in calls:
        if c.name in NO_MASK:
            raise _C.UnsupportedError(f"v2 transforms: {c.name} of a sample with a tv_tensors.Mask: the image becomes "
                                      f"several images and the mask has no place among them\n  fix: crop the sample "
                                      f"with v2.RandomCrop or v2.CenterCrop instead")
        args = dict(c.args)
        if "interpolation" in args:
            args["interpolation"] = InterpolationMode.NEAREST
        if "fill" in args and _fills.current() is not None:  # v2's fill per type: the Mask entry
            args["fill"] = _fills.fill_for(_fills.current(), Mask)
        if isinstance(args.get("fill"), (tuple, list)):  # an image's fill per channel: a mask's is 0
            args["fill"] = 0
        if c.name == "resize" or c.name == "resized_crop":
            args["antialias"] = False
        t = c.fn(t, **args)
    if as_bool:
        t = t.to(bool_)
    if two_d:
        t = t.reshape(*t.shape[1:])
    return Mask._from(t)


def _box_step(a: np.ndarray, fmt, canvas, c: _geometry_log.Call, mode):
    g = c.args
    if c.name == "hflip":
        return B.horizontal_flip(a, fmt, canvas)
    if c.name == "vflip":
        return B.vertical_flip(a, fmt, canvas)
    if c.name == "resize":
        return B.resize(a, canvas, g["size"], g["max_size"])
    if c.name == "crop":
        return B.crop(a, fmt, int(g["top"]), int(g["left"]), int(g["height"]), int(g["width"]), mode)
    if c.name == "center_crop":
        return B.center_crop(a, fmt, canvas, g["output_size"], mode)
    if c.name == "resized_crop":
        return B.resized_crop(a, fmt, int(g["top"]), int(g["left"]), int(g["height"]), int(g["width"]), g["size"],
                              mode)
    if c.name == "pad":
        return B.pad(a, fmt, canvas, _padding_ltrb(g["padding"]), g["padding_mode"], mode)
    if c.name == "rotate":
        return B.rotate(a, fmt, canvas, float(g["angle"]), bool(g["expand"]), g["center"], mode)
    if c.name == "affine":
        shear = g["shear"]
        shear = [shear, 0.0] if isinstance(shear, (int, float)) else list(shear)
        shear = shear * 2 if len(shear) == 1 else shear
        return B.affine(a, fmt, canvas, float(g["angle"]), [float(t) for t in g["translate"]], float(g["scale"]),
                        [float(s) for s in shear], g["center"], False, mode)
    raise _C.UnsupportedError(f"v2 transforms: {NO_BOX_KERNEL.get(c.name, c.name)} is not supported for "
                              f"tv_tensors.BoundingBoxes (no box kernel for {c.name})\n  fix: apply this transform to "
                              f"the image alone, or use v2.RandomAffine / v2.RandomRotation / crops and flips, whose "
                              f"boxes follow")


def follow_boxes(boxes: BoundingBoxes, calls: List[_geometry_log.Call]) -> BoundingBoxes:
    """The boxes moved by the recorded calls, with the canvas size each call leaves."""
    if not calls:
        return boxes
    a = boxes.numpy(force=True)
    fmt, canvas = boxes.format, tuple(boxes.canvas_size)
    for c in calls:
        a, canvas = _box_step(a, fmt, canvas, c, boxes.clamping_mode)
    out = tensor(np.ascontiguousarray(a), device=boxes.device)
    return BoundingBoxes._from(out, format=fmt, canvas_size=(int(canvas[0]), int(canvas[1])),
                               clamping_mode=boxes.clamping_mode)


def follow(x, calls):
    """x (a Mask or BoundingBoxes) moved by the calls."""
    return follow_boxes(x, calls) if isinstance(x, BoundingBoxes) else follow_mask(x, calls)
