"""glassgrad.vision.transforms.v2: torchvision.transforms.v2's names (docs/data-loading.md).
ToImage (a uint8 tensor image, channels first), ToDtype (scale=True: uint8 to float in [0, 1], as
ConvertImageDtype), ToPureTensor and Identity are v2's own; the v1 transforms come under their v2
names (_v1.py). Every transform takes one input or several, as v2's do: `transform(image, label)`
or a tuple, list or dict transforms the images by torchvision's rule (every PIL image; else the
first plain tensor, the rest passed through) with one random choice for all of them, and passes
everything else (labels, numbers) through. v2.Transform is the base class users subclass
(transform() / make_params(), _transform.py); the transforms v2 adds (MixUp, CutMix, RGB, JPEG,
ElasticTransform, ...) are Transform subclasses (_extra.py, _mix.py), and v2.functional holds
v1's functions and v2's. Boxes, masks and videos (tv_tensors) are not there."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .... import _C
from ...._tensor import Tensor
from .. import _image
from .. import functional as F
from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode
from ..transforms import Compose as _Compose
from . import functional
from ._extra import (JPEG, RGB, ElasticTransform, GaussianNoise, LinearTransformation, RandomChannelPermutation,
                     RandomPhotometricDistort, RandomResize, RandomShortestSize, RandomZoomOut, ScaleJitter)
from ._mix import CutMix, MixUp
from ._transform import Transform, apply_shared
from ._v1 import (AugMix, AutoAugment, CenterCrop, ColorJitter, ConvertImageDtype, FiveCrop, GaussianBlur, Grayscale,
                  Lambda, Normalize, Pad, PILToTensor, RandAugment, RandomAdjustSharpness, RandomAffine, RandomApply,
                  RandomAutocontrast, RandomChoice, RandomCrop, RandomEqualize, RandomErasing, RandomGrayscale,
                  RandomHorizontalFlip, RandomInvert, RandomOrder, RandomPerspective, RandomPosterize,
                  RandomResizedCrop, RandomRotation, RandomSolarize, RandomVerticalFlip, Resize, TenCrop, ToPILImage,
                  ToTensor, TrivialAugmentWide)

__all__ = ["AugMix", "AutoAugment", "AutoAugmentPolicy", "CenterCrop", "ColorJitter", "Compose", "ConvertImageDtype",
           "FiveCrop", "GaussianBlur", "Grayscale", "Identity", "InterpolationMode", "Lambda", "Normalize", "Pad",
           "PILToTensor", "RandAugment", "RandomAdjustSharpness", "RandomAffine", "RandomApply", "RandomAutocontrast",
           "RandomChoice", "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip",
           "RandomInvert", "RandomOrder", "RandomPosterize", "RandomResizedCrop", "RandomRotation", "RandomSolarize",
           "RandomVerticalFlip", "Resize", "TenCrop", "ToDtype", "ToImage", "ToPILImage", "ToPureTensor", "ToTensor",
           "TrivialAugmentWide", "CutMix", "ElasticTransform", "GaussianNoise", "JPEG", "LinearTransformation", "MixUp",
           "RGB", "RandomChannelPermutation", "RandomPerspective", "RandomPhotometricDistort", "RandomResize",
           "RandomShortestSize", "RandomZoomOut", "ScaleJitter", "Transform", "functional"]


class Compose(_Compose):
    """Applies the transforms in order to the image(s) of the input(s), as v2.Compose."""

    def __init__(self, transforms: Sequence[Callable]):
        if not isinstance(transforms, Sequence) or not transforms:
            raise TypeError("v2.Compose: transforms must be a non-empty sequence of callables\n"
                            "  fix: v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])")
        super().__init__(transforms)

    def __call__(self, *inputs):
        return apply_shared(super().__call__, inputs)


class _V2:
    def __call__(self, *inputs):
        return apply_shared(self.forward, inputs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToImage(_V2):
    """A PIL image, a NumPy array (H, W[, C]) or a tensor as a tensor image (C, H, W) of its own
    dtype, unscaled (v2.ToImage: uint8 for the usual pictures)."""

    def forward(self, pic):
        if isinstance(pic, Tensor):
            return pic if pic.ndim >= 3 else pic.reshape(1, *pic.shape)
        if isinstance(pic, np.ndarray):
            a = pic if pic.ndim == 3 else pic[:, :, None]
            from ...._tensor import tensor
            return tensor(np.ascontiguousarray(a.transpose(2, 0, 1)))
        return F.pil_to_tensor(pic)


class ToDtype(_V2):
    """A tensor image converted to dtype (v2.ToDtype); scale=True also rescales values between
    integer and float ranges (uint8 255 is float 1.0), as ConvertImageDtype. PIL images pass."""

    def __init__(self, dtype, scale: bool = False):
        if isinstance(dtype, dict):
            raise _C.UnsupportedError("v2.ToDtype: a dict of dtypes per tv_tensor type is not supported (glassgrad "
                                      "has no tv_tensors)\n  fix: v2.ToDtype(torch.float32, scale=True)")
        self.dtype, self.scale = dtype, scale
        self._convert = ConvertImageDtype(dtype)

    def forward(self, x):
        if not isinstance(x, Tensor):
            return x
        return self._convert(x) if self.scale else x.to(self.dtype)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scale={self.scale})"


class ToPureTensor(_V2):
    """v2.ToPureTensor: glassgrad's tensor images are plain tensors already."""

    def forward(self, x):
        return x


class Identity(_V2):
    """v2.Identity: returns its input(s)."""

    def __call__(self, *inputs):
        return inputs[0] if len(inputs) == 1 else inputs
