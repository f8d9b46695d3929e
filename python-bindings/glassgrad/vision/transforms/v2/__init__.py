"""glassgrad.vision.transforms.v2: torchvision.transforms.v2's names (docs/data-loading.md).
ToImage (a uint8 tensor image, channels first), ToDtype (scale=True: uint8 to float in [0, 1], as
ConvertImageDtype), ToPureTensor and Identity are v2's own; the v1 transforms come under their v2
names (_v1.py). Every transform takes one input or several, as v2's do: `transform(image, label)`
or a tuple, list or dict transforms the images by torchvision's rule (every PIL image; else the
first plain tensor, the rest passed through) with one random choice for all of them, and passes
everything else (labels, numbers) through. v2.Transform is the base class users subclass
(transform() / make_params(), _transform.py); the transforms v2 adds (MixUp, CutMix, RGB, JPEG,
ElasticTransform, ...) are Transform subclasses (_extra.py, _mix.py), and v2.functional holds
v1's functions and v2's. tv_tensors' masks and boxes follow the image's geometry (_transform.py)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .... import _C
from ...._tensor import Tensor
from ... import tv_tensors as tv
from .. import _image
from .. import functional as F
from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode
from ..functional import v2_kernels
from ..transforms import Compose as _Compose
from ..transforms import ModuleMade
from . import functional
from ._box_transforms import ClampBoundingBoxes, ConvertBoundingBoxFormat, RandomIoUCrop, SanitizeBoundingBoxes
from ._extra import (JPEG, RGB, ElasticTransform, GaussianNoise, LinearTransformation, RandomChannelPermutation,
                     RandomPhotometricDistort, RandomResize, RandomShortestSize, RandomZoomOut, ScaleJitter)
from ._lambda import Lambda
from ._mix import CutMix, MixUp
from ._transform import Transform, apply_shared
from ._v1 import (AugMix, AutoAugment, CenterCrop, ColorJitter, ConvertImageDtype, FiveCrop, GaussianBlur, Grayscale,
                  Normalize, Pad, PILToTensor, RandAugment, RandomAdjustSharpness, RandomAffine, RandomApply,
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
           "RandomShortestSize", "RandomZoomOut", "ScaleJitter", "Transform", "functional", "ClampBoundingBoxes",
           "ConvertBoundingBoxFormat", "RandomIoUCrop", "SanitizeBoundingBoxes"]


class Compose(_Compose, ModuleMade):
    """Applies the transforms in order to the image(s) of the input(s), as v2.Compose."""

    def __init__(self, transforms: Sequence[Callable]):
        fix = "  fix: v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])"
        if not isinstance(transforms, Sequence):
            raise TypeError(f"v2.Compose: argument transforms should be a sequence of callables, got "
                            f"{type(transforms).__name__}\n{fix}")
        if not transforms:
            raise ValueError(f"v2.Compose: pass at least one transform (got an empty sequence)\n{fix}")
        super().__init__(transforms)

    def __call__(self, *inputs):
        with v2_kernels():  # v1's Compose calls glassgrad's transforms' forward directly
            return self._compose(*inputs)

    def _compose(self, *inputs):
        from ._transform import apply_flat, flatten, follows
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        if not any(follows(x) for x in flat):
            return apply_flat(self._chain, flat, spec)
        # A sample with masks or boxes goes whole through each transform, as torchvision's
        # Compose: sample-level transforms (SanitizeBoundingBoxes) see the boxes and labels.
        outputs = inputs if len(inputs) > 1 else inputs[0]
        for t in self.transforms:
            outputs = t(*outputs) if len(inputs) > 1 else t(outputs)
        return outputs


    def _chain(self, img):
        """The transforms on one image; it comes out a tv_tensors Image (or Video) when it went
        in as one or a transform made it one (v2.ToImage), unless a later one made it something
        else (ToPureTensor, ToPILImage), as through torchvision's chain of v2 transforms."""
        kind = type(img) if isinstance(img, (tv.Image, tv.Video)) else None
        for t in self.transforms:
            img = self._step(t, img)
            if isinstance(img, (tv.Image, tv.Video)):
                kind = type(img)
            elif isinstance(t, ToPureTensor) or not isinstance(img, (Tensor, _image.Chw)):
                kind = None
        out = img.tensor() if isinstance(img, _image.Chw) else img
        return kind._from(out) if kind is not None and type(out) is Tensor else out


class _V2(ModuleMade):
    def __call__(self, *inputs):
        return apply_shared(self.forward, inputs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToImage(_V2):
    """A PIL image, a NumPy array (H, W[, C]) or a tensor as a tv_tensors.Image (C, H, W) of its
    own dtype, unscaled (v2.ToImage: uint8 for the usual pictures)."""

    def forward(self, pic):
        if isinstance(pic, tv.Image):
            return pic
        if isinstance(pic, Tensor):
            return tv.Image._from(pic if pic.ndim >= 3 else pic.reshape(1, *pic.shape))
        if isinstance(pic, np.ndarray):
            a = pic if pic.ndim == 3 else pic[:, :, None]
            from ...._tensor import tensor
            return tv.Image._from(tensor(np.ascontiguousarray(a.transpose(2, 0, 1))))
        return tv.Image._from(F.pil_to_tensor(pic))


class ToDtype(_V2):
    """A tensor image converted to dtype (v2.ToDtype); scale=True also rescales values between
    integer and float ranges (uint8 255 is float 1.0), as ConvertImageDtype. With one dtype, only
    images and videos (and the sample's plain tensor image) change; a dict gives a dtype per
    tv_tensor type ({tv_tensors.Image: torch.float32, tv_tensors.Mask: torch.int64, "others":
    None}; None leaves that type), and only images and videos are scaled. PIL images pass."""

    def __init__(self, dtype, scale: bool = False):
        self.dtype, self.scale = dtype, scale
        self._convert: dict = {}

    def _dtype_for(self, x):
        if not isinstance(self.dtype, dict):
            return self.dtype
        if type(x) in self.dtype:
            return self.dtype[type(x)]
        if "others" in self.dtype:
            return self.dtype["others"]
        raise ValueError(f"No dtype was specified for type {type(x)}. If you only need to convert the dtype of images "
                         f"or videos, you can just pass e.g. dtype=torch.float32. If you're passing a dict as dtype, "
                         f"you can use \"others\" as a catch-all key e.g. dtype={{tv_tensors.Mask: torch.int64, "
                         f"\"others\": None}} to pass-through the rest of the inputs.")

    def _to(self, x, dtype):
        if dtype is None:
            return x
        image = not isinstance(x, tv.TVTensor) or isinstance(x, (tv.Image, tv.Video))
        if self.scale and image:
            if dtype not in self._convert:
                self._convert[dtype] = ConvertImageDtype(dtype)
            out = self._convert[dtype](x)
        else:
            out = x.to(dtype)
        return type(x)._from(out, **x._meta()) if isinstance(x, tv.TVTensor) else out

    def forward(self, x):
        if not isinstance(x, Tensor):
            return x
        return self._to(x, self._dtype_for(x))

    def __call__(self, *inputs):
        if not isinstance(self.dtype, dict):
            return apply_shared(self.forward, inputs)
        from ._transform import flatten, needs_transform, unflatten
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        picked = needs_transform(flat, (Tensor,))
        return unflatten([self.forward(x) if n or isinstance(x, tv.TVTensor) else x for x, n in zip(flat, picked)],
                         spec)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scale={self.scale})"


class ToPureTensor(_V2):
    """v2.ToPureTensor: every tv_tensor of the sample as a plain Tensor (the same values)."""

    def __call__(self, *inputs):
        from ._transform import flatten, unflatten
        flat, spec = flatten(inputs if len(inputs) > 1 else inputs[0])
        return unflatten([tv._plain(x) if isinstance(x, tv.TVTensor) else x for x in flat], spec)

    def forward(self, x):
        return tv._plain(x) if isinstance(x, tv.TVTensor) else x


class Identity(_V2):
    """v2.Identity: returns its input(s)."""

    def __call__(self, *inputs):
        return inputs[0] if len(inputs) == 1 else inputs
