"""glassgrad.vision.transforms: torchvision.transforms' names (see transforms.py and
functional.py)."""
from . import functional
from .functional import InterpolationMode
from ._augment import (ConvertImageDtype, FiveCrop, GaussianBlur, RandomAdjustSharpness, RandomAffine,
                       RandomAutocontrast, RandomEqualize, RandomErasing, RandomInvert, RandomPosterize, RandomRotation,
                       RandomSolarize, TenCrop)
from ._augmix import AugMix
from ._perspective import RandomPerspective
from ._v1_extra import ElasticTransform, LinearTransformation
from .autoaugment import AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from .transforms import (CenterCrop, ColorJitter, Compose, Grayscale, Lambda, Normalize, Pad, PILToTensor, RandomApply,
                         RandomChoice, RandomCrop, RandomGrayscale, RandomHorizontalFlip, RandomOrder,
                         RandomResizedCrop, RandomVerticalFlip, Resize, ToPILImage, ToTensor)

__all__ = ["CenterCrop", "ColorJitter", "Compose", "Grayscale", "InterpolationMode", "Lambda", "Normalize", "Pad",
           "PILToTensor", "RandomApply", "RandomChoice", "RandomCrop", "RandomGrayscale", "RandomHorizontalFlip",
           "RandomOrder", "RandomResizedCrop", "RandomVerticalFlip", "Resize", "ToPILImage", "ToTensor", "functional",
           "ConvertImageDtype", "FiveCrop", "GaussianBlur", "RandomAdjustSharpness", "RandomAffine", "RandomAutocontrast",
           "RandomEqualize", "RandomErasing", "RandomInvert", "RandomPosterize", "RandomRotation", "RandomSolarize",
           "TenCrop", "RandomPerspective", "AugMix", "ElasticTransform", "LinearTransformation", "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide"]
