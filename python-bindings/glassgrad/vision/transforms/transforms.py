"""torchvision.transforms' classes with its names, arguments, defaults, reprs and random
choices (drawn from glassgrad's generator: glassgrad.manual_seed repeats them, and each DataLoader
worker has its own seed). They take PIL images, NumPy arrays (H, W[, C]) and glassgrad Tensors
(..., C, H, W), as functional.py describes."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Callable, Optional, Sequence

import numpy as np

from ... import _random
from ...nn.module import Module
from . import _image as I
from . import functional as F
from ._image import Chw
from .functional import InterpolationMode

__all__ = ["Compose", "ToTensor", "PILToTensor", "ToPILImage", "Normalize", "Resize", "CenterCrop", "Pad", "Lambda",
           "RandomApply", "RandomChoice", "RandomOrder", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
           "RandomResizedCrop", "ColorJitter", "Grayscale", "RandomGrayscale", "InterpolationMode"]


def _rng() -> np.random.Generator:
    return _random.generator()


def _uniform(low: float, high: float) -> float:
    return float(low + (high - low) * _rng().random())


def _setup_size(size, error_msg: str):
    """torchvision's: (n, n) for a number or a one-element sequence, a two-element sequence as
    given (CenterCrop([4, 5]).size is the list; CenterCrop(4).size and RandomResizedCrop(8).size
    are tuples)."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


class _ImageCall:
    """A transform: forward(img) does the work; calling it is forward. Internally (inside a
    Compose) a tensor image may be a Chw; _chw_aware says the transform accepts one. ToTensor,
    PILToTensor and ToPILImage are this alone (plain classes in torchvision too)."""

    _chw_aware = True

    def __call__(self, img):
        if isinstance(img, Chw):
            return self.forward(img)
        out = self.forward(img)
        return out.tensor() if isinstance(out, Chw) else out

    def forward(self, img):  # pragma: no cover - every subclass defines it
        raise NotImplementedError


class ModuleMade(Module):
    """An nn.Module whose Module.__init__ runs in __new__, so subclasses written as plain
    classes (no super().__init__() call) are whole modules."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        Module.__init__(self)
        return self


class _Transform(_ImageCall, ModuleMade):
    """A transform that is an nn.Module, as torchvision's are (all but Compose, ToTensor,
    PILToTensor, ToPILImage, Lambda, RandomChoice and RandomOrder; in v2 every one is):
    nn.Sequential(CenterCrop(10), Normalize(...)) and RandomApply(nn.ModuleList([...])) are
    torchvision's documented forms. Calling one is _ImageCall.__call__ (no module hooks)."""


class Compose:
    """Applies the transforms in order. Between glassgrad's own transforms a tensor image stays
    an array and becomes a tensor once (see _image.py)."""

    def __init__(self, transforms: Sequence[Callable]):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = self._step(t, img)
        return img.tensor() if isinstance(img, Chw) else img

    @staticmethod
    def _step(t, img):
        """t(img), a tensor image kept a Chw for the transforms that take one."""
        if getattr(t, "_chw_aware", False):
            return t.forward(img) if isinstance(t, _ImageCall) else t(img)
        return t(img.tensor() if isinstance(img, Chw) else img)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + "("] + [f"    {t}" for t in self.transforms] + [")"]
        return "\n".join(lines)


class ToTensor(_ImageCall):
    """A PIL image or NumPy array (H, W[, C]) as a float32 tensor (C, H, W) in [0, 1] (uint8
    images are divided by 255; other dtypes keep their values)."""

    def forward(self, pic):
        return Chw(F._to_chw_array(pic))

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor(_ImageCall):
    """A PIL image as a tensor (C, H, W) of its dtype, unscaled."""

    def forward(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ToPILImage(_ImageCall):
    """A tensor (C, H, W) or NumPy array (H, W[, C]) as a PIL image (see functional.to_pil_image)."""

    def __init__(self, mode: Optional[str] = None):
        self.mode = mode

    def forward(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()" if self.mode is None else f"{self.__class__.__name__}(mode={self.mode})"


class Normalize(_Transform):
    """(x - mean[c]) / std[c] for each channel of a float tensor image."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False):
        self.mean, self.std, self.inplace = mean, std, inplace
        self._by_dtype = {}

    def _constants(self, dtype):
        """mean and std shaped (C, 1, 1) in `dtype`, made once per dtype."""
        c = self._by_dtype.get(dtype)
        if c is None:
            c = self._by_dtype[dtype] = F._normalize_constants(self.mean, self.std, dtype)
        return c

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace, _constants=self._constants)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(_Transform):
    """Resizes to size (h, w), or its smaller edge to an int size keeping the aspect ratio."""

    _size_none_allowed = False  # v2's Resize takes size=None with max_size (the longer edge)

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size: Optional[int] = None,
                 antialias: Optional[bool] = True):
        if size is None and self._size_none_allowed:
            if not isinstance(max_size, int) or isinstance(max_size, bool):
                raise ValueError(f"max_size must be an integer when size is None, but got {max_size} instead.")
        elif not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = F.interpolation_mode(interpolation)
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(_Transform):
    def __init__(self, size):
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(_Transform):
    def __init__(self, padding, fill=0, padding_mode: str = "constant"):
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                             f"tuple")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class Lambda:
    """A user function as a transform."""

    def __init__(self, lambd: Callable):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class RandomApply(_Transform):
    """Applies the transforms (in order) with probability p. `transforms` is a sequence or an
    nn.ModuleList (torchvision's form for scripting)."""

    _chw_aware = False  # the transforms it holds may be any callables: they get what Compose would pass

    def __init__(self, transforms, p: float = 0.5):
        self.transforms, self.p = transforms, p

    def forward(self, img):
        if self.p < _rng().random():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        inner = "\n".join(f"    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}\n{inner}\n)"


class RandomChoice:
    """Applies one of the transforms, picked with probabilities p (uniform by default)."""

    def __init__(self, transforms, p: Optional[Sequence[float]] = None):
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.transforms, self.p = transforms, p

    def __call__(self, *args):
        probs = None if self.p is None else np.asarray(self.p, dtype=np.float64) / float(sum(self.p))
        t = self.transforms[int(_rng().choice(len(self.transforms), p=probs))]
        return t(*args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(transforms={self.transforms}, p={self.p})"


class RandomOrder:
    """Applies the transforms in a random order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for i in _rng().permutation(len(self.transforms)):
            img = self.transforms[int(i)](img)
        return img


def _random_window(h: int, w: int, output_size) -> tuple:
    th, tw = output_size
    if h < th or w < tw:
        raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
    if w == tw and h == th:
        return 0, 0, h, w
    rng = _rng()
    # floor(u * n) with u uniform in [0, 1): a uniform integer in [0, n) (for n far below 2^53)
    return int(rng.random() * (h - th + 1)), int(rng.random() * (w - tw + 1)), th, tw


class RandomCrop(_Transform):
    """Crops a window of `size` at a random place, after padding the borders by `padding` (an
    int, (left/right, top/bottom) or (left, top, right, bottom)); pad_if_needed pads images
    smaller than size."""

    @staticmethod
    def get_params(img, output_size) -> tuple:
        """(top, left, height, width) of a random window of output_size in img."""
        _, h, w = I.dimensions(img)
        return _random_window(h, w, output_size)

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0, padding_mode: str = "constant"):
        self.size = tuple(_setup_size(size, "Please provide only two dimensions (h, w) for size."))
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            ltrb = F._padding_ltrb(self.padding)
            if I.is_pil(img) and self.padding_mode == "constant" and self.fill == 0 and min(ltrb) >= 0 \
                    and not self.pad_if_needed:
                # Padding with zeros then cropping is one crop of the unpadded image: PIL fills
                # what lies outside with zeros. Same random draws, same pixels.
                _, h, w = I.dimensions(img)
                i, j, th, tw = _random_window(h + ltrb[1] + ltrb[3], w + ltrb[0] + ltrb[2], self.size)
                return F.crop(img, i - ltrb[1], j - ltrb[0], th, tw)
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = I.dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(_Transform):
    def __init__(self, p: float = 0.5):
        self.p = p

    def forward(self, img):
        return F.hflip(img) if _rng().random() < self.p else img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(_Transform):
    def __init__(self, p: float = 0.5):
        self.p = p

    def forward(self, img):
        return F.vflip(img) if _rng().random() < self.p else img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomResizedCrop(_Transform):
    """A crop of random area (scale of the image's) and aspect ratio, resized to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True):
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.interpolation = F.interpolation_mode(interpolation)
        self.antialias, self.scale, self.ratio = antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio) -> tuple:
        _, height, width = I.dimensions(img)
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        rng = _rng()
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                i = int(rng.integers(0, height - h + 1))
                j = int(rng.integers(0, width - w + 1))
                return i, j, h, w
        in_ratio = float(width) / float(height)  # fall back to a centre crop
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class ColorJitter(_Transform):
    """Random brightness, contrast, saturation and hue, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        if value[0] == value[1] == center:
            return None
        return tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        fn_idx = _rng().permutation(4)
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return fn_idx, b, c, s, h

    def forward(self, img):
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        for fn in order:
            if fn == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif fn == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif fn == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif fn == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


class Grayscale(_Transform):
    def __init__(self, num_output_channels: int = 1):
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(_Transform):
    def __init__(self, p: float = 0.1):
        self.p = p

    def forward(self, img):
        c = I.dimensions(img)[0]
        return F.rgb_to_grayscale(img, c) if _rng().random() < self.p else img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


