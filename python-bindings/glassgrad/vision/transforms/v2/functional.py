"""torchvision.transforms.v2.functional: the v1 functions (transforms.functional) under their v1
and v2 names, and v2's own: to_image, to_dtype, get_size, get_num_channels, horizontal_flip,
vertical_flip, grayscale_to_rgb, permute_channels, gaussian_noise, jpeg, elastic
(elastic_transform) and is_pure_tensor. Each takes PIL images and tensor images (..., C, H, W),
as torchvision's; the image kernels are also named with torchvision's `_image` suffix
(resize_image, horizontal_flip_image, ...). The geometric functions also take a tv_tensors.Mask
(moved with nearest neighbour) and BoundingBoxes (the box kernels, also under their names:
resize_bounding_boxes, ...); clamp_bounding_boxes and convert_bounding_box_format are here too.
Key points are not."""
from __future__ import annotations

import functools
import io as _io
from typing import Any, List

import numpy as np

from ...._tensor import Tensor
from .. import _image as I
from .._elastic import elastic, elastic_transform
from ..functional import (InterpolationMode, adjust_brightness, adjust_contrast, adjust_gamma, adjust_hue,
                          adjust_saturation, adjust_sharpness, affine, autocontrast, center_crop, convert_image_dtype,
                          crop, equalize, erase, five_crop, gaussian_blur, get_dimensions, get_image_num_channels,
                          get_image_size, hflip, invert, normalize, pad, perspective, pil_to_tensor, posterize, resize,
                          resized_crop, rgb_to_grayscale, rotate, solarize, ten_crop, to_grayscale, to_pil_image,
                          to_tensor, v2_kernels, vflip)

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue",
           "adjust_saturation", "adjust_sharpness", "affine", "autocontrast", "center_crop", "convert_image_dtype",
           "crop", "elastic", "elastic_transform", "equalize", "erase", "five_crop", "gaussian_blur",
           "gaussian_noise", "get_dimensions", "get_image_num_channels", "get_image_size", "get_num_channels",
           "get_size", "grayscale_to_rgb", "hflip", "horizontal_flip", "invert", "is_pure_tensor", "jpeg",
           "normalize", "pad", "permute_channels", "perspective", "pil_to_tensor", "posterize", "resize",
           "resized_crop", "rgb_to_grayscale", "rotate", "solarize", "ten_crop", "to_dtype", "to_grayscale",
           "to_image", "to_pil_image", "to_tensor", "vertical_flip", "vflip", "adjust_brightness_image",
           "adjust_contrast_image", "adjust_gamma_image", "adjust_hue_image", "adjust_saturation_image",
           "adjust_sharpness_image", "affine_image", "autocontrast_image", "center_crop_image", "crop_image",
           "elastic_image", "equalize_image", "erase_image", "five_crop_image", "gaussian_blur_image",
           "gaussian_noise_image", "get_dimensions_image", "get_num_channels_image", "get_size_image",
           "grayscale_to_rgb_image", "horizontal_flip_image", "invert_image", "jpeg_image", "normalize_image",
           "pad_image", "permute_channels_image", "perspective_image", "posterize_image", "resize_image",
           "resized_crop_image", "rgb_to_grayscale_image", "rotate_image", "solarize_image", "ten_crop_image",
           "to_dtype_image", "vertical_flip_image"]

horizontal_flip = hflip
vertical_flip = vflip


def is_pure_tensor(inpt) -> bool:
    """A tensor that is not a tv_tensor (Image, Video, Mask, BoundingBoxes)."""
    from ...tv_tensors import TVTensor
    return isinstance(inpt, Tensor) and not isinstance(inpt, TVTensor)


def to_image(inpt) -> Tensor:
    """A PIL image, a NumPy array (H, W[, C]) or a tensor as a tv_tensors.Image (C, H, W) of its
    own dtype (uint8 for the usual pictures), unscaled (v2.functional.to_image)."""
    from ...._tensor import tensor
    from ...tv_tensors import Image
    if isinstance(inpt, Image):
        return inpt
    if isinstance(inpt, Tensor):
        return Image._from(inpt if inpt.ndim >= 3 else inpt.reshape(1, *inpt.shape))
    if isinstance(inpt, np.ndarray):
        a = inpt if inpt.ndim == 3 else inpt[:, :, None]
        return Image._from(tensor(np.ascontiguousarray(a.transpose(2, 0, 1))))
    if I.is_pil(inpt):
        return Image._from(pil_to_tensor(inpt))
    raise TypeError(f"to_image: expected a PIL image, a NumPy array (H, W[, C]) or a tensor, got {type(inpt).__name__}")


def to_dtype(inpt, dtype="float32", scale: bool = False):
    """A tensor image converted to dtype (v2.functional.to_dtype); scale=True also rescales
    between the integer and float value ranges (uint8 255 is float 1.0)."""
    if not isinstance(inpt, Tensor):
        raise TypeError(f"to_dtype: expected a tensor, got {type(inpt).__name__}\n  fix: to_dtype(to_image(img), ...)")
    return convert_image_dtype(inpt, dtype) if scale else inpt.to(dtype)


def get_size(inpt) -> List[int]:
    """[height, width] (v2.functional.get_size): a BoundingBoxes' canvas size."""
    from ...tv_tensors import BoundingBoxes
    if isinstance(inpt, BoundingBoxes):
        return list(inpt.canvas_size)
    return list(I.dimensions(inpt)[1:])


def get_num_channels(inpt) -> int:
    """The number of channels (v2.functional.get_num_channels)."""
    return I.dimensions(inpt)[0]


def grayscale_to_rgb(inpt):
    """A one-channel image repeated to three channels; three or more pass as they are (v2.RGB)."""
    if I.is_pil(inpt):
        return inpt.convert(mode="RGB")
    if inpt.shape[-3] >= 3:
        return inpt
    return inpt.repeat(*([1] * (inpt.ndim - 3)), 3, 1, 1)


def permute_channels(inpt, permutation: List[int]):
    """The channels of the image reordered: output channel i is input channel permutation[i]."""
    if I.is_pil(inpt):
        return to_pil_image(permute_channels(pil_to_tensor(inpt), permutation), mode=inpt.mode)
    c = inpt.shape[-3]
    if len(permutation) != c:
        raise ValueError(f"permute_channels: length of permutation does not match number of channels: "
                         f"{len(permutation)} != {c}\n  fix: a permutation of range({c})")
    return inpt[..., list(permutation), :, :]


def gaussian_noise(inpt: Any, mean: float = 0.0, sigma: float = 0.1, clip: bool = True):
    """The image plus Gaussian noise N(mean, sigma^2) (v2.functional.gaussian_noise): float images
    clamped to [0, 1] with clip, uint8 ones with the noise scaled by 255 and truncated to integers,
    clamped to [0, 255]."""
    import glassgrad as gg
    if sigma < 0:
        raise ValueError(f"gaussian_noise: sigma shouldn't be negative, got {sigma}")
    if not isinstance(inpt, Tensor):
        raise TypeError(f"gaussian_noise: expected a tensor image, got {type(inpt).__name__}\n  fix: "
                        "v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.GaussianNoise()])")
    standard: Any = gg.randn_like(inpt, dtype=inpt.dtype if inpt.is_floating_point() else gg.float32)
    if inpt.is_floating_point():
        out = inpt + (mean + standard * sigma)
        return out.clamp(0, 1) if clip else out
    if inpt.dtype == gg.uint8:
        noise = (mean * 255 + standard * (sigma * 255)).to(gg.int16)
        out = inpt.to(gg.int16) + noise
        return (out.clamp(0, 255) if clip else out).to(gg.uint8)
    raise ValueError(f"gaussian_noise: the image must be uint8 or floating point, got {inpt.dtype}")


def jpeg(image, quality: int):
    """The image encoded as JPEG at `quality` (1-100) and decoded again (v2.functional.jpeg;
    Pillow's encoder): uint8 tensor images (..., C, H, W) with 1 or 3 channels, or PIL images."""
    Image = I.require_pil()
    if not 1 <= int(quality) <= 100:
        raise ValueError(f"jpeg: quality must be an integer from 1 to 100, got {quality}")
    if I.is_pil(image):
        buf = _io.BytesIO()
        image.save(buf, format="JPEG", quality=int(quality))
        return Image.open(_io.BytesIO(buf.getvalue())).convert(image.mode)
    import glassgrad as gg
    if image.dtype != gg.uint8:
        raise TypeError(f"jpeg: the image must be uint8, got {image.dtype}\n  fix: "
                        "v2.ToDtype(torch.uint8, scale=True) before JPEG")
    a = I.chw_array(image)
    if a.shape[-3] not in (1, 3):
        raise ValueError(f"jpeg: the image must have 1 or 3 channels, got {a.shape[-3]}")
    flat = a.reshape((-1,) + a.shape[-3:])

    def one(p: np.ndarray) -> np.ndarray:
        back = np.asarray(jpeg(Image.fromarray(p[0] if p.shape[0] == 1 else p.transpose(1, 2, 0)), quality))
        return back[None] if back.ndim == 2 else back.transpose(2, 0, 1)
    out = np.stack([one(p) for p in flat]) if len(flat) else flat
    return I.like(np.ascontiguousarray(out.reshape(a.shape)), image)



def _v2_resizing(fn):
    """fn under v2_kernels(): v2 resizes a uint8 tensor image in uint8 (../functional.py)."""
    @functools.wraps(fn)
    def resizing(*args, **kwargs):
        with v2_kernels():
            return fn(*args, **kwargs)
    return resizing


resize, resized_crop = _v2_resizing(resize), _v2_resizing(resized_crop)

# torchvision's image kernels: the same functions under their `_image` names.
adjust_brightness_image, adjust_contrast_image, adjust_gamma_image = adjust_brightness, adjust_contrast, adjust_gamma
adjust_hue_image, adjust_saturation_image, adjust_sharpness_image = adjust_hue, adjust_saturation, adjust_sharpness
affine_image, autocontrast_image, center_crop_image, crop_image = affine, autocontrast, center_crop, crop
elastic_image, equalize_image, erase_image, five_crop_image = elastic, equalize, erase, five_crop
gaussian_blur_image, gaussian_noise_image, get_dimensions_image = gaussian_blur, gaussian_noise, get_dimensions
get_num_channels_image, get_size_image, grayscale_to_rgb_image = get_num_channels, get_size, grayscale_to_rgb
horizontal_flip_image, invert_image, jpeg_image, normalize_image = horizontal_flip, invert, jpeg, normalize
pad_image, permute_channels_image, perspective_image, posterize_image = pad, permute_channels, perspective, posterize
resize_image, resized_crop_image, rgb_to_grayscale_image, rotate_image = resize, resized_crop, rgb_to_grayscale, rotate
solarize_image, ten_crop_image, to_dtype_image, vertical_flip_image = solarize, ten_crop, to_dtype, vertical_flip

# tv_tensors: the geometric functions also move a Mask or BoundingBoxes (_box_transforms.py).
from ._box_transforms import (affine_bounding_boxes, center_crop_bounding_boxes, clamp_bounding_boxes,  # noqa: E402
                              convert_bounding_box_format, crop_bounding_boxes, dispatching,
                              horizontal_flip_bounding_boxes, pad_bounding_boxes, resize_bounding_boxes,
                              resized_crop_bounding_boxes, rotate_bounding_boxes, vertical_flip_bounding_boxes)

affine, center_crop, crop, elastic = dispatching(affine), dispatching(center_crop), dispatching(crop), dispatching(elastic)
hflip, pad, perspective, resize = dispatching(hflip), dispatching(pad), dispatching(perspective), dispatching(resize)
resized_crop, rotate, vflip = dispatching(resized_crop), dispatching(rotate), dispatching(vflip)
horizontal_flip, vertical_flip = hflip, vflip
__all__ += ["affine_bounding_boxes", "center_crop_bounding_boxes", "clamp_bounding_boxes", "convert_bounding_box_format",
            "crop_bounding_boxes", "horizontal_flip_bounding_boxes", "pad_bounding_boxes", "resize_bounding_boxes",
            "resized_crop_bounding_boxes", "rotate_bounding_boxes", "vertical_flip_bounding_boxes"]
