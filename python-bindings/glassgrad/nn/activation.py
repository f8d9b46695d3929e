"""The hard activations and Mish, with PyTorch's names, arguments and gradients: ReLU6, Hardtanh,
Hardswish, Hardsigmoid, Mish. Each is one or two rows of elementwise_ops.def (F.hardtanh is
HardtanhMax(HardtanhMin(x))), so fusion folds them into the neighbouring elementwise chains.

inplace=True writes the result into the input and returns it, as ReLU's."""
from __future__ import annotations

import warnings

from .. import _args
from .. import functional as F
from .module import Module


def _inplace_repr(module: Module) -> str:
    return "inplace=True" if module.inplace else ""


class Hardtanh(Module):
    """min(max(x, min_val), max_val) (PyTorch's nn.Hardtanh); the gradient is zero at and beyond
    either bound. min_value and max_value are PyTorch's deprecated spellings of min_val and max_val."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False, min_value=None,
                 max_value=None):
        super().__init__()
        for old, new in (("min_value", min_value), ("max_value", max_value)):
            if new is not None:
                warnings.warn(f"keyword argument `{old}` is deprecated and rename to `{old[:-2]}`", FutureWarning,
                              stacklevel=2)
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        where = _args.call(type(self).__name__, min_val, max_val)
        lo, hi = _args.real(min_val, "min_val", where, as_float=True), _args.real(max_val, "max_val", where, as_float=True)
        if not hi > lo:  # the layer asserts a strictly greater max_val (F.hardtanh allows equal bounds)
            raise _args.AssertedArgumentError(f"{where}: max_val ({max_val}) must be greater than min_val ({min_val}) "
                                              f"(the layer's min_val cannot be greater than max_val, nor equal)"
                                              f"\n  fix: {type(self).__name__}(min_val={lo}, max_val={lo + 1.0})")
        lo, hi = F.hardtanh_arguments(where, min_val, max_val)
        self.min_val, self.max_val = _args.shown(min_val, lo), _args.shown(max_val, hi)
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6) (PyTorch's nn.ReLU6, a Hardtanh(0, 6))."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class _Elementwise(Module):
    """An activation whose only argument is inplace (see the module doc)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = _args.switch(inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class Hardswish(_Elementwise):
    """x * relu6(x + 3) / 6 (PyTorch's nn.Hardswish, MobileNetV3's activation)."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # PyTorch prints Hardswish() whatever inplace is


class Hardsigmoid(_Elementwise):
    """relu6(x + 3) / 6 (PyTorch's nn.Hardsigmoid)."""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # as Hardswish


class Mish(_Elementwise):
    """x * tanh(softplus(x)) (PyTorch's nn.Mish)."""

    def forward(self, input):
        return F.mish(input, self.inplace)
