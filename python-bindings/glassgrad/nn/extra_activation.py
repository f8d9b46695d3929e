"""Activation modules with torch.nn's names, arguments, defaults and printed form over
glassgrad._extra_activations: LogSigmoid, Softsign, SELU, CELU, GLU, PReLU, RReLU, Softmin,
Softmax2d, Threshold, Tanhshrink, Softshrink, Hardshrink."""
from __future__ import annotations

from typing import Optional

from .. import _C, _args, _dtypes
from .. import _extra_activations as A
from .._factories import full
from .module import Module, Parameter


class LogSigmoid(Module):
    """F.logsigmoid."""

    def forward(self, input):
        return A.logsigmoid(input)


class Softsign(Module):
    """F.softsign."""

    def forward(self, input):
        return A.softsign(input)


class Tanhshrink(Module):
    """F.tanhshrink."""

    def forward(self, input):
        return A.tanhshrink(input)


class SELU(Module):
    """F.selu(x, inplace)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return A.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    """F.celu(x, alpha, inplace)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = _args.shown(alpha, _args.real(alpha, "alpha", "CELU", as_float=True)), _args.switch(inplace)

    def forward(self, input):
        return A.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """F.glu(x, dim)."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = _args.integer(dim, "dim", "GLU")

    def forward(self, input):
        return A.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """F.prelu(x, weight) with a learned weight of num_parameters elements (1, or one per channel),
    each starting at init."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = _args.integer(num_parameters, "num_parameters", "PReLU")
        _args.weight_sizes(_args.call("PReLU", num_parameters), (self.num_parameters,),  # 0 allowed, as PyTorch's
                           num_parameters=self.num_parameters)
        self.init = _args.real(init, "init", "PReLU")
        self.weight = Parameter(full((self.num_parameters,), self.init, dtype=dtype or _dtypes.DEFAULT_FLOAT,
                                     device=device))

    def reset_parameters(self) -> None:
        from . import init as _init
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """F.rrelu(x, lower, upper, training=self.training, inplace)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower = _args.shown(lower, _args.real(lower, "lower", "RReLU"))
        self.upper = _args.shown(upper, _args.real(upper, "upper", "RReLU"))
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return A.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Softmin(Module):
    """F.softmin(x, dim)."""

    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return A.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """softmax over the channels of (C, H, W) or (N, C, H, W) input (dimension -3)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise _C.ShapeError(f"Softmax2d: expected a 3-d or 4-d input (C, H, W) or (N, C, H, W), got "
                                f"{list(input.shape)}\n  fix: add the missing axes, e.g. x.reshape(n, c, h, w)")
        return input.softmax(-3)


class Threshold(Module):
    """F.threshold(x, threshold, value, inplace)."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        _args.real(threshold, "threshold", "Threshold", as_float=True)
        _args.real(value, "value", "Threshold", as_float=True)
        self.threshold, self.value = threshold, value  # printed as given (Threshold(threshold=0.1, value=20))
        self.inplace = _args.switch(inplace)

    def forward(self, input):
        return A.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Softshrink(Module):
    """F.softshrink(x, lambd)."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = _args.shown(lambd, _args.real(lambd, "lambd", "Softshrink", as_float=True))

    def forward(self, input):
        return A.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Module):
    """F.hardshrink(x, lambd)."""

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = _args.shown(lambd, _args.real(lambd, "lambd", "Hardshrink", as_float=True))

    def forward(self, input):
        return A.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"
