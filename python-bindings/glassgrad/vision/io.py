"""torchvision.io's image readers with its names: read_file, decode_image, read_image and
ImageReadMode. Images are decoded by Pillow (PNG, JPEG, GIF, BMP, WebP, ...) into uint8 tensors
(C, H, W) on the CPU, as torchvision's are (docs/porting.md, the torchvision.io row)."""
from __future__ import annotations

import enum
import io as _io
import os
from typing import Union

import numpy as np

from .._tensor import Tensor, tensor
from .transforms import _image as I

__all__ = ["ImageReadMode", "read_file", "decode_image", "read_image"]


class ImageReadMode(enum.Enum):
    """The channels an image is read into: as stored (UNCHANGED), or converted."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_PIL_MODES = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA", ImageReadMode.RGB: "RGB",
              ImageReadMode.RGB_ALPHA: "RGBA"}


def _mode(mode) -> ImageReadMode:
    if isinstance(mode, ImageReadMode):
        return mode
    if isinstance(mode, str) and mode.upper() in ImageReadMode.__members__:
        return ImageReadMode[mode.upper()]
    if isinstance(mode, str):
        names = {"L": "GRAY", "LA": "GRAY_ALPHA", "RGBA": "RGB_ALPHA"}
        if mode.upper() in names:
            return ImageReadMode[names[mode.upper()]]
    raise ValueError(f"decode_image: unknown mode {mode!r}\n  fix: one of ImageReadMode.UNCHANGED, GRAY, GRAY_ALPHA, "
                     "RGB, RGB_ALPHA (or their names as strings)")


def read_file(path: str) -> Tensor:
    """The bytes of a file as a 1-d uint8 tensor (torchvision.io.read_file)."""
    with open(os.fspath(path), "rb") as f:
        return tensor(np.frombuffer(f.read(), dtype=np.uint8).copy(), device="cpu")


def decode_image(input: Union[Tensor, str], mode=ImageReadMode.UNCHANGED,
                 apply_exif_orientation: bool = False) -> Tensor:
    """An encoded image (a 1-d uint8 tensor of its bytes, or a path) as a uint8 tensor (C, H, W)
    (torchvision.io.decode_image): its own channels, or those `mode` asks for."""
    Image = I.require_pil()
    if isinstance(input, (str, os.PathLike)):
        input = read_file(input)
    if not isinstance(input, Tensor) or input.dtype != "uint8" or input.ndim != 1:
        raise TypeError("decode_image: expected a 1-d uint8 tensor of the encoded bytes (read_file(path)) or a "
                        f"path, got {type(input).__name__}"
                        + (f" {input.dtype} of shape {list(input.shape)}" if isinstance(input, Tensor) else ""))
    img = Image.open(_io.BytesIO(input.numpy().tobytes()))
    if apply_exif_orientation:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    mode = _mode(mode)
    if mode is not ImageReadMode.UNCHANGED:
        img = img.convert(_PIL_MODES[mode])
    elif img.mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA" if "A" in img.getbands() or "transparency" in img.info else "RGB")
    arr = np.asarray(img, dtype=np.uint8)
    arr = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)
    return tensor(np.ascontiguousarray(arr), device="cpu")


def read_image(path: str, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False) -> Tensor:
    """The image file at `path` as a uint8 tensor (C, H, W) (torchvision.io.read_image)."""
    return decode_image(read_file(path), mode, apply_exif_orientation)
