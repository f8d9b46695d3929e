"""torchvision.io's image functions with its names: read_file, write_file, decode_image,
read_image, ImageReadMode, and the PNG and JPEG codecs (encode_png, decode_png, write_png,
encode_jpeg, decode_jpeg, write_jpeg). Images are decoded by Pillow (PNG, JPEG, GIF, BMP, WebP,
...) into uint8 tensors (C, H, W) on the CPU (16-bit PNGs into int32: glassgrad has no uint16), and encoded by Pillow, as
torchvision's are by libpng/libjpeg (docs/porting.md, the torchvision.io row)."""
from __future__ import annotations

import enum
import io as _io
import os
from typing import List, Union

import numpy as np

from .._tensor import Tensor, tensor
from .transforms import _image as I

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "read_file",
           "read_image", "write_file", "write_jpeg", "write_png"]


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
    try:
        with open(os.fspath(path), "rb") as f:
            return tensor(np.frombuffer(f.read(), dtype=np.uint8).copy(), device="cpu")
    except FileNotFoundError as e:
        raise _FileNotFound(e.errno, f"read_file: {e.strerror}", e.filename) from None


class _FileNotFound(FileNotFoundError, RuntimeError):
    """read_file's missing file: a RuntimeError too, as torchvision's."""


def decode_image(input: Union[Tensor, str], mode=ImageReadMode.UNCHANGED,
                 apply_exif_orientation: bool = False) -> Tensor:
    """An encoded image (a 1-d uint8 tensor of its bytes, or a path) as a uint8 tensor (C, H, W)
    (torchvision.io.decode_image): its own channels, or those `mode` asks for."""
    Image = I.require_pil()
    if isinstance(input, (str, os.PathLike)):
        input = read_file(input)
    _check_bytes("decode_image", input)
    img = Image.open(_io.BytesIO(input.numpy().tobytes()))
    mode = _mode(mode)
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA) and img.format == "JPEG":
        img.draft("L", img.size)  # libjpeg's grayscale output: the decoded luma, as torchvision's
    if apply_exif_orientation:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    gray = _png_gray(img, mode)
    if gray is not None:
        return tensor(gray, device="cpu")
    if mode is not ImageReadMode.UNCHANGED:
        img = img.convert(_PIL_MODES[mode])
    elif img.mode not in ("L", "LA", "RGB", "RGBA", "I;16", "I;16B", "I"):
        img = img.convert("RGBA" if "A" in img.getbands() or "transparency" in img.info else "RGB")
    sixteen = img.mode in ("I;16", "I;16B", "I") and mode is ImageReadMode.UNCHANGED
    arr = np.asarray(img).astype(np.int32) if sixteen else np.asarray(img, dtype=np.uint8)
    arr = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)
    return tensor(np.ascontiguousarray(arr), device="cpu")


def _png_gray(img, mode: ImageReadMode):
    """An 8-bit RGB(A) or palette PNG read as GRAY or GRAY_ALPHA as libpng converts it for torchvision
    (png_set_rgb_to_gray with weights 0.2989 and 0.587, which libpng keeps as 9794/32768 and
    19234/32768, blue the rest, the sum truncated), alpha kept or 255; else None."""
    if mode not in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA) or img.format != "PNG" \
            or img.mode not in ("RGB", "RGBA", "P"):
        return None
    if img.mode == "P":  # libpng expands the palette first
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    a = np.asarray(img)
    rgb = a[..., :3].astype(np.uint32)
    gray = ((9794 * rgb[..., 0] + 19234 * rgb[..., 1] + 3740 * rgb[..., 2]) >> 15).astype(np.uint8)
    if mode is ImageReadMode.GRAY:
        return gray[None]
    alpha = a[..., 3] if img.mode == "RGBA" else np.full_like(gray, 255)
    return np.stack([gray, alpha])


def read_image(path: str, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False) -> Tensor:
    """The image file at `path` as a uint8 tensor (C, H, W) (torchvision.io.read_image)."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def write_file(filename: str, data: Tensor) -> None:
    """Writes the bytes of a 1-d uint8 tensor to a file (torchvision.io.write_file)."""
    _check_bytes("write_file", data)
    with open(os.fspath(filename), "wb") as f:
        f.write(data.numpy(force=True).tobytes())


def _check_bytes(what: str, data) -> None:
    if not isinstance(data, Tensor) or data.dtype != "uint8" or data.ndim != 1:
        raise TypeError(f"{what}: expected a 1-d uint8 tensor of the encoded bytes, got {type(data).__name__}"
                        + (f" {data.dtype} of shape {list(data.shape)}" if isinstance(data, Tensor) else ""))


def _to_pil(what: str, image: Tensor):
    """A uint8 (C, H, W) tensor with 1 or 3 channels as a PIL image."""
    Image = I.require_pil()
    if not isinstance(image, Tensor) or image.dtype != "uint8":
        raise TypeError(f"{what}: input tensor must have uint8 data type, got "
                        f"{image.dtype if isinstance(image, Tensor) else type(image).__name__}\n  fix: "
                        "(image * 255).round().to(torch.uint8) for a float image in [0, 1]")
    if image.ndim != 3:
        raise ValueError(f"{what}: input data should be a 3-dimensional tensor (C, H, W), got {image.ndim} "
                         f"dimensions (shape {list(image.shape)})")
    if image.shape[0] not in (1, 3):
        raise ValueError(f"{what}: the number of channels should be 1 or 3, got: {image.shape[0]}")
    a = image.numpy(force=True)
    return Image.fromarray(np.ascontiguousarray(a[0] if a.shape[0] == 1 else a.transpose(1, 2, 0)))


def _encoded(img, **options) -> Tensor:
    buf = _io.BytesIO()
    img.save(buf, **options)
    return tensor(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy(), device="cpu")


def encode_png(input: Tensor, compression_level: int = 6) -> Tensor:
    """A uint8 image (C, H, W), C 1 or 3, as the bytes of a PNG file (torchvision.io.encode_png);
    compression_level 0 (none) to 9 (most)."""
    if not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression level must be between 0 and 9, got {compression_level}")
    return _encoded(_to_pil("encode_png", input), format="PNG", compress_level=int(compression_level))


def write_png(input: Tensor, filename: str, compression_level: int = 6) -> None:
    """encode_png(input) written to a file (torchvision.io.write_png)."""
    write_file(filename, encode_png(input, compression_level))


def decode_png(input: Tensor, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False) -> Tensor:
    """The bytes of a PNG file (1-d uint8 tensor) as a tensor (C, H, W): uint8, or for a 16-bit
    PNG read UNCHANGED its values 0..65535 as int32 (torchvision's uint16; glassgrad has no
    uint16) (torchvision.io.decode_png)."""
    _check_bytes("decode_png", input)
    return decode_image(input, mode, apply_exif_orientation)


def encode_jpeg(input: Union[Tensor, List[Tensor]], quality: int = 75) -> Union[Tensor, List[Tensor]]:
    """A uint8 image (C, H, W), C 1 or 3, (or a list of them) as the bytes of a JPEG file
    (torchvision.io.encode_jpeg); quality 1 to 100."""
    if not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: image quality should be a positive number between 1 and 100, got {quality}")
    if isinstance(input, (list, tuple)):
        return [_encoded(_to_pil("encode_jpeg", t), format="JPEG", quality=int(quality)) for t in input]
    return _encoded(_to_pil("encode_jpeg", input), format="JPEG", quality=int(quality))


def write_jpeg(input: Tensor, filename: str, quality: int = 75) -> None:
    """encode_jpeg(input) written to a file (torchvision.io.write_jpeg)."""
    encoded = encode_jpeg(input, quality)
    assert isinstance(encoded, Tensor)  # one image in, one out
    write_file(filename, encoded)


def decode_jpeg(input: Union[Tensor, List[Tensor]], mode=ImageReadMode.UNCHANGED, device="cpu",
                apply_exif_orientation: bool = False) -> Union[Tensor, List[Tensor]]:
    """The bytes of a JPEG file (a 1-d uint8 tensor, or a list of them) as uint8 tensors
    (C, H, W) (torchvision.io.decode_jpeg), moved to `device`."""
    if isinstance(input, (list, tuple)):
        return [decode_jpeg(t, mode, device, apply_exif_orientation) for t in input]  # type: ignore[misc]
    _check_bytes("decode_jpeg", input)
    out = decode_image(input, mode, apply_exif_orientation)
    return out if str(device) == "cpu" else out.to(device)
