"""glassgrad.vision.tv_tensors: torchvision.tv_tensors' tensor subclasses, which tell the v2
transforms what a tensor holds (docs/data-loading.md, "Boxes and masks"):

    Image          (..., C, H, W) pixels; a 2-D input gains a channel axis
    Video          (..., T, C, H, W) frames
    Mask           (..., H, W) a segmentation or instance mask: geometric transforms move it as
                   the image (nearest neighbour), colour transforms leave it
    BoundingBoxes  [N, 4] boxes (a 1-D box gains the N axis) in a BoundingBoxFormat, on a canvas
                   of canvas_size = (height, width): geometric transforms move the boxes and
                   change the canvas as they change the image

As in torchvision, an operation on one of them gives a plain Tensor (wrap() puts the result back
in the type of another), except clone(), to(), detach() and requires_grad_(), which keep the type
and the boxes' format and canvas_size."""
from __future__ import annotations

import enum
from typing import Any, Optional, Sequence, Tuple, Type, TypeVar

import numpy as np

from .._tensor import Tensor, _wrap, tensor

__all__ = ["BoundingBoxFormat", "BoundingBoxes", "Image", "Mask", "TVTensor", "Video", "set_return_type", "wrap"]


T = TypeVar("T", bound="TVTensor")


class TVTensor(Tensor):
    """The base class of Image, Video, Mask and BoundingBoxes: a Tensor that says what it holds."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._repr_prefix = f"{cls.__name__}("  # printed as torchvision's: Mask([[...]])

    def __init__(self, *args, **kwargs):  # __new__ made it
        pass

    @classmethod
    def _from(cls: Type[T], t: Tensor, **meta) -> T:
        """t's values (the same tensor, no copy) as a `cls`."""
        out = Tensor.__new__(cls)
        out._h = t._h
        for k, v in meta.items():
            setattr(out, k, v)
        return out

    @staticmethod
    def _as_tensor(data, dtype, device, requires_grad) -> Tensor:
        if isinstance(data, Tensor):
            t = _plain(data)
            if dtype is not None or device is not None:
                t = t.to(device=device if device is not None else t.device, dtype=dtype if dtype is not None else t.dtype)
        else:
            t = tensor(data, dtype=dtype, device=device)
        if requires_grad is not None:
            t = t.detach() if t.requires_grad and not requires_grad else t
            if requires_grad:
                t.requires_grad_(True)
        return t

    def _meta(self) -> dict:
        return {}

    def clone(self, *, memory_format=None) -> "TVTensor":
        return type(self)._from(super().clone(memory_format=memory_format), **self._meta())

    def to(self, *args, **kwargs) -> "TVTensor":
        return type(self)._from(super().to(*args, **kwargs), **self._meta())

    def detach(self) -> "TVTensor":
        return type(self)._from(super().detach(), **self._meta())

    def as_subclass(self, cls):
        return _plain(self) if cls is Tensor else cls._from(self)

    def __reduce__(self):
        return _rebuild, (type(self), _plain(self), self._meta())

    def __deepcopy__(self, memo) -> "TVTensor":
        if id(self) not in memo:
            memo[id(self)] = type(self)._from(Tensor.__deepcopy__(_plain(self), {}), **self._meta())
        return memo[id(self)]

    def _repr_extra(self) -> str:
        return ""

    def __repr__(self) -> str:
        body = Tensor.__repr__(self)
        extra = self._repr_extra()
        return f"{body[:-1]}, {extra})" if extra else body


def _plain(t: Tensor) -> Tensor:
    """The same tensor as a plain Tensor (shares the values)."""
    return t if type(t) is Tensor else _wrap(t._h)


def _rebuild(cls, plain: Tensor, meta: dict) -> TVTensor:
    return cls._from(plain, **meta)


def _from_pil(data):
    from .transforms import functional as F
    return F.pil_to_tensor(data)


def _is_pil(data) -> bool:
    from .transforms import _image as I
    return I.is_pil(data)


class Image(TVTensor):
    """tv_tensors.Image(data, *, dtype=None, device=None, requires_grad=None): pixels (..., C, H, W)
    from a tensor, an array or a PIL image (C, H, W, as pil_to_tensor); a 2-D input is one channel."""

    __slots__ = ()

    def __new__(cls, data, *, dtype=None, device=None, requires_grad: Optional[bool] = None):
        if _is_pil(data):
            data = _from_pil(data)
        t = cls._as_tensor(data, dtype, device, requires_grad)
        if t.ndim < 2:
            raise ValueError(f"tv_tensors.Image: an image has at least 2 dims (H, W), got shape {list(t.shape)}\n"
                             f"  fix: pass a (C, H, W) or (H, W) tensor")
        if t.ndim == 2:
            t = t.reshape(1, *t.shape)
        return cls._from(t)


class Video(TVTensor):
    """tv_tensors.Video(data, *, dtype=None, device=None, requires_grad=None): frames (..., T, C, H, W)."""

    __slots__ = ()

    def __new__(cls, data, *, dtype=None, device=None, requires_grad: Optional[bool] = None):
        t = cls._as_tensor(data, dtype, device, requires_grad)
        if t.ndim < 4:
            raise ValueError(f"tv_tensors.Video: a video has at least 4 dims (T, C, H, W), got shape "
                             f"{list(t.shape)}\n  fix: pass a (T, C, H, W) tensor")
        return cls._from(t)


class Mask(TVTensor):
    """tv_tensors.Mask(data, *, dtype=None, device=None, requires_grad=None): a mask (..., H, W);
    a PIL image gives (1, H, W), as pil_to_tensor."""

    __slots__ = ()

    def __new__(cls, data, *, dtype=None, device=None, requires_grad: Optional[bool] = None):
        if _is_pil(data):
            data = _from_pil(data)
        return cls._from(cls._as_tensor(data, dtype, device, requires_grad))


class BoundingBoxFormat(enum.Enum):
    """How a box's 4 numbers read: XYXY (x1, y1, x2, y2), XYWH (x1, y1, width, height) or CXCYWH
    (centre x, centre y, width, height), in pixels of the canvas."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"


def box_format(fmt, where: str = "BoundingBoxes") -> BoundingBoxFormat:
    """A BoundingBoxFormat from the enum or its name in any case ('xyxy')."""
    if isinstance(fmt, BoundingBoxFormat):
        return fmt
    if isinstance(fmt, str) and fmt.upper() in BoundingBoxFormat.__members__:
        return BoundingBoxFormat[fmt.upper()]
    raise ValueError(f"{where}: format {fmt!r} is not a box format; the formats are "
                     f"{list(BoundingBoxFormat.__members__)}\n  fix: format='XYXY' (x1, y1, x2, y2)")


def clamping(mode, where: str) -> Optional[str]:
    """A box clamping mode: 'soft' (the default), 'hard' (the same for boxes that are not rotated)
    or None (no clamping)."""
    if mode not in ("soft", "hard", None):
        raise ValueError(f"{where}: clamping_mode must be 'soft', 'hard' or None, got {mode!r}")
    return mode


def _canvas(canvas_size, where: str) -> Tuple[int, int]:
    if not isinstance(canvas_size, Sequence) or len(canvas_size) != 2:
        raise ValueError(f"{where}: canvas_size must be (height, width), got {canvas_size!r}\n"
                         f"  fix: canvas_size=image.shape[-2:]")
    return int(canvas_size[0]), int(canvas_size[1])


class BoundingBoxes(TVTensor):
    """tv_tensors.BoundingBoxes(data, *, format, canvas_size, dtype=None, device=None,
    requires_grad=None, clamping_mode='soft'): [N, 4] boxes in `format` (a BoundingBoxFormat or its
    name) on a canvas of canvas_size = (height, width); a single box [4] becomes [1, 4].
    clamping_mode None keeps boxes that leave the canvas (crops, pads, rotations) unclamped."""

    __slots__ = ("format", "canvas_size", "clamping_mode")
    format: BoundingBoxFormat
    canvas_size: Tuple[int, int]
    clamping_mode: Optional[str]

    def __new__(cls, data, *, format, canvas_size, clamping_mode: Optional[str] = "soft", dtype=None, device=None,
                requires_grad: Optional[bool] = None):
        t = cls._as_tensor(data, dtype, device, requires_grad)
        if t.ndim == 1:
            t = t.reshape(1, 4) if t.shape[0] == 4 else t
        if t.ndim != 2 or t.shape[-1] != 4:
            raise ValueError(f"tv_tensors.BoundingBoxes: expected a 1D or 2D tensor of boxes [N, 4], got shape "
                             f"{list(t.shape)}\n  fix: stack the boxes into an [N, 4] tensor")
        return cls._from(t, format=box_format(format), canvas_size=_canvas(canvas_size, "tv_tensors.BoundingBoxes"),
                         clamping_mode=clamping(clamping_mode, "tv_tensors.BoundingBoxes"))

    def _meta(self) -> dict:
        return {"format": self.format, "canvas_size": self.canvas_size,
                "clamping_mode": getattr(self, "clamping_mode", "soft")}

    def _repr_extra(self) -> str:
        return f"format={self.format}, canvas_size={self.canvas_size}, clamping_mode={self.clamping_mode}"


def wrap(wrappee: Tensor, *, like: TVTensor, **kwargs: Any) -> TVTensor:
    """wrappee's values as the type of `like` (tv_tensors.wrap); BoundingBoxes take like's format
    and canvas_size unless given as keywords."""
    if not isinstance(like, TVTensor):
        raise TypeError(f"tv_tensors.wrap: `like` must be a tv_tensor (Image, Video, Mask, BoundingBoxes), got "
                        f"{type(like).__name__}\n  fix: tv_tensors.wrap(output, like=boxes)")
    meta = like._meta()
    for k, v in kwargs.items():
        if k not in meta:
            raise TypeError(f"tv_tensors.wrap: {type(like).__name__} has no metadata {k!r}")
        meta[k] = box_format(v, "tv_tensors.wrap") if k == "format" else v
    if not isinstance(wrappee, Tensor):
        wrappee = tensor(np.asarray(wrappee))
    return type(like)._from(wrappee, **meta)


def set_return_type(return_type: str):
    """tv_tensors.set_return_type: glassgrad's operations on tv_tensors always give plain Tensors
    ('Tensor', torchvision's default); 'TVTensor' is refused with the reason."""
    if str(return_type).lower() == "tensor":
        return None
    from .. import _C
    raise _C.UnsupportedError("tv_tensors.set_return_type('TVTensor'): glassgrad's operations on tv_tensors give "
                              "plain Tensors\n  fix: put a result back with tv_tensors.wrap(result, like=original)")
