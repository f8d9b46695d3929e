"""torchvision.transforms' augmentation classes beyond crops, flips and colour jitter:
RandomRotation, RandomAffine, RandomErasing, GaussianBlur, ConvertImageDtype, FiveCrop, TenCrop,
RandomInvert, RandomPosterize, RandomSolarize, RandomAdjustSharpness, RandomAutocontrast and
RandomEqualize, with torchvision's arguments, checks, defaults and reprs. Their random draws come
from glassgrad's generator (transforms.py says why)."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Sequence

import numpy as np

from . import _geometric as G
from . import _image as I
from . import _photometric as P
from .functional import InterpolationMode, interpolation_mode
from .transforms import _rng, _setup_size, _Transform, _uniform

__all__ = ["RandomRotation", "RandomAffine", "RandomErasing", "GaussianBlur", "ConvertImageDtype", "FiveCrop",
           "TenCrop", "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness",
           "RandomAutocontrast", "RandomEqualize"]


def _check_sequence(x, name: str, req_sizes) -> None:
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x, name: str, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence(x, name, req_sizes)
    return [float(d) for d in x]


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _tensor_fill(fill, img):
    """A tensor image's fill: one float per channel (torchvision's forward makes it so)."""
    if I.is_pil(img):
        return fill
    channels = I.dimensions(img)[0]
    return [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in fill]


class RandomRotation(_Transform):
    """Rotates by an angle drawn uniformly from degrees ((min, max), or (-d, d) for a number)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand: bool = False, center=None, fill=0):
        self.interpolation = interpolation_mode(interpolation)
        self.degrees = _setup_angle(degrees, "degrees", (2,))
        if center is not None:
            _check_sequence(center, "center", (2,))
        self.center, self.expand, self.fill = center, expand, _check_fill(fill)

    @staticmethod
    def get_params(degrees) -> float:
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = _tensor_fill(self.fill, img)
        return G.rotate(img, self.get_params(self.degrees), self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, " \
            f"expand={self.expand}"
        s += f", center={self.center}" if self.center is not None else ""
        s += f", fill={self.fill}" if self.fill is not None else ""
        return s + ")"


class RandomAffine(_Transform):
    """A random rotation (degrees), translation (fractions of the width and height), scale and
    shear (degrees: x only for a number or a pair, x and y for four values)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        self.interpolation = interpolation_mode(interpolation)
        self.degrees = _setup_angle(degrees, "degrees", (2,))
        if translate is not None:
            _check_sequence(translate, "translate", (2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _check_sequence(scale, "scale", (2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = _setup_angle(shear, "shear", (2, 4)) if shear is not None else None
        self.fill = _check_fill(fill)
        if center is not None:
            _check_sequence(center, "center", (2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)); img_size is [width, height]."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            translations = (int(round(_uniform(-max_dx, max_dx))), int(round(_uniform(-max_dy, max_dy))))
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = _tensor_fill(self.fill, img)
        _, h, w = I.dimensions(img)
        ret = self.get_params(self.degrees, self.translate, self.scale, self.shear, [w, h])
        return G.affine(img, *ret, interpolation=self.interpolation, fill=fill, center=self.center)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        s += f", translate={self.translate}" if self.translate is not None else ""
        s += f", scale={self.scale}" if self.scale is not None else ""
        s += f", shear={self.shear}" if self.shear is not None else ""
        s += f", interpolation={self.interpolation.value}" if self.interpolation != InterpolationMode.NEAREST else ""
        s += f", fill={self.fill}" if self.fill != 0 else ""
        s += f", center={self.center}" if self.center is not None else ""
        return s + ")"


class RandomErasing(_Transform):
    """With probability p, erases a random rectangle of a tensor image (area a fraction in
    scale, aspect ratio in ratio) with value: a number, one per channel, or "random" (normal
    noise). Tensor images only, as torchvision's (put it after ToTensor)."""

    def __init__(self, p: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace: bool = False):
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """(i, j, h, w, v): the window and the values to write (the image itself when no window
        fits in 10 tries)."""
        c, img_h, img_w = I.dimensions(img)
        area = img_h * img_w
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        rng = _rng()
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = rng.standard_normal((c, h, w)).astype(np.float32)
            else:
                v = np.asarray(value, np.float32)[:, None, None]
            i = int(rng.integers(0, img_h - h + 1))
            j = int(rng.integers(0, img_w - w + 1))
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if not I.is_tensor_like(img):
            raise TypeError(f"img should be Tensor Image. Got {type(img)}\n  fix: put RandomErasing after "
                            f"ToTensor() in the Compose")
        if _rng().random() >= self.p:
            return img
        if isinstance(self.value, (int, float)):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = [float(v) for v in self.value]
        channels = I.dimensions(img)[0]
        if value is not None and len(value) not in (1, channels):
            raise ValueError(f"If value is a sequence, it should have either a single value or {channels} (number "
                             f"of input channels)")
        i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
        if v is img:
            v = I.chw_array(img)
        return P.erase(img, i, j, h, w, v, self.inplace)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, "
                f"inplace={self.inplace})")


class GaussianBlur(_Transform):
    """Blurs with kernel_size and a sigma drawn uniformly from sigma ((min, max) or a number)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        self.kernel_size = tuple(_setup_size(kernel_size, "Kernel size should be a tuple/list of two integers"))
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return P.gaussian_blur(img, list(self.kernel_size), [sigma, sigma])

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class ConvertImageDtype(_Transform):
    """A tensor image in dtype, its values rescaled (functional.convert_image_dtype)."""

    def __init__(self, dtype) -> None:
        self.dtype = dtype

    def forward(self, image):
        return P.convert_image_dtype(image, self.dtype)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class FiveCrop(_Transform):
    """The four corner crops and the centre crop of size, as a tuple."""

    _chw_aware = False

    def __init__(self, size):
        self.size = tuple(_setup_size(size, "Please provide only two dimensions (h, w) for size."))

    def __call__(self, img):
        return tuple(c.tensor() if isinstance(c, I.Chw) else c for c in self.forward(img))

    def forward(self, img):
        return G.five_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(FiveCrop):
    """FiveCrop of the image and of its mirror (left-right, or top-bottom with vertical_flip)."""

    def __init__(self, size, vertical_flip: bool = False):
        super().__init__(size)
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return G.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class _RandomApplied(_Transform):
    """With probability p, fn(img, *args); else img unchanged."""

    def _maybe(self, img, fn, *args):
        return fn(img, *args) if _rng().random() < self.p else img


class RandomInvert(_RandomApplied):
    def __init__(self, p: float = 0.5):
        self.p = p

    def forward(self, img):
        return self._maybe(img, P.invert)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomPosterize(_RandomApplied):
    def __init__(self, bits: int, p: float = 0.5):
        self.bits, self.p = bits, p

    def forward(self, img):
        return self._maybe(img, P.posterize, self.bits)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(bits={self.bits},p={self.p})"


class RandomSolarize(_RandomApplied):
    def __init__(self, threshold: float, p: float = 0.5):
        self.threshold, self.p = threshold, p

    def forward(self, img):
        return self._maybe(img, P.solarize, self.threshold)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(threshold={self.threshold},p={self.p})"


class RandomAdjustSharpness(_RandomApplied):
    def __init__(self, sharpness_factor: float, p: float = 0.5):
        self.sharpness_factor, self.p = sharpness_factor, p

    def forward(self, img):
        return self._maybe(img, P.adjust_sharpness, self.sharpness_factor)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(sharpness_factor={self.sharpness_factor},p={self.p})"


class RandomAutocontrast(_RandomApplied):
    def __init__(self, p: float = 0.5):
        self.p = p

    def forward(self, img):
        return self._maybe(img, P.autocontrast)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomEqualize(_RandomApplied):
    def __init__(self, p: float = 0.5):
        self.p = p

    def forward(self, img):
        return self._maybe(img, P.equalize)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"
