"""torchvision.transforms.functional's names and semantics for PIL images, NumPy arrays (an image
before ToTensor: (H, W) or (H, W, C)) and glassgrad Tensors ((..., C, H, W)); see _image.py.
Each function returns the kind of image it was given (to_tensor and to_pil_image convert)."""
from __future__ import annotations


import contextlib
import numbers
import threading
from enum import Enum
from typing import Iterator, List, Optional, Sequence

import numpy as np

from ... import _C
from ..._dtypes import plain
from ..._tensor import Tensor
from ..._tensor import tensor as as_tensor
from . import _image as I
from ._geometry_log import geometric
from ._image import Chw

__all__ = ["InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels", "to_tensor",
           "pil_to_tensor", "to_pil_image", "normalize", "resize", "pad", "crop", "center_crop", "resized_crop",
           "hflip", "vflip", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "rgb_to_grayscale", "to_grayscale", "rotate", "affine", "five_crop", "ten_crop", "invert", "posterize",
           "solarize", "adjust_sharpness", "autocontrast", "equalize", "adjust_gamma", "gaussian_blur", "erase",
           "convert_image_dtype", "perspective"]


class InterpolationMode(Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_FILTERS = {"nearest": 0, "nearest-exact": 0, "lanczos": 1, "bilinear": 2, "bicubic": 3, "box": 4, "hamming": 5}
_FROM_PIL = {0: InterpolationMode.NEAREST, 1: InterpolationMode.LANCZOS, 2: InterpolationMode.BILINEAR,
             3: InterpolationMode.BICUBIC, 4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING}


def interpolation_mode(interpolation) -> InterpolationMode:
    """An InterpolationMode from a mode or a PIL filter number."""
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, int) and interpolation in _FROM_PIL:
        return _FROM_PIL[interpolation]
    raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer constant")


# ---- sizes -----------------------------------------------------------------------------------
def get_dimensions(img) -> List[int]:
    """[channels, height, width]."""
    return list(I.dimensions(img))


def get_image_size(img) -> List[int]:
    """[width, height]."""
    _, h, w = I.dimensions(img)
    return [w, h]


def get_image_num_channels(img) -> int:
    return I.dimensions(img)[0]


# ---- conversions -----------------------------------------------------------------------------
def _to_chw_array(pic) -> np.ndarray:
    """ToTensor's array: uint8 scaled to float32 in [0, 1], other dtypes kept."""
    if I.is_pil(pic):
        mode_dtype = {"I": np.int32, "I;16": np.int16, "F": np.float32}
        bands = len(pic.getbands())
        if pic.mode in ("L", "RGB", "RGBA", "LA", "CMYK", "YCbCr", "LAB", "HSV", "P"):  # 8 bits a band
            arr = np.frombuffer(pic.tobytes(), np.uint8).reshape(pic.height, pic.width, bands)
        else:
            arr = np.asarray(pic, dtype=mode_dtype.get(pic.mode, np.uint8))
            if pic.mode == "1":
                arr = arr.astype(np.uint8) * 255
            arr = arr.reshape(pic.height, pic.width, bands)
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    chw = arr.transpose(2, 0, 1)
    if chw.dtype == np.uint8:  # as ToTensor: float32 x / 255 (a division: x * (1/255) is 1 ulp off)
        out = chw.astype(np.float32)
        out /= np.float32(255)
        return out
    return np.ascontiguousarray(chw)


def to_tensor(pic) -> Tensor:
    """A PIL image or NumPy array (H, W[, C]) as a (C, H, W) tensor: uint8 images become float32
    in [0, 1], other dtypes keep their values."""
    return Chw(_to_chw_array(pic)).tensor()


def pil_to_tensor(pic) -> Tensor:
    """A PIL image as a (C, H, W) tensor of its own dtype (uint8 for 8-bit images), unscaled."""
    if not I.is_pil(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic)
    arr = arr.reshape(pic.height, pic.width, len(pic.getbands()))
    return Chw(np.ascontiguousarray(arr.transpose(2, 0, 1))).tensor()


def to_pil_image(pic, mode: Optional[str] = None):
    """A tensor (C, H, W) or NumPy array (H, W[, C]) as a PIL image. Float tensors are scaled by
    255 and converted to 8 bits (as torch's .byte(): truncated, wrapping outside [0, 255]) unless
    mode is 'F'; float arrays too (by NumPy's astype(uint8), as torchvision). One-channel int16
    images are 'I;16'."""
    Image = I.require_pil()
    if I.is_tensor_like(pic):
        arr = I.chw_array(pic)
        if arr.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {arr.ndim} dimensions.")
        if arr.ndim == 2:
            arr = arr[None]
        if arr.shape[0] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[0]} channels.")
        if arr.dtype.kind == "f" and mode != "F":
            arr = (np.trunc(arr * 255).astype(np.int64) & 0xFF).astype(np.uint8)
        arr = arr.transpose(1, 2, 0)
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        if arr.shape[-1] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[-1]} channels.")
        if arr.dtype.kind == "f" and mode != "F":
            arr = (arr * 255).astype(np.uint8)  # torchvision's cast of a float array (no rounding)
    else:
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    channels = arr.shape[2]
    if channels == 1:
        arr = arr[:, :, 0]
        default = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I",
                   np.dtype(np.float32): "F"}.get(arr.dtype)
        if mode is not None and mode != default and not (mode == "L" and arr.dtype == np.uint8):
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {arr.dtype}. Should be {default}")
        mode = mode or default
    else:
        allowed = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}[channels]
        if mode is not None and mode not in allowed:
            raise ValueError(f"Only modes {allowed} are supported for {channels}D inputs")
        mode = mode or allowed[0]
        if arr.dtype != np.uint8:
            raise TypeError(f"Input type {arr.dtype} is not supported for {channels}-channel images (uint8 only)")
    if mode is None:
        raise TypeError(f"Input type {arr.dtype} is not supported")
    if mode == "I;16" and arr.dtype == np.int16:
        # Pillow makes 'I;16' images of uint16 arrays only; the same 16 bits, as torchvision reads them.
        return Image.fromarray(np.ascontiguousarray(arr).astype("<u2"))
    return Image.fromarray(np.ascontiguousarray(arr), mode=mode)


# ---- normalize -------------------------------------------------------------------------------
def _normalize_constants(mean, std, dtype):
    m = np.asarray(mean, dtype=dtype)
    s = np.asarray(std, dtype=dtype)
    if (s == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {np.dtype(dtype)}, leading to division by zero.")
    return (m.reshape(-1, 1, 1) if m.ndim == 1 else m), (s.reshape(-1, 1, 1) if s.ndim == 1 else s)


def _check_normalize_channels(shape, m: np.ndarray, s: np.ndarray) -> None:
    """torchvision subtracts and divides in place (on a clone), so mean and std must broadcast to the
    image's own shape: three means on a one-channel image (MNIST with CIFAR's Normalize) raise."""
    shape = tuple(shape)
    try:
        full = np.broadcast_shapes(shape, m.shape, s.shape)
    except ValueError:
        full = None
    if full == shape:
        return
    channels = f"mean has {m.shape[0]} and std {s.shape[0]} values, the image {shape[-3]} channel(s)"
    fix = "give one mean and one std per channel of the image (or convert it, e.g. transforms.Grayscale(3))"
    if full is None:
        raise _C.ShapeError(f"The size of tensor a ({shape[-3]}) must match the size of tensor b "
                            f"({max(m.shape[0], s.shape[0])}) at non-singleton dimension {len(shape) - 3}\n"
                            f"  Normalize: {channels}\n  fix: {fix}")
    raise _C.TensorStateError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}\n"
                              f"  Normalize: {channels}\n  fix: {fix}")


def normalize(tensor, mean: Sequence[float], std: Sequence[float], inplace: bool = False, _constants=None):
    """(tensor - mean[c]) / std[c] for each channel c of a float tensor image (..., C, H, W). A
    tensor that requires grad is normalized by tensor ops, so gradients flow through it, as
    through torchvision's (an adversarial example normalized before the model); so is one with
    inplace=True, which writes the result into `tensor` and returns it, as torchvision's."""
    if not I.is_tensor_like(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    I.dimensions(tensor)  # torchvision's first check: fewer than 2 dims is "not a torch image" (TypeError)
    if isinstance(tensor, Tensor) and (tensor.requires_grad or inplace):
        return _normalize_differentiable(tensor, mean, std, inplace)
    arr = I.chw_array(tensor)
    I.check_float(arr, "normalize")
    if arr.ndim < 3:
        raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{list(arr.shape)}")
    m, s = _constants(arr.dtype) if _constants is not None else _normalize_constants(mean, std, arr.dtype)
    _check_normalize_channels(arr.shape, m, s)
    out = arr - m
    out /= s
    return I.like(out, tensor)


def _normalize_differentiable(tensor: Tensor, mean, std, inplace: bool) -> Tensor:
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{list(tensor.shape)}")
    m, s = _normalize_constants(mean, std, np.dtype(plain(tensor.dtype)) if plain(tensor.dtype) != "bfloat16"
                                else np.float32)
    _check_normalize_channels(tensor.shape, m, s)
    m_t = as_tensor(m, dtype=tensor.dtype, device=tensor.device)
    s_t = as_tensor(s, dtype=tensor.dtype, device=tensor.device)
    if inplace:
        return tensor.sub_(m_t).div_(s_t)
    return (tensor - m_t) / s_t


# ---- geometry --------------------------------------------------------------------------------
def _size_pair(size, what="size") -> List[int]:
    if isinstance(size, numbers.Number):
        return [int(size), int(size)]
    size = list(size)
    if len(size) == 1:
        return [int(size[0]), int(size[0])]
    if len(size) != 2:
        raise ValueError(f"Please provide only two dimensions (h, w) for {what}.")
    return [int(size[0]), int(size[1])]


def _resized_output_size(h: int, w: int, size, max_size: Optional[int]) -> List[int]:
    if size is None and max_size is not None:  # v2: the longer edge becomes max_size
        short, long = (w, h) if w <= h else (h, w)
        new_short = int(max_size * short / long)
        return [max_size, new_short] if w <= h else [new_short, max_size]
    if isinstance(size, numbers.Number):
        size = [int(size)]
    size = list(size)
    if len(size) == 1:
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
        return [new_h, new_w]
    if max_size is not None:
        raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, i.e. size "
                         "should be an int or a sequence of length 1 in torchscript mode.")
    return [int(size[0]), int(size[1])]


def _bilinear_plain(a: np.ndarray, oh: int, ow: int) -> np.ndarray:
    """Bilinear interpolation without antialiasing (half-pixel centres) of (..., H, W)."""
    h, w = a.shape[-2:]

    def coords(n_out, n_in):
        x = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        x = np.clip(x, 0, n_in - 1)
        lo = np.floor(x).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, (x - lo).astype(np.float64)

    y0, y1, fy = coords(oh, h)
    x0, x1, fx = coords(ow, w)
    af = a.astype(np.float64)
    top = af[..., y0, :] * (1 - fy)[:, None] + af[..., y1, :] * fy[:, None]
    out = top[..., x0] * (1 - fx) + top[..., x1] * fx
    return out


def _resize_array(a: np.ndarray, oh: int, ow: int, mode: InterpolationMode, antialias: bool) -> np.ndarray:
    """Resizes a (..., H, W) array: through PIL plane by plane (PIL's filters, antialiased), or
    plain bilinear / nearest when antialias is off."""
    dtype = a.dtype
    if mode in (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT):
        h, w = a.shape[-2:]
        if mode is InterpolationMode.NEAREST:
            ys, xs = np.floor(np.arange(oh) * (h / oh)).astype(np.int64), np.floor(np.arange(ow) * (w / ow)).astype(np.int64)
        else:
            ys = np.floor((np.arange(oh) + 0.5) * (h / oh)).astype(np.int64)
            xs = np.floor((np.arange(ow) + 0.5) * (w / ow)).astype(np.int64)
        return a[..., np.minimum(ys, h - 1)[:, None], np.minimum(xs, w - 1)[None, :]]
    if not antialias and mode is InterpolationMode.BILINEAR:
        out = _bilinear_plain(a, oh, ow)
    else:
        Image = I.require_pil()
        planes = a.reshape(-1, *a.shape[-2:]).astype(np.float32)
        out = np.stack([np.asarray(Image.fromarray(p, mode="F").resize((ow, oh), _PIL_FILTERS[mode.value]))
                        for p in planes]).reshape(*a.shape[:-2], oh, ow)
    if dtype.kind in "iub":
        out = np.clip(np.round(out), 0, I.max_value(dtype) if dtype.kind != "b" else 1)
    return out.astype(dtype)


@geometric
def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size: Optional[int] = None,
           antialias: Optional[bool] = True):
    """Resizes to `size`: (h, w), or an int (or [int]) for the smaller edge, keeping the aspect
    ratio (the longer edge at most max_size)."""
    mode = interpolation_mode(interpolation)
    _, h, w = I.dimensions(img)
    oh, ow = _resized_output_size(h, w, size, max_size)
    if (oh, ow) == (h, w):
        return img
    if I.is_pil(img):
        return img.resize((ow, oh), _PIL_FILTERS[mode.value])
    if isinstance(img, np.ndarray):
        return I.chw_to_hwc(_resize_array(I.hwc_to_chw(img), oh, ow, mode, antialias is not False), img.ndim == 2)
    if mode in (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC):
        return I.like(_interpolate_array(I.chw_array(img), oh, ow, mode, bool(antialias)), img)
    return I.like(_resize_array(I.chw_array(img), oh, ow, mode, bool(antialias)), img)


# Inside a v2 transform or v2.functional.resize (v2_kernels()), a uint8 tensor image is resized by
# F.interpolate's own uint8 kernels, as torchvision.transforms.v2 does on a CPU with AVX2 (x86) or
# on ARM; v1 resizes it in float32 and rounds.
_kernels = threading.local()


@contextlib.contextmanager
def v2_kernels() -> Iterator[None]:
    outer = getattr(_kernels, "v2", False)
    _kernels.v2 = True
    try:
        yield
    finally:
        _kernels.v2 = outer


def _interpolate_array(a: np.ndarray, oh: int, ow: int, mode: InterpolationMode, antialias: bool) -> np.ndarray:
    """A tensor image's (..., H, W) bilinear or bicubic resize as torchvision's: F.interpolate
    (align_corners=False) in float32 (float64 stays float64; uint8 too under v2_kernels()); an
    integer image's float result is rounded (a uint8 image's bicubic one clamped to [0, 255]
    first) and cast back."""
    from ...nn.functional import interpolate
    from ...utils.data._utils.pin_memory import new_tensor
    dtype = a.dtype
    native = (np.float32, np.float64, np.uint8) if getattr(_kernels, "v2", False) else (np.float32, np.float64)
    work = a if dtype in native else a.astype(np.float32)
    flat = np.ascontiguousarray(work.reshape((-1,) + a.shape[-3:]) if a.ndim >= 3 else work[None, None])
    out = interpolate(new_tensor(flat), size=[oh, ow], mode=mode.value, align_corners=False,
                      antialias=antialias).numpy().reshape(a.shape[:-2] + (oh, ow))
    if work.dtype == dtype:
        return out
    if mode is InterpolationMode.BICUBIC and dtype == np.uint8:
        np.clip(out, 0, 255, out=out)
    if dtype.kind in "iu":
        np.round(out, out=out)
    return out.astype(dtype)


def _padding_ltrb(padding) -> List[int]:
    if isinstance(padding, numbers.Number):
        p = int(padding)
        return [p, p, p, p]
    padding = list(padding)
    if len(padding) == 1:
        return [int(padding[0])] * 4
    if len(padding) == 2:
        return [int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])]
    if len(padding) == 4:
        return [int(p) for p in padding]
    raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")


def _pad_chw(a: np.ndarray, ltrb: List[int], fill, mode: str) -> np.ndarray:
    left, top, right, bottom = ltrb
    # Negative padding crops.
    h, w = a.shape[-2:]
    a = a[..., max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
    left, top, right, bottom = (max(p, 0) for p in ltrb)
    widths = [(0, 0)] * (a.ndim - 2) + [(top, bottom), (left, right)]
    if mode == "constant":
        fill = 0 if fill is None else fill
        if isinstance(fill, (tuple, list)):
            fill_arr = np.asarray(fill, dtype=a.dtype)
            out = np.empty(a.shape[:-2] + (a.shape[-2] + top + bottom, a.shape[-1] + left + right), a.dtype)
            out[...] = fill_arr.reshape(-1, 1, 1) if fill_arr.size == a.shape[-3] else fill_arr.flat[0]
            out[..., top:top + a.shape[-2], left:left + a.shape[-1]] = a
            return out
        return np.pad(a, widths, mode="constant", constant_values=np.asarray(fill).astype(a.dtype))
    return np.pad(a, widths, mode=mode)


@geometric
def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pads each border: an int (all four), (left/right, top/bottom) or (left, top, right,
    bottom); padding_mode "constant" (with fill), "edge", "reflect" or "symmetric"."""
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    ltrb = _padding_ltrb(padding)
    if I.is_pil(img):
        if padding_mode == "constant" and min(ltrb) >= 0 and img.mode != "P":
            from PIL import ImageOps
            f = fill if fill is not None else 0
            bands = len(img.getbands())
            if isinstance(f, (tuple, list)):  # as torchvision's _parse_fill: one value a band
                f = tuple(f) if len(f) > 1 else f[0]
            if isinstance(f, numbers.Number) and bands > 1:
                f = (f,) * bands
            cast = float if img.mode == "F" else int
            f = tuple(cast(v) for v in f) if isinstance(f, tuple) else cast(f)
            return ImageOps.expand(img, border=tuple(ltrb), fill=f)
        Image = I.require_pil()
        arr = np.asarray(img)
        out = I.chw_to_hwc(_pad_chw(I.hwc_to_chw(arr), ltrb, fill, padding_mode), arr.ndim == 2)
        res = Image.fromarray(np.ascontiguousarray(out), mode=img.mode if img.mode != "P" else None)
        if img.mode == "P":
            res.putpalette(img.getpalette())
        return res
    if isinstance(img, np.ndarray):
        return I.chw_to_hwc(_pad_chw(I.hwc_to_chw(img), ltrb, fill, padding_mode), img.ndim == 2)
    a = I.chw_array(img)
    _check_mirror_padding(a.shape, ltrb, padding_mode)
    return I.like(_pad_chw(a, ltrb, fill, padding_mode), img)


class _PaddingTooLarge(IndexError, RuntimeError):
    """Mirror padding wider than a tensor image allows: torchvision raises RuntimeError (reflect,
    torch's F.pad) or IndexError (symmetric, its index arithmetic)."""


def _check_mirror_padding(shape, ltrb: List[int], mode: str) -> None:
    """A tensor image's 'reflect' padding must be smaller than the side it mirrors, 'symmetric'
    padding at most as large (torchvision's tensor kernels; PIL images and arrays pad any width)."""
    if mode not in ("reflect", "symmetric"):
        return
    h, w = shape[-2:]
    for pad, side, axis in zip(ltrb, (w, h, w, h), ("width", "height", "width", "height")):
        if pad > side or (mode == "reflect" and pad == side):
            raise _PaddingTooLarge(
                f"pad: {mode} padding of {pad} on an image of {axis} {side} (shape {list(shape)}): padding "
                f"should be {'less than' if mode == 'reflect' else 'at most'} the corresponding input dimension\n"
                f"  fix: pad in several steps, use padding_mode='edge' or 'constant', or resize the image first")


def _crop_chw(a: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    h, w = a.shape[-2:]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:  # outside the image: zeros, as torchvision
        ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0), max(right - max(w, left), 0),
                max(bottom - max(h, top), 0)]
        return _pad_chw(a[..., max(top, 0):bottom, max(left, 0):right], ltrb, 0, "constant")
    return a[..., top:bottom, left:right]


@geometric
def crop(img, top: int, left: int, height: int, width: int):
    """The (height, width) window at (top, left); outside the image reads as zeros."""
    if I.is_pil(img):
        return img.crop((left, top, left + width, top + height))
    if isinstance(img, np.ndarray):
        return I.chw_to_hwc(_crop_chw(I.hwc_to_chw(img), top, left, height, width), img.ndim == 2)
    return I.like(np.ascontiguousarray(_crop_chw(I.chw_array(img), top, left, height, width)), img)


@geometric
def center_crop(img, output_size):
    """The centred window of output_size (h, w) or an int; smaller images are zero-padded."""
    crop_h, crop_w = _size_pair(output_size)
    _, h, w = I.dimensions(img)
    if crop_w > w or crop_h > h:
        ltrb = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                (crop_w - w + 1) // 2 if crop_w > w else 0, (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, ltrb, fill=0)
        _, h, w = I.dimensions(img)
        if crop_w == w and crop_h == h:
            return img
    return crop(img, int(round((h - crop_h) / 2.0)), int(round((w - crop_w) / 2.0)), crop_h, crop_w)


@geometric
def resized_crop(img, top: int, left: int, height: int, width: int, size, interpolation=InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


@geometric
def hflip(img):
    """Mirrors left-right."""
    if I.is_pil(img):
        return img.transpose(I.Image.Transpose.FLIP_LEFT_RIGHT)
    if isinstance(img, np.ndarray):
        return img[:, ::-1]
    return I.like(np.ascontiguousarray(I.chw_array(img)[..., ::-1]), img)


@geometric
def vflip(img):
    """Mirrors top-bottom."""
    if I.is_pil(img):
        return img.transpose(I.Image.Transpose.FLIP_TOP_BOTTOM)
    if isinstance(img, np.ndarray):
        return img[::-1]
    return I.like(np.ascontiguousarray(I.chw_array(img)[..., ::-1, :]), img)


# ---- colour ----------------------------------------------------------------------------------
def _channels_first(img):
    """(array (..., C, H, W), rebuild): the image's values and a function turning an array of the
    same layout back into the image's kind."""
    if isinstance(img, np.ndarray):
        two_d = img.ndim == 2
        return I.hwc_to_chw(img), lambda a: I.chw_to_hwc(a, two_d)
    return I.chw_array(img), lambda a: I.like(a, img)


def _check_channels(a: np.ndarray, allowed) -> None:
    c = 1 if a.ndim == 2 else a.shape[-3]
    if c not in allowed:
        raise TypeError(f"Input image tensor permitted channel values are {list(allowed)}, but found {c}")


def _blend(a: np.ndarray, b, ratio: float) -> np.ndarray:
    """ratio * a + (1 - ratio) * b, clipped, in a's dtype (truncated for integers): computed as
    torchvision's tensors compute it, in float32 for integer images (float64 would round some
    values to the other side of an integer)."""
    bound = I.max_value(a.dtype)
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    b = np.asarray(b)
    b = b.astype(dt) if b.dtype != dt else b
    out = np.clip(dt.type(ratio) * a.astype(dt) + dt.type(1.0 - ratio) * b, 0, bound)
    return out.astype(a.dtype) if a.dtype.kind == "f" else np.trunc(out).astype(a.dtype)


def _grayscale(a: np.ndarray) -> np.ndarray:
    if a.shape[-3] == 1:
        return a.copy()
    r, g, b = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    gray = 0.2989 * r.astype(np.float32) + 0.587 * g + 0.114 * b
    gray = gray.astype(a.dtype) if a.dtype.kind == "f" else np.trunc(gray).astype(a.dtype)
    return gray[..., None, :, :]


def _enhance(img, factor: float, name: str, enhancer: str, on_array):
    """A colour adjustment: PIL images through ImageEnhance.<enhancer> (as torchvision), arrays
    and tensors through on_array(channels-first array, factor) (torchvision's tensor formulas)."""
    if factor < 0:
        raise ValueError(f"{name} ({factor}) is not non-negative.")
    if I.is_pil(img):
        from PIL import ImageEnhance
        return getattr(ImageEnhance, enhancer)(img).enhance(factor)
    a, back = _channels_first(img)
    _check_channels(a, (1, 3))
    out = on_array(a, factor)
    return img if out is None else back(out)


def _contrast(a: np.ndarray, factor: float) -> np.ndarray:
    dtype = a.dtype if a.dtype.kind == "f" else np.float32
    gray = _grayscale(a) if a.shape[-3] == 3 else a
    return _blend(a, gray.astype(dtype).mean(axis=(-3, -2, -1), keepdims=True), factor)


def adjust_brightness(img, brightness_factor: float):
    """Multiplies the pixels by brightness_factor (0: black, 1: unchanged)."""
    return _enhance(img, brightness_factor, "brightness_factor", "Brightness", lambda a, f: _blend(a, 0.0, f))


def adjust_contrast(img, contrast_factor: float):
    """Blends with the image's mean grey level (0: solid grey, 1: unchanged)."""
    return _enhance(img, contrast_factor, "contrast_factor", "Contrast", _contrast)


def adjust_saturation(img, saturation_factor: float):
    """Blends with the grey version (0: grey, 1: unchanged, 2: twice as saturated)."""
    return _enhance(img, saturation_factor, "saturation_factor", "Color",
                    lambda a, f: None if a.shape[-3] == 1 else _blend(a, _grayscale(a), f))


def _rgb_to_hsv(a: np.ndarray) -> np.ndarray:
    r, g, b = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    maxc, minc = a.max(axis=-3), a.min(axis=-3)
    eqc = maxc == minc
    cr = maxc - minc
    s = cr / np.where(eqc, 1.0, maxc)
    div = np.where(eqc, 1.0, cr)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = np.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return np.stack((h, s, maxc), axis=-3)


def _hsv_to_rgb(a: np.ndarray) -> np.ndarray:
    h, s, v = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.astype(np.int32) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    r = np.choose(i, [v, q, p, p, t, v])
    g = np.choose(i, [t, v, v, q, p, p])
    b = np.choose(i, [p, p, t, v, v, q])
    return np.stack((r, g, b), axis=-3)


def adjust_hue(img, hue_factor: float):
    """Shifts the hue by hue_factor turns (in [-0.5, 0.5]) in HSV space."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if I.is_pil(img):
        Image = I.require_pil()
        if img.mode in {"L", "1", "I", "F"}:
            return img
        h, s, v = img.convert("HSV").split()
        np_h = np.array(h, dtype=np.uint8)
        np_h += np.int32(hue_factor * 255).astype(np.uint8)
        return Image.merge("HSV", (Image.fromarray(np_h, "L"), s, v)).convert(img.mode)
    a, back = _channels_first(img)
    _check_channels(a, (1, 3))
    if a.shape[-3] == 1:
        return img
    dtype = a.dtype
    f = a.astype(np.float32) / np.float32(I.max_value(dtype)) if dtype.kind != "f" else a
    hsv = _rgb_to_hsv(f)
    hsv[..., 0, :, :] = np.mod(hsv[..., 0, :, :] + hue_factor, 1.0)
    rgb = _hsv_to_rgb(hsv)
    if dtype.kind != "f":  # convert_image_dtype's float -> int: scale by max + 1 - eps, truncate
        rgb = (rgb * np.float32(I.max_value(dtype) + 1.0 - 0.001)).astype(dtype)
    return back(rgb.astype(dtype))


def rgb_to_grayscale(img, num_output_channels: int = 1):
    """The ITU-R 601-2 luma (0.2989 R + 0.587 G + 0.114 B), as 1 or 3 channels."""
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if I.is_pil(img):
        return to_grayscale(img, num_output_channels)
    a, back = _channels_first(img)
    _check_channels(a, (1, 3))
    g = _grayscale(a)
    if num_output_channels == 3:
        g = np.broadcast_to(g, a.shape).copy()
    return back(g)


def to_grayscale(img, num_output_channels: int = 1):
    """A PIL image in grey ('L'), or as three equal channels ('RGB')."""
    if not I.is_pil(img):
        return rgb_to_grayscale(img, num_output_channels)
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        Image = I.require_pil()
        g = np.array(img.convert("L"), dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), "RGB")
    raise ValueError("num_output_channels should be either 1 or 3")


# The geometric and photometric operations beyond these live in their own files; this module
# names them all, as torchvision.transforms.functional does.
from ._geometric import affine, five_crop, rotate, ten_crop  # noqa: E402
from ._perspective import perspective  # noqa: E402
from ._photometric import (adjust_gamma, adjust_sharpness, autocontrast, convert_image_dtype, equalize,  # noqa: E402
                           erase, gaussian_blur, invert, posterize, solarize)
from ._elastic import elastic_transform  # noqa: E402,F401
