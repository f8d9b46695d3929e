"""The v1 transforms under their v2 names, taking v2's inputs: one image is transformed as v1
does (the same object, the same numbers); a sample (several inputs, or a tuple, list or dict)
has its images picked by torchvision's rule (_transform.needs_transform) and transformed with
one random choice for all of them (_transform.apply_shared), the rest passed through."""
from __future__ import annotations

import inspect

from .. import _augment, _augmix, _perspective, autoaugment
from .... import nn
from .. import transforms as v1
from ..transforms import ModuleMade
from ..functional import v2_kernels
from . import _fills
from ._transform import apply_shared, follows, rewrapped

__all__ = ["AugMix", "AutoAugment", "CenterCrop", "ColorJitter", "ConvertImageDtype", "FiveCrop", "GaussianBlur",
           "Grayscale", "Normalize", "PILToTensor", "Pad", "RandAugment", "RandomAdjustSharpness",
           "RandomAffine", "RandomApply", "RandomAutocontrast", "RandomChoice", "RandomCrop", "RandomEqualize",
           "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip", "RandomInvert", "RandomOrder",
           "RandomPerspective", "RandomPosterize", "RandomResizedCrop", "RandomRotation", "RandomSolarize",
           "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage", "ToTensor", "TrivialAugmentWide"]


def _taking_samples(cls: type) -> type:
    """cls taking v2's inputs; a tv_tensors Image (or Video) comes out as one (v2's kernels
    rewrap)."""
    init = cls.__init__  # type: ignore[misc]  # the v1 class's own constructor, which __init__ below wraps
    signature = inspect.signature(init)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        fill = bound.arguments.get("fill")
        if not isinstance(fill, dict):
            return init(self, *args, **kwargs)
        # v2's fill per input type: v1 checks a plain fill; the dict is resolved per input.
        _fills.check(fill, cls.__name__)
        bound.arguments["fill"] = 0
        init(*bound.args, **bound.kwargs)
        self.fill = fill

    def one(self, image):
        fills = getattr(self, "fill", None)
        if not isinstance(fills, dict):
            return cls.__call__(self, image)
        self.fill = _fills.fill_for(fills, type(image))
        try:
            return cls.__call__(self, image)
        finally:
            self.fill = fills

    def __call__(self, *inputs):
        with v2_kernels(), _fills.active(getattr(self, "fill", None)):
            if len(inputs) == 1 and not isinstance(inputs[0], (tuple, list, dict)) and not follows(inputs[0]):
                out = one(self, inputs[0])
                return rewrapped(inputs[0], out)
            return apply_shared(lambda image: one(self, image), inputs)
    members: dict = {"__call__": __call__, "__doc__": cls.__doc__, "__module__": __name__,
                     "__qualname__": cls.__name__}
    if "fill" in signature.parameters:
        members["__init__"] = __init__
    if cls is v1.Resize:
        members["_size_none_allowed"] = True
    # Every v2 transform is an nn.Module (v1's Compose, ToTensor, ... are plain classes).
    bases = (cls,) if issubclass(cls, nn.Module) else (cls, ModuleMade)
    return type(cls.__name__, bases, members)


AugMix = _taking_samples(_augmix.AugMix)
AutoAugment = _taking_samples(autoaugment.AutoAugment)
RandAugment = _taking_samples(autoaugment.RandAugment)
TrivialAugmentWide = _taking_samples(autoaugment.TrivialAugmentWide)
RandomPerspective = _taking_samples(_perspective.RandomPerspective)
ConvertImageDtype = _taking_samples(_augment.ConvertImageDtype)
FiveCrop = _taking_samples(_augment.FiveCrop)
TenCrop = _taking_samples(_augment.TenCrop)
GaussianBlur = _taking_samples(_augment.GaussianBlur)
RandomAdjustSharpness = _taking_samples(_augment.RandomAdjustSharpness)
RandomAffine = _taking_samples(_augment.RandomAffine)
RandomAutocontrast = _taking_samples(_augment.RandomAutocontrast)
RandomEqualize = _taking_samples(_augment.RandomEqualize)
RandomErasing = _taking_samples(_augment.RandomErasing)
RandomInvert = _taking_samples(_augment.RandomInvert)
RandomPosterize = _taking_samples(_augment.RandomPosterize)
RandomRotation = _taking_samples(_augment.RandomRotation)
RandomSolarize = _taking_samples(_augment.RandomSolarize)
CenterCrop = _taking_samples(v1.CenterCrop)
ColorJitter = _taking_samples(v1.ColorJitter)
Grayscale = _taking_samples(v1.Grayscale)
Normalize = _taking_samples(v1.Normalize)
Pad = _taking_samples(v1.Pad)
PILToTensor = _taking_samples(v1.PILToTensor)
RandomApply = _taking_samples(v1.RandomApply)
RandomChoice = _taking_samples(v1.RandomChoice)
RandomCrop = _taking_samples(v1.RandomCrop)
RandomGrayscale = _taking_samples(v1.RandomGrayscale)
RandomHorizontalFlip = _taking_samples(v1.RandomHorizontalFlip)
RandomOrder = _taking_samples(v1.RandomOrder)
RandomResizedCrop = _taking_samples(v1.RandomResizedCrop)
RandomVerticalFlip = _taking_samples(v1.RandomVerticalFlip)
Resize = _taking_samples(v1.Resize)
ToPILImage = _taking_samples(v1.ToPILImage)
ToTensor = _taking_samples(v1.ToTensor)
