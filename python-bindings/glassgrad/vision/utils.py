"""torchvision.utils' make_grid and save_image (PNG, or any format Pillow writes), and its drawing
functions (draw_bounding_boxes, draw_segmentation_masks, draw_keypoints, flow_to_image: _draw.py)."""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np

from .. import _C
from ..utils.data._utils.pin_memory import new_tensor
from ._draw import draw_bounding_boxes, draw_keypoints, draw_segmentation_masks, flow_to_image
from .transforms import _image as I

__all__ = ["draw_bounding_boxes", "draw_keypoints", "draw_segmentation_masks", "flow_to_image", "make_grid",
           "save_image"]


def _batch_array(tensor) -> np.ndarray:
    if isinstance(tensor, list):
        for t in tensor:
            if not I.is_tensor_like(t):
                raise TypeError(f"tensor or list of tensors expected, got a list containing {type(t)}")
        arrays = [I.chw_array(t) for t in tensor]
        for i, a in enumerate(arrays):
            if a.shape != arrays[0].shape:
                raise _C.ShapeError(f"make_grid: stack expects each tensor to be equal size, but got "
                                    f"{list(arrays[0].shape)} at entry 0 and {list(a.shape)} at entry {i}\n"
                                    f"  fix: resize the images to one size first (transforms.Resize((h, w)))")
        return np.stack(arrays)
    if not I.is_tensor_like(tensor):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    return I.chw_array(tensor)


def _require_floating(a: np.ndarray, what: str) -> None:
    """torchvision rescales in place (normalize: clamp_, sub_, div_; save_image: mul(255).add_(0.5)),
    which PyTorch refuses for integer images: "result type Float can't be cast to the desired
    output type" (a RuntimeError)."""
    if a.dtype.kind != "f":
        raise _C.DTypeError(f"{what}: result type Float can't be cast to the desired output type {a.dtype} (the "
                            f"images are rescaled in place, and they are {a.dtype})\n  fix: pass floating images "
                            f"in [0, 1], e.g. images.float() / 255")


def make_grid(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False,
              value_range: Optional[Tuple[float, float]] = None, scale_each: bool = False, pad_value: float = 0.0):
    """Images (B, C, H, W) (or a list of (C, H, W)) laid out in rows of nrow, `padding` pixels
    of pad_value between them; normalize rescales to [0, 1] from value_range (default: min and
    max; per image with scale_each). One-channel images become three. A tensor (3, H', W')."""
    a = _batch_array(tensor)
    if a.ndim == 2:
        a = a[None]
    if a.ndim == 3:
        if a.shape[0] == 1:
            a = np.concatenate([a, a, a], 0)
        a = a[None]
    if a.ndim == 4 and a.shape[1] == 1:
        a = np.concatenate([a, a, a], 1)
    if normalize is True:
        _require_floating(a, "make_grid(normalize=True)")
        a = a.copy()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        def norm(img, low, high):
            np.clip(img, low, high, out=img)
            img -= low
            img /= max(high - low, 1e-5)

        def norm_range(t):
            if value_range is not None:
                norm(t, value_range[0], value_range[1])
            else:
                norm(t, float(t.min()), float(t.max()))
        if scale_each is True:
            for t in a:
                norm_range(t)
        else:
            norm_range(a)
    if a.shape[0] == 1:
        return new_tensor(np.ascontiguousarray(a[0]))
    nmaps = a.shape[0]
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = a.shape[2] + padding, a.shape[3] + padding
    grid = np.full((a.shape[1], height * ymaps + padding, width * xmaps + padding), pad_value, dtype=a.dtype)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid[:, y * height + padding:y * height + height, x * width + padding:x * width + width] = a[k]
            k += 1
    return new_tensor(grid)


def save_image(tensor, fp, format: Optional[str] = None, **kwargs) -> None:  # torchvision's name
    """Saves make_grid(tensor, **kwargs) as an 8-bit image (values in [0, 1] scaled by 255 and
    rounded), PNG unless the name or `format` says otherwise. As torchvision's clamp and cast, a
    NaN pixel (a diverged model's sample) is written 0 and an infinite one clamped, silently."""
    grid = I.chw_array(make_grid(tensor, **kwargs))
    _require_floating(grid, "save_image")
    scaled = np.nan_to_num(grid * 255 + 0.5, nan=0.0, posinf=255.0, neginf=0.0)
    ndarr = np.clip(scaled, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    I.require_pil().fromarray(ndarr).save(fp, format=format)
