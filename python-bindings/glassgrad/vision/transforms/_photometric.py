"""torchvision.transforms.functional's invert, posterize, solarize, adjust_sharpness,
autocontrast, equalize, adjust_gamma, gaussian_blur, erase and convert_image_dtype (re-exported
by functional.py). PIL images go through PIL (ImageOps, ImageEnhance), as torchvision sends
them; tensor images and NumPy arrays follow torchvision's tensor formulas on their values."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from ... import _C
from ..._dtypes import plain
from . import _image as I

__all__ = ["invert", "posterize", "solarize", "adjust_sharpness", "autocontrast", "equalize", "adjust_gamma",
           "gaussian_blur", "erase", "convert_image_dtype"]


def _values(img, channels=(1, 3), min_ndim: int = 3):
    """(channels-first array, rebuild) of a tensor image or NumPy image, checked as torchvision
    checks tensor images."""
    from .functional import _channels_first, _check_channels
    a, back = _channels_first(img)
    if a.ndim < min_ndim:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {a.ndim}")
    if channels is not None:
        _check_channels(a, channels)
    return a, back


def _max(dtype: np.dtype):
    """torchvision's _max_value: the dtype's maximum for integers, 1 for floats."""
    return 1 if dtype.kind in "fb" else np.iinfo(dtype).max


def invert(img):
    """max - x: 255 - x for uint8, 1 - x for floats."""
    if I.is_pil(img):
        from PIL import ImageOps
        return ImageOps.invert(img)
    a, back = _values(img)
    return back((_max(a.dtype) - a).astype(a.dtype))


def posterize(img, bits: int):
    """Keeps the `bits` high bits of each channel (uint8 images)."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    if I.is_pil(img):
        from PIL import ImageOps
        return ImageOps.posterize(img, bits)
    a, back = _values(img)
    if a.dtype != np.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {a.dtype}")
    return back(a & np.uint8((0xFF << (8 - bits)) & 0xFF))


def solarize(img, threshold: float):
    """Inverts the pixels at or above threshold."""
    if I.is_pil(img):
        from PIL import ImageOps
        return ImageOps.solarize(img, threshold)
    a, back = _values(img)
    if threshold > _max(a.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return back(np.where(a >= threshold, (_max(a.dtype) - a).astype(a.dtype), a))


def _cast_back(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float result in an image's dtype: rounded for integer images (torchvision rounds there)."""
    return (np.round(out) if dtype.kind in "iu" else out).astype(dtype)


def _conv_planes(a: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Each (H, W) plane of a float array correlated with `kernel` ('valid': smaller by its size - 1)."""
    kh, kw = kernel.shape
    h, w = a.shape[-2] - kh + 1, a.shape[-1] - kw + 1
    out = np.zeros(a.shape[:-2] + (h, w), a.dtype)
    for i in range(kh):
        for j in range(kw):
            out += kernel[i, j] * a[..., i:i + h, j:j + w]
    return out


def adjust_sharpness(img, sharpness_factor: float):
    """Blends with a smoothed copy (PIL's SMOOTH kernel on the interior): 0 smooths, 1 keeps,
    2 sharpens."""
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    if I.is_pil(img):
        from PIL import ImageEnhance
        return ImageEnhance.Sharpness(img).enhance(sharpness_factor)
    from .functional import _blend
    a, back = _values(img, min_ndim=2)
    if a.shape[-1] <= 2 or a.shape[-2] <= 2:
        return img
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    kernel = np.ones((3, 3), dt)
    kernel[1, 1] = 5.0
    kernel /= kernel.sum()
    blurred = a.copy()
    blurred[..., 1:-1, 1:-1] = _cast_back(_conv_planes(a.astype(dt), kernel), a.dtype)
    return back(_blend(a, blurred, sharpness_factor))


def autocontrast(img):
    """Stretches each channel to the full range (its minimum to 0, its maximum to the top)."""
    if I.is_pil(img):
        from PIL import ImageOps
        return ImageOps.autocontrast(img)
    a, back = _values(img)
    bound = _max(a.dtype)
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    lo = a.min(axis=(-2, -1), keepdims=True).astype(dt)
    hi = a.max(axis=(-2, -1), keepdims=True).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = dt.type(bound) / (hi - lo)
    flat = ~np.isfinite(scale)
    lo[flat], scale[flat] = 0, 1
    return back(np.clip((a - lo) * scale, 0, bound).astype(a.dtype))


def _equalize_plane(p: np.ndarray) -> np.ndarray:
    hist = np.bincount(p.reshape(-1), minlength=256)
    nonzero = hist[hist != 0]
    step = int(nonzero[:-1].sum()) // 255
    if step == 0:
        return p
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255)
    return lut[p.astype(np.int64)].astype(np.uint8)


def equalize(img):
    """Equalizes each channel's histogram (uint8 images), as PIL's ImageOps.equalize."""
    if I.is_pil(img):
        from PIL import ImageOps
        return ImageOps.equalize(img)
    a, back = _values(img)
    if not 3 <= a.ndim <= 4:
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found {a.ndim}")
    if a.dtype != np.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {a.dtype}")
    planes = a.reshape(-1, *a.shape[-2:])
    return back(np.stack([_equalize_plane(p) for p in planes]).reshape(a.shape))


def adjust_gamma(img, gamma: float, gain: float = 1):
    """gain * x ** gamma on the [0, 1] scale (integer images are converted there and back)."""
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    if I.is_pil(img):
        mode = img.mode
        table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
        return img.convert("RGB").point(table).convert(mode)
    a, back = _values(img, min_ndim=2)
    x = a if a.dtype.kind == "f" else _convert(a, np.dtype(np.float32))
    out = np.clip(gain * np.power(x, x.dtype.type(gamma)), 0, 1).astype(x.dtype)
    return back(_convert(out, a.dtype))


def _gaussian_kernel1d(size: int, sigma: float, dt: np.dtype) -> np.ndarray:
    half = (size - 1) * 0.5
    x = I.linspace(-half, half, size, dt)
    pdf = np.exp(-0.5 * (x / dt.type(sigma)) ** 2)
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size: List[int], sigma: Optional[List[float]] = None):
    """Blurs with a Gaussian of kernel_size (odd, [kx, ky] or an int) and sigma ([sx, sy] or a
    number; default 0.3 * ((k - 1) * 0.5 - 1) + 0.8), the borders reflected. A kernel whose half
    reaches the image's height or width is refused, as torchvision's reflection padding does."""
    return blur(img, kernel_size, sigma, within_image=True)


def blur(img, kernel_size: List[int], sigma: Optional[List[float]], within_image: bool):
    """gaussian_blur; within_image=False reflects past the edges again where the kernel is larger
    than the image (ElasticTransform's displacement field of a small image, which glassgrad
    blurs where torchvision raises)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    pil = I.is_pil(img)
    if pil:
        mode = img.mode
        from .functional import pil_to_tensor
        a = I.chw_array(pil_to_tensor(img))
    else:
        if not I.is_tensor_like(img) and not isinstance(img, np.ndarray):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        a, back = _values(img, channels=None, min_ndim=2)
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    kernel = np.outer(_gaussian_kernel1d(kernel_size[1], sigma[1], dt), _gaussian_kernel1d(kernel_size[0], sigma[0], dt))
    px, py = kernel_size[0] // 2, kernel_size[1] // 2
    if within_image and (py >= a.shape[-2] or px >= a.shape[-1]):
        # torchvision pads by reflection with F.pad, which refuses pads of a whole side or more
        # (NumPy's reflect would fold the image over again).
        raise _C.ShapeError(f"gaussian_blur: Padding size should be less than the corresponding input dimension, "
                            f"but got: padding ({px}, {px}) and ({py}, {py}) for an image of {a.shape[-2]}x"
                            f"{a.shape[-1]} (kernel_size {list(kernel_size)})\n  fix: a kernel_size below twice the "
                            f"image's height and width, or a larger image")
    padded = np.pad(a.astype(dt), [(0, 0)] * (a.ndim - 2) + [(py, py), (px, px)], mode="reflect")
    out = _cast_back(_conv_planes(padded, kernel), a.dtype)
    if pil:
        from .functional import to_pil_image
        return to_pil_image(I.Chw(out).tensor(), mode=mode)
    return back(out)


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """The tensor image with the (h, w) window at (i, j) set to v (a value or a tensor that
    broadcasts to (C, h, w)); inplace=True writes into the image itself."""
    from ..._tensor import Tensor
    if not I.is_tensor_like(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    a = I.chw_array(img)
    out = a if inplace and isinstance(img, I.Chw) else a.copy()
    out[..., i:i + h, j:j + w] = v.numpy(force=True) if isinstance(v, Tensor) else v
    new = I.like(out, img)
    if inplace and isinstance(img, Tensor) and hasattr(img, "copy_"):  # a tensor that can be written in place
        img.copy_(new)
        return img
    return new


def _convert(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """torchvision's convert_image_dtype on values: scaled between [0, 1] floats and the full
    range of integer types."""
    if a.dtype == dtype:
        return a
    if a.dtype.kind == "f":
        if dtype.kind == "f":
            return a.astype(dtype)
        if (a.dtype == np.float32 and dtype in (np.int32, np.int64)) or (a.dtype == np.float64 and dtype == np.int64):
            raise RuntimeError(f"The cast from {a.dtype} to {dtype} cannot be performed safely.")
        return (a * a.dtype.type(float(_max(dtype)) + 1.0 - 1e-3)).astype(dtype)
    in_max = float(_max(a.dtype))
    if dtype.kind == "f":
        return (a.astype(dtype) / dtype.type(in_max)).astype(dtype)
    out_max = float(_max(dtype))
    if in_max > out_max:
        return (a // int((in_max + 1) // (out_max + 1))).astype(dtype)
    return a.astype(dtype) * int((out_max + 1) // (in_max + 1))


def convert_image_dtype(image, dtype="float32"):
    """The tensor image in `dtype`, its values rescaled: uint8 [0, 255] <-> float [0, 1], and
    between integer types by their ranges."""
    if not I.is_tensor_like(image):
        raise TypeError("Input img should be Tensor Image")
    from ..._dtypes import to_dtype
    want = np.dtype(plain(to_dtype(dtype)))
    a = I.chw_array(image)
    return image if a.dtype == want else I.like(_convert(a, want), image)

