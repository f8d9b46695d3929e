"""The three kinds of image the transforms take, and how they are worked on:

    PIL image          worked on with PIL's own operations (as torchvision does)
    NumPy array        an image before ToTensor: (H, W) or (H, W, C), any dtype (as ToTensor reads it)
    glassgrad Tensor   a tensor image (..., C, H, W): its values are read as a NumPy array, the result
                       goes back into a tensor of the same dtype on the same device

Inside a Compose, a tensor image passes from one of glassgrad's transforms to the next as a
`Chw` (the NumPy array it would hold) and becomes a tensor once, when the chain ends or a
transform of the user's needs it: the same values, without a tensor per step."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ..._tensor import Tensor

try:
    from PIL import Image
except ImportError:  # pragma: no cover - pillow is in the "vision" extra
    Image = None


class Chw:
    """A tensor image that is not a glassgrad Tensor yet: array (..., C, H, W) and its device."""

    __slots__ = ("array", "device")

    def __init__(self, array: np.ndarray, device: str = "cpu"):
        self.array, self.device = array, device

    def tensor(self) -> Tensor:
        """The tensor: on the CPU one that makes its runtime value only when used as a tensor
        (a DataLoader's default_collate stacks the arrays directly; utils/data/_utils/array_tensor.py)."""
        a = self.array
        if self.device == "cpu":
            from ...utils.data._utils.array_tensor import host_tensor
            own = a.base is None and a.flags.c_contiguous and a.flags.writeable
            return host_tensor(a if own else np.array(a, order="C"))
        from ...utils.data._utils.pin_memory import new_tensor
        return new_tensor(np.ascontiguousarray(a), self.device)


def is_pil(img) -> bool:
    return Image is not None and isinstance(img, Image.Image)


def is_tensor_like(img) -> bool:
    return isinstance(img, (Tensor, Chw))


def chw_array(img) -> np.ndarray:
    """The values of a tensor image (Tensor or Chw) as a NumPy array (..., C, H, W)."""
    return img.array if isinstance(img, Chw) else img.numpy(force=True)


def like(array: np.ndarray, img):
    """`array` as the same kind of tensor image as `img` (Chw stays Chw; Tensor: a new tensor
    on img's device)."""
    if isinstance(img, Chw):
        return Chw(array, img.device)
    return Chw(array, str(img.device)).tensor()


def require_pil():
    if Image is None:  # pragma: no cover
        raise ImportError("glassgrad.vision needs Pillow for PIL images\n  fix: python3 -m pip install pillow "
                          "(or pip install glassgrad[vision])")
    return Image


def dimensions(img) -> Tuple[int, int, int]:
    """(channels, height, width) of any kind of image."""
    if is_pil(img):
        return len(img.getbands()), img.height, img.width
    if isinstance(img, np.ndarray):
        if img.ndim == 2:
            return 1, img.shape[0], img.shape[1]
        if img.ndim == 3:
            return img.shape[2], img.shape[0], img.shape[1]
        raise ValueError(f"a NumPy image is (H, W) or (H, W, C), got shape {list(img.shape)}")
    if is_tensor_like(img):
        shape = img.array.shape if isinstance(img, Chw) else tuple(img.shape)
        if len(shape) < 2:
            raise TypeError(f"Tensor is not a torch image: a tensor image is (..., C, H, W), got shape {list(shape)}")
        return (1 if len(shape) == 2 else shape[-3]), shape[-2], shape[-1]
    raise TypeError(f"Unexpected type {type(img)}: transforms take a PIL image, a NumPy array (H, W[, C]) or a "
                    f"glassgrad Tensor (..., C, H, W)")


def hwc_to_chw(a: np.ndarray) -> np.ndarray:
    return (a[None] if a.ndim == 2 else a.transpose(2, 0, 1))


def chw_to_hwc(a: np.ndarray, two_d: bool) -> np.ndarray:
    return a[0] if two_d else a.transpose(1, 2, 0)


def max_value(dtype: np.dtype) -> float:
    """The largest value of an image of this dtype: 1.0 for floats, the type's maximum else."""
    if dtype.kind == "f":
        return 1.0
    if dtype == np.bool_:
        return 1.0
    return float(np.iinfo(dtype).max)


def check_float(array: np.ndarray, what: str) -> None:
    if array.dtype.kind != "f":
        raise TypeError(f"Input tensor should be a float tensor. Got {array.dtype} ({what})")


def device_of(img) -> Optional[str]:
    return img.device if isinstance(img, Chw) else (str(img.device) if isinstance(img, Tensor) else None)


def linspace(start: float, end: float, steps: int, dtype=np.float32) -> np.ndarray:
    """torch.linspace's values in `dtype`: start + i * step for the first half, end - (steps - 1
    - i) * step for the second, step = (end - start) / (steps - 1) in dtype, each value rounded
    once (PyTorch's CPU kernel fuses the multiply and the add). np.linspace differs in the last
    bit, which moves magnitudes and sampling positions off torchvision's."""
    dt = np.dtype(dtype)
    start_, end_ = dt.type(start), dt.type(end)
    if steps == 1:
        return np.array([start_], dt)
    step = np.float64((end_ - start_) / dt.type(steps - 1))
    i = np.arange(steps)
    out = np.where(i < steps // 2, np.float64(start_) + step * i, np.float64(end_) - step * (steps - i - 1))
    return out.astype(dt)
