"""torchvision.transforms.autoaugment: AutoAugment (the learned policies of Cubuk et al. 2019 for
ImageNet, CIFAR-10 and SVHN), RandAugment (Cubuk et al. 2020) and TrivialAugmentWide (Müller and
Hutter 2021), with torchvision's operations, magnitude bins, arguments and reprs. The operations
are functional.py's (PIL images through PIL, tensor images by torchvision's formulas); the random
choices come from glassgrad's generator."""
from __future__ import annotations

import math
from enum import Enum
from typing import Dict, List, Optional, Tuple

import numpy as np

from . import _image as I
from . import functional as F
from .functional import InterpolationMode, interpolation_mode
from .transforms import _rng, _Transform

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide"]


def _apply_op(img, op_name: str, magnitude: float, interpolation: InterpolationMode, fill):
    if op_name == "ShearX":  # shear about the top-left corner, as the papers' PIL code
        return F.affine(img, 0.0, [0, 0], 1.0, [math.degrees(math.atan(magnitude)), 0.0], interpolation, fill, [0, 0])
    if op_name == "ShearY":
        return F.affine(img, 0.0, [0, 0], 1.0, [0.0, math.degrees(math.atan(magnitude))], interpolation, fill, [0, 0])
    if op_name == "TranslateX":
        return F.affine(img, 0.0, [int(magnitude), 0], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "TranslateY":
        return F.affine(img, 0.0, [0, int(magnitude)], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation, fill=fill)
    if op_name == "Brightness":
        return F.adjust_brightness(img, 1.0 + magnitude)
    if op_name == "Color":
        return F.adjust_saturation(img, 1.0 + magnitude)
    if op_name == "Contrast":
        return F.adjust_contrast(img, 1.0 + magnitude)
    if op_name == "Sharpness":
        return F.adjust_sharpness(img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _linspace(start: float, end: float, n: int) -> np.ndarray:
    return I.linspace(start, end, n, np.float32)


def _posterize_bits(n: int, top: int) -> np.ndarray:
    return 8 - np.round(np.arange(n, dtype=np.float32) / np.float32((n - 1) / top)).astype(np.int32)


_NONE = np.array(0.0, np.float32)  # an operation without a magnitude


def _space(n: int, height: int, width: int) -> Dict[str, Tuple[np.ndarray, bool]]:
    """AutoAugment's and RandAugment's operations: (magnitude bins, signed)."""
    return {"ShearX": (_linspace(0.0, 0.3, n), True), "ShearY": (_linspace(0.0, 0.3, n), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * width, n), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * height, n), True),
            "Rotate": (_linspace(0.0, 30.0, n), True), "Brightness": (_linspace(0.0, 0.9, n), True),
            "Color": (_linspace(0.0, 0.9, n), True), "Contrast": (_linspace(0.0, 0.9, n), True),
            "Sharpness": (_linspace(0.0, 0.9, n), True), "Posterize": (_posterize_bits(n, 4), False),
            "Solarize": (_linspace(255.0, 0.0, n), False), "AutoContrast": (_NONE, False),
            "Equalize": (_NONE, False)}


def _tensor_fill(fill, img):
    if I.is_pil(img) or fill is None:
        return fill
    channels = I.dimensions(img)[0]
    return [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]


class AutoAugmentPolicy(Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# (operation, probability, magnitude bin) pairs: the published policies.
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))],
}


class AutoAugment(_Transform):
    """One of the policy's 25 sub-policies, chosen at random: two operations, each applied with
    its probability, at its magnitude (signed at random). uint8 images (PIL or tensor)."""

    _chw_aware = False

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
                 interpolation=InterpolationMode.NEAREST, fill: Optional[List[float]] = None) -> None:
        self.policy, self.interpolation, self.fill = policy, interpolation_mode(interpolation), fill
        self.policies = self._get_policies(policy)

    def _get_policies(self, policy: AutoAugmentPolicy):
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return list(_POLICIES[policy])

    def _augmentation_space(self, num_bins: int, image_size: Tuple[int, int]):
        space = _space(num_bins, image_size[0], image_size[1])
        space["Invert"] = (_NONE, False)
        return space

    @staticmethod
    def get_params(transform_num: int):
        """(sub-policy index, the two probabilities drawn, the two signs drawn)."""
        rng = _rng()
        return int(rng.integers(transform_num)), rng.random(2), rng.integers(2, size=2)

    def forward(self, img):
        fill = _tensor_fill(self.fill, img)
        _, height, width = I.dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        space = self._augmentation_space(10, (height, width))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if probs[i] <= p:
                magnitudes, signed = space[op_name]
                magnitude = float(magnitudes[magnitude_id]) if magnitude_id is not None else 0.0
                if signed and signs[i] == 0:
                    magnitude *= -1.0
                img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(_Transform):
    """num_ops operations chosen uniformly, each at bin `magnitude` of num_magnitude_bins (signed
    at random)."""

    _chw_aware = False

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation=InterpolationMode.NEAREST, fill: Optional[List[float]] = None) -> None:
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill = interpolation_mode(interpolation), fill

    def _augmentation_space(self, num_bins: int, image_size: Tuple[int, int]):
        return {"Identity": (_NONE, False), **_space(num_bins, image_size[0], image_size[1])}

    def forward(self, img):
        fill = _tensor_fill(self.fill, img)
        _, height, width = I.dimensions(img)
        space = self._augmentation_space(self.num_magnitude_bins, (height, width))
        names = list(space)
        rng = _rng()
        for _ in range(self.num_ops):
            op_name = names[int(rng.integers(len(names)))]
            magnitudes, signed = space[op_name]
            magnitude = float(magnitudes[self.magnitude]) if magnitudes.ndim > 0 else 0.0
            if signed and rng.integers(2):
                magnitude *= -1.0
            img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
                f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, "
                f"fill={self.fill})")


class TrivialAugmentWide(_Transform):
    """One operation chosen uniformly, at a magnitude chosen uniformly among its bins (the wide
    ranges of the TrivialAugment paper)."""

    _chw_aware = False

    def __init__(self, num_magnitude_bins: int = 31, interpolation=InterpolationMode.NEAREST,
                 fill: Optional[List[float]] = None) -> None:
        self.num_magnitude_bins, self.interpolation, self.fill = num_magnitude_bins, interpolation_mode(interpolation), fill

    def _augmentation_space(self, num_bins: int):
        return {"Identity": (_NONE, False), "ShearX": (_linspace(0.0, 0.99, num_bins), True),
                "ShearY": (_linspace(0.0, 0.99, num_bins), True), "TranslateX": (_linspace(0.0, 32.0, num_bins), True),
                "TranslateY": (_linspace(0.0, 32.0, num_bins), True), "Rotate": (_linspace(0.0, 135.0, num_bins), True),
                "Brightness": (_linspace(0.0, 0.99, num_bins), True), "Color": (_linspace(0.0, 0.99, num_bins), True),
                "Contrast": (_linspace(0.0, 0.99, num_bins), True), "Sharpness": (_linspace(0.0, 0.99, num_bins), True),
                "Posterize": (_posterize_bits(num_bins, 6), False), "Solarize": (_linspace(255.0, 0.0, num_bins), False),
                "AutoContrast": (_NONE, False), "Equalize": (_NONE, False)}

    def forward(self, img):
        fill = _tensor_fill(self.fill, img)
        space = self._augmentation_space(self.num_magnitude_bins)
        names = list(space)
        rng = _rng()
        op_name = names[int(rng.integers(len(names)))]
        magnitudes, signed = space[op_name]
        magnitude = float(magnitudes[int(rng.integers(len(magnitudes)))]) if magnitudes.ndim > 0 else 0.0
        if signed and rng.integers(2):
            magnitude *= -1.0
        return _apply_op(img, op_name, magnitude, self.interpolation, fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
