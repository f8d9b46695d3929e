"""v2 transforms torchvision.transforms.v2 has beyond v1's: RGB, RandomChannelPermutation,
RandomPhotometricDistort, GaussianNoise, JPEG, LinearTransformation, RandomZoomOut, RandomResize,
RandomShortestSize, ScaleJitter and ElasticTransform, as Transform subclasses (random choices
drawn once per call from glassgrad's generator, so every image of a sample gets the same; the
formulas are torchvision 0.29's)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from ...._tensor import Tensor
from .. import _image as I
from ..functional import InterpolationMode, interpolation_mode
from ..transforms import _rng, _uniform
from . import _fills
from . import functional as F
from .._elastic import elastic_displacement
from .._linear import check_linear, linear_transform
from ._transform import RandomApplied, Transform, query_size

__all__ = ["ElasticTransform", "GaussianNoise", "JPEG", "LinearTransformation", "RGB", "RandomChannelPermutation",
           "RandomPhotometricDistort", "RandomResize", "RandomShortestSize", "RandomZoomOut", "ScaleJitter"]


class RGB(Transform):
    """v2.RGB: one-channel images repeated to three channels; RGB images unchanged."""

    def transform(self, inpt, params):
        return F.grayscale_to_rgb(inpt)


class RandomChannelPermutation(Transform):
    """v2.RandomChannelPermutation: the channels in a random order (one order per call)."""

    def make_params(self, flat_inputs):
        return dict(permutation=[int(i) for i in _rng().permutation(I.dimensions(flat_inputs[0])[0])])

    def transform(self, inpt, params):
        return F.permute_channels(inpt, params["permutation"])


def _range(value: Any, name: str, center: Optional[float] = 1.0):
    if isinstance(value, (int, float)) and center is not None:
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        return (center - value, center + value)
    if isinstance(value, Sequence) and len(value) == 2:
        return (float(value[0]), float(value[1]))
    raise TypeError(f"{name}={value} should be a sequence of length 2.")


class RandomPhotometricDistort(Transform):
    """v2.RandomPhotometricDistort(brightness=(0.875, 1.125), contrast=(0.5, 1.5),
    saturation=(0.5, 1.5), hue=(-0.05, 0.05), p=0.5) (SSD's): each of brightness, contrast,
    saturation, hue and a channel permutation happens with probability p, contrast before or
    after saturation and hue at even odds."""

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5), hue=(-0.05, 0.05),
                 p: float = 0.5):
        super().__init__()
        self.brightness = _range(brightness, "brightness")
        self.contrast = _range(contrast, "contrast")
        self.hue = _range(hue, "hue", center=None)
        self.saturation = _range(saturation, "saturation")
        self.p = p

    def make_params(self, flat_inputs):
        channels = I.dimensions(flat_inputs[0])[0]
        params: Dict[str, Any] = {}
        for key in ("brightness", "contrast", "saturation", "hue"):
            low, high = getattr(self, key)
            params[key + "_factor"] = _uniform(low, high) if _rng().random() < self.p else None
        params["contrast_before"] = _rng().random() < 0.5
        params["channel_permutation"] = ([int(i) for i in _rng().permutation(channels)] if _rng().random() < self.p
                                         else None)
        return params

    def transform(self, inpt, params):
        if params["brightness_factor"] is not None:
            inpt = F.adjust_brightness(inpt, params["brightness_factor"])
        if params["contrast_factor"] is not None and params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, params["contrast_factor"])
        if params["saturation_factor"] is not None:
            inpt = F.adjust_saturation(inpt, params["saturation_factor"])
        if params["hue_factor"] is not None:
            inpt = F.adjust_hue(inpt, params["hue_factor"])
        if params["contrast_factor"] is not None and not params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, params["contrast_factor"])
        if params["channel_permutation"] is not None:
            inpt = F.permute_channels(inpt, params["channel_permutation"])
        return inpt


class GaussianNoise(Transform):
    """v2.GaussianNoise(mean=0.0, sigma=0.1, clip=True): F.gaussian_noise on tensor images."""

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
        super().__init__()
        self.mean, self.sigma, self.clip = mean, sigma, clip

    def transform(self, inpt, params):
        return F.gaussian_noise(inpt, mean=self.mean, sigma=self.sigma, clip=self.clip)


class JPEG(Transform):
    """v2.JPEG(quality): JPEG compression at a quality drawn from [low, high] (an int: that one)."""

    def __init__(self, quality: Union[int, Sequence[int]]):
        super().__init__()
        if isinstance(quality, int):
            if isinstance(quality, bool):
                raise TypeError("quality can't be bool")
            quality = [quality, quality]
        elif not (isinstance(quality, Sequence) and len(quality) == 2):
            raise TypeError(f"quality should be an int or a sequence of two ints, got {quality}")
        if not (1 <= quality[0] <= quality[1] <= 100 and all(isinstance(q, int) for q in quality)):
            raise ValueError(f"quality must be an integer from 1 to 100, got quality={quality}")
        self.quality = list(quality)

    def make_params(self, flat_inputs):
        return dict(quality=int(_rng().integers(self.quality[0], self.quality[1] + 1)))

    def transform(self, inpt, params):
        return F.jpeg(inpt, quality=params["quality"])


class LinearTransformation(Transform):
    """v2.LinearTransformation(transformation_matrix [D, D], mean_vector [D]): a tensor image of
    C * H * W = D values flattened, minus mean_vector, times the matrix (ZCA whitening)."""

    def __init__(self, transformation_matrix: Tensor, mean_vector: Tensor):
        super().__init__()
        self.transformation_matrix, self.mean_vector = check_linear(transformation_matrix, mean_vector)

    def transform(self, inpt, params):
        return linear_transform(inpt, self.transformation_matrix, self.mean_vector)


class RandomZoomOut(RandomApplied):
    """v2.RandomZoomOut(fill=0, side_range=(1.0, 4.0), p=0.5) (SSD's): the image placed at a random
    spot of a canvas r times its size, r drawn from side_range, the rest `fill`."""

    def __init__(self, fill=0, side_range=(1.0, 4.0), p: float = 0.5) -> None:
        super().__init__(p=p)
        self.fill, self.side_range = fill, side_range
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        r = _uniform(self.side_range[0], self.side_range[1])
        canvas_w, canvas_h = int(w * r), int(h * r)
        rx, ry = _rng().random(2)
        left, top = int((canvas_w - w) * rx), int((canvas_h - h) * ry)
        return dict(padding=[left, top, canvas_w - (left + w), canvas_h - (top + h)])

    def transform(self, inpt, params):
        return F.pad(inpt, params["padding"], fill=_fills.fill_for(self.fill, type(inpt)))


class _Resizing(Transform):
    def __init__(self, interpolation=InterpolationMode.BILINEAR, antialias: Optional[bool] = True) -> None:
        super().__init__()
        self.interpolation, self.antialias = interpolation_mode(interpolation), antialias

    def transform(self, inpt, params):
        return F.resize(inpt, params["size"], interpolation=self.interpolation, antialias=self.antialias)


class RandomResize(_Resizing):
    """v2.RandomResize(min_size, max_size, interpolation=BILINEAR, antialias=True): the smaller
    edge resized to a size drawn from [min_size, max_size)."""

    def __init__(self, min_size: int, max_size: int, interpolation=InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        super().__init__(interpolation, antialias)
        self.min_size, self.max_size = min_size, max_size

    def make_params(self, flat_inputs):
        return dict(size=[int(_rng().integers(self.min_size, self.max_size))])


class RandomShortestSize(_Resizing):
    """v2.RandomShortestSize(min_size, max_size=None, ...): the shorter edge resized to one of
    min_size (drawn), the longer kept at most max_size."""

    def __init__(self, min_size: Union[List[int], int], max_size: Optional[int] = None,
                 interpolation=InterpolationMode.BILINEAR, antialias: Optional[bool] = True):
        super().__init__(interpolation, antialias)
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        r = self.min_size[int(_rng().integers(len(self.min_size)))] / min(h, w)
        if self.max_size is not None:
            r = min(r, self.max_size / max(h, w))
        return dict(size=[int(h * r), int(w * r)])


class ScaleJitter(_Resizing):
    """v2.ScaleJitter(target_size, scale_range=(0.1, 2.0), ...) (Copy-Paste's large scale
    jitter): resized by min(target_size[1] / height, target_size[0] / width) times a scale drawn
    from scale_range, as torchvision's."""

    def __init__(self, target_size, scale_range=(0.1, 2.0), interpolation=InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True):
        super().__init__(interpolation, antialias)
        self.target_size, self.scale_range = target_size, scale_range

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        scale = _uniform(self.scale_range[0], self.scale_range[1])
        r = min(self.target_size[1] / h, self.target_size[0] / w) * scale
        return dict(size=[int(h * r), int(w * r)])


def _pair(value: Any, name: str):
    if isinstance(value, (int, float)):
        return [float(value), float(value)]
    if isinstance(value, Sequence) and len(value) in (1, 2):
        return [float(value[0]), float(value[-1])]
    raise TypeError(f"{name} should be a number or a sequence of one or two numbers, got {value}")


class ElasticTransform(Transform):
    """v2.ElasticTransform(alpha=50.0, sigma=5.0, interpolation=BILINEAR, fill=0): the image
    resampled through a smooth random displacement field (elastic_displacement)."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha, self.sigma = _pair(alpha, "alpha"), _pair(sigma, "sigma")
        self.interpolation, self.fill = interpolation_mode(interpolation), fill

    def make_params(self, flat_inputs):
        return dict(displacement=elastic_displacement(self.alpha, self.sigma, list(query_size(flat_inputs))))

    def transform(self, inpt, params):
        return F.elastic(inpt, params["displacement"], interpolation=self.interpolation,
                         fill=_fills.fill_for(self.fill, type(inpt)))

