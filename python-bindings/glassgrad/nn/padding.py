"""The padding layers, with PyTorch's names and arguments: ReflectionPad1d/2d/3d,
ReplicationPad1d/2d/3d, CircularPad1d/2d/3d, ConstantPad1d/2d/3d and ZeroPad1d/2d/3d. Each is
F.pad (glassgrad/_padding.py) with a fixed mode and padding: an int pads every side by it, or a
tuple gives (left, right[, top, bottom[, front, back]]), the last dim first."""
from __future__ import annotations

from .. import _args
from .._padding import pad
from .module import Module


class _Pad(Module):
    _DIMS = 1
    _MODE = "constant"

    def __init__(self, padding):
        super().__init__()
        self._configure(padding, 0.0)

    def _configure(self, padding, value: float) -> None:
        where = _args.call(type(self).__name__, padding)
        n = 2 * self._DIMS
        fix = f"{type(self).__name__}(1), or a tuple of {n} ints (left, right{', top, bottom' if n > 2 else ''}" \
              f"{', front, back' if n > 4 else ''})"
        if isinstance(padding, (tuple, list)):
            if len(padding) != n:
                _args.fail(where, "padding", f"an int or a tuple of {n} ints", padding, fix=fix)
            self.padding = tuple(_args.integer(p, "padding", where, fix=fix) for p in padding)
        else:
            self.padding = (_args.integer(padding, "padding", where, fix=fix),) * n
        self.value = _args.shown(value, _args.real(value, "value", where, as_float=True)) if self._MODE == "constant" else None

    def forward(self, input):
        return pad(input, self.padding, self._MODE, self.value)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    """Pads the last dim of (N, C, W) or (C, W) input with its reflection (no edge repeated)."""
    _DIMS, _MODE = 1, "reflect"


class ReflectionPad2d(_Pad):
    """Pads the last two dims of (N, C, H, W) or (C, H, W) input with their reflection."""
    _DIMS, _MODE = 2, "reflect"


class ReflectionPad3d(_Pad):
    _DIMS, _MODE = 3, "reflect"


class ReplicationPad1d(_Pad):
    """Pads the last dim of (N, C, W) or (C, W) input with copies of its edge values."""
    _DIMS, _MODE = 1, "replicate"


class ReplicationPad2d(_Pad):
    """Pads the last two dims of (N, C, H, W) or (C, H, W) input with copies of their edges."""
    _DIMS, _MODE = 2, "replicate"


class ReplicationPad3d(_Pad):
    _DIMS, _MODE = 3, "replicate"


class CircularPad1d(_Pad):
    """Pads the last dim of (N, C, W) or (C, W) input with its other end (periodic)."""
    _DIMS, _MODE = 1, "circular"


class CircularPad2d(_Pad):
    _DIMS, _MODE = 2, "circular"


class CircularPad3d(_Pad):
    _DIMS, _MODE = 3, "circular"


class _ConstantPad(_Pad):
    def __init__(self, padding, value: float):
        Module.__init__(self)
        self._configure(padding, value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    """Pads the last dim with `value` (PyTorch's ConstantPad1d(padding, value): value required)."""
    _DIMS = 1


class ConstantPad2d(_ConstantPad):
    """Pads the last two dims with `value`."""
    _DIMS = 2


class ConstantPad3d(_ConstantPad):
    _DIMS = 3


class _ZeroPad:
    """ZeroPadNd(padding) is ConstantPadNd(padding, 0.0), printed as the reflection pads are."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Pads the last dim with zeros."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Pads the last two dims with zeros."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass
