"""torch.lgamma, digamma, polygamma, mvlgamma, erfinv, erfc and their Tensor methods (in-place
forms too). The values are composites of elementwise ops in float64 (_special_values.py; the
result takes the input's float dtype, integers give the default float); each function's
gradient is its closed-form derivative, attached by an autograd.Function (docs/special-functions.md):
lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1),
erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2), erfc'(x) = -2/sqrt(pi) exp(-x^2)."""
from __future__ import annotations

import math

from . import _C, _args, _autocast, _dtypes
from ._inplace import _type_name
from ._out import write_out
from . import _special_values as V
from ._tensor import Tensor, tensor
from .autograd.function import Function


def _as_float(x) -> Tensor:
    x = x if isinstance(x, Tensor) else tensor(x)
    return x if x.dtype.is_floating_point else x.to(_dtypes.DEFAULT_FLOAT)


def _in_float64(value_fn, x: Tensor) -> Tensor:
    return value_fn(x.to("float64")).to(x.dtype)


class _Polygamma(Function):
    @staticmethod
    def forward(ctx, x, n):
        ctx.n = n
        ctx.save_for_backward(x)
        return _in_float64(lambda t: V.polygamma(n, t), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _Polygamma.apply(x, ctx.n + 1), None


def _unary(name: str, value_fn, derivative):
    """An autograd.Function computing value_fn in float64, whose gradient is g * derivative(x, y)."""
    class _Unary(Function):
        @staticmethod
        def forward(ctx, x):
            y = _in_float64(value_fn, x)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * derivative(x, y)
    _Unary.__name__ = name
    return _Unary


_Lgamma = _unary("Lgamma", V.lgamma, lambda x, y: _Polygamma.apply(x, 0))
_Erfinv = _unary("Erfinv", V.erfinv, lambda x, y: (math.sqrt(math.pi) / 2) * (y * y).exp())
_Erfc = _unary("Erfc", V.erfc, lambda x, y: (-2 / math.sqrt(math.pi)) * (-(x * x)).exp())


def _into(out, y: Tensor, name: str) -> Tensor:
    """y, or y written into out (resized, its dtype checked) as PyTorch's out= does: _out.write_out."""
    return y if out is None else write_out(out, y, name)


def lgamma(input: Tensor, *, out=None) -> Tensor:
    """log|Gamma(x)| (torch.lgamma): inf at 0 and the negative integers; gradient digamma(x)."""
    return _into(out, _Lgamma.apply(_as_float(input)), "lgamma")


def digamma(input: Tensor, *, out=None) -> Tensor:
    """psi(x) = d/dx lgamma(x) (torch.digamma): -inf at +0, +inf at -0, NaN at the negative
    integers, as PyTorch's; gradient polygamma(1, x)."""
    return _into(out, _Polygamma.apply(_as_float(input), 0), "digamma")


def _int_argument(value):
    """value, or the int a 0-d integer tensor or a NumPy integer holds (PyTorch's parser reads
    both as an int argument)."""
    held = _args.tensor_index(value)
    if held is not None:
        return held
    return int(value) if hasattr(value, "dtype") and not hasattr(value, "_h") and value.dtype.kind in "iu" else value


def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """The n-th derivative of digamma (torch.polygamma), n >= 0 an int (or a 0-d integer tensor, as
    PyTorch's parser takes one); gradient polygamma(n + 1, x)."""
    n = _int_argument(n)
    if not isinstance(n, int) or isinstance(n, bool):  # PyTorch's parser's TypeError
        raise _args.InvalidArgumentTypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                                             f"{type(n).__name__}\n  fix: n is an int >= 0, got {n!r}")
    if n < 0:
        raise _C.InvalidArgumentError(f"polygamma(n, x) does not support negative n.\n  fix: n is an int >= 0, "
                                      f"got {n!r}")
    return _into(out, _Polygamma.apply(_as_float(input), n), "polygamma")


@_autocast.op("erfinv")
def erfinv(input: Tensor, *, out=None) -> Tensor:
    """The inverse of erf on (-1, 1) (torch.erfinv): +-inf at +-1, NaN outside; gradient
    sqrt(pi)/2 exp(erfinv(x)^2)."""
    return _into(out, _Erfinv.apply(_as_float(input)), "erfinv")


def erfc(input: Tensor, *, out=None) -> Tensor:
    """1 - erf(x) without the cancellation for large x (torch.erfc)."""
    return _into(out, _Erfc.apply(_as_float(input)), "erfc")


def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """The multivariate log-gamma of dimension p (torch.mvlgamma): p(p-1)/4 log(pi) +
    sum_{i<p} lgamma(x - i/2). It is the log of the multivariate gamma function where every element
    exceeds (p - 1)/2; elsewhere the same sum of lgamma's, unchecked (inf at the poles), as
    PyTorch 2's (its former 'All elements must be greater than (p-1)/2' check is gone)."""
    p = _int_argument(p)
    if not isinstance(p, int) or isinstance(p, bool):  # PyTorch's parser's TypeError
        raise _args.InvalidArgumentTypeError(f"mvlgamma(): argument 'p' (position 1) must be int, not "
                                             f"{type(p).__name__}\n  fix: p is an int >= 1, got {p!r}")
    if p < 1:
        raise _C.InvalidArgumentError(f"p has to be greater than or equal to 1\n  fix: p is an int >= 1, got {p!r}")
    if input.dtype == "bool":
        raise _C.DTypeError("The input tensor may not be a boolean tensor.\n  mvlgamma: fix: input.float()")
    x = _as_float(input)
    y = lgamma(x)
    for i in range(1, p):
        y = y + lgamma(x - i / 2)
    return _into(out, y + p * (p - 1) / 4 * math.log(math.pi), "mvlgamma")


class _Igamma(Function):
    """P(a, x) (upper=False) or Q(a, x); the gradient to x is +-x^(a-1) e^-x / Gamma(a). PyTorch has
    none to a: neither has glassgrad (an error when one is asked for)."""

    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.upper = upper
        ctx.save_for_backward(a, x)
        a64, x64 = a.to("float64"), x.to("float64")
        return _igamma_edges(a64, x64, V.gammainc_pair(a64, x64)[1 if upper else 0], upper).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise _C.UnsupportedError("igamma: the derivative with respect to the first argument (a) is not "
                                      "implemented, as in PyTorch\n  fix: input.detach() for a")
        a64, x64 = a.to("float64"), x.to("float64")
        density = ((a64 - 1) * x64.log() - x64 - V.lgamma(a64)).exp().to(x.dtype)
        return None, g * (-density if ctx.upper else density), None


def _igamma_edges(a: Tensor, x: Tensor, p: Tensor, upper: bool) -> Tensor:
    """PyTorch's special cases of P (Q = 1 - P in each), in its order: NaN for a negative a or x;
    at a = 0, P = 1 for x > 0 (else NaN); at x = 0, P = 0; for an infinite a, P = 0 (NaN where x is
    infinite too); for an infinite x, P = 1 (a NaN a included)."""
    from .functional import where
    def v(lower: float) -> float:
        return 1 - lower if upper else lower
    p = where(x.isinf(), v(1.0), p)
    p = where(a.isinf(), where(x.isinf(), math.nan, v(0.0)), p)
    p = where(x == 0, v(0.0), p)
    p = where(a == 0, where(x > 0, v(1.0), math.nan), p)
    return where((x < 0) | (a < 0), math.nan, p)


def _tensors_only(name: str, input, other) -> None:
    """PyTorch's igamma and igammac take two floating tensors (a number is a TypeError there, an
    integer tensor an error)."""
    for what, value in (("input", input), ("other", other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{what}' must be Tensor, not {type(value).__name__}\n"
                            f"  fix: glassgrad.tensor({value!r}) for a number")
    common = _dtypes.result_type(input, other)  # PyTorch checks the promoted dtype (a 0-d float promotes)
    if not common.is_floating_point:
        raise _args.UnsupportedDTypeError(f"\"{name}_cpu\" not implemented for '{_type_name(common)}'\n  {name}: "
                                          f"inputs {input.dtype} and {other.dtype} promote to {common}, not a "
                                          f"floating type (as PyTorch refuses it)\n  fix: input.double() (or .float())")


def _igamma_args(input, other):
    from ._shapes import broadcast_tensors
    a, x = _as_float(input), _as_float(other)
    if a.dtype != x.dtype:  # PyTorch's promotion: a 0-d operand joins the other's dtype within its category
        wide = _dtypes.floating(_dtypes.result_type(input, other))
        a, x = a.to(wide), x.to(wide)
    return broadcast_tensors(a, x)


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function P(input, other) (torch.igamma,
    torch.special.gammainc): the series where other < input + 1, 1 - Q elsewhere."""
    _tensors_only("igamma", input, other)
    a, x = _igamma_args(input, other)
    return _into(out, _Igamma.apply(a, x, False), "igamma")


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P (torch.igammac,
    torch.special.gammaincc): Lentz's continued fraction where other >= input + 1."""
    _tensors_only("igammac", input, other)
    a, x = _igamma_args(input, other)
    return _into(out, _Igamma.apply(a, x, True), "igammac")


__all__ = ["lgamma", "digamma", "polygamma", "erfinv", "erfc", "mvlgamma", "igamma", "igammac"]


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """x.polygamma(n): torch.polygamma(n, x)."""
    return polygamma(n, self)


_polygamma_method.__name__ = "polygamma"


def _bind_methods():
    from ._inplace import in_place_saving_input
    for name in ("lgamma", "digamma", "erfinv", "erfc", "mvlgamma", "igamma", "igammac"):
        setattr(Tensor, name, globals()[name])
        setattr(Tensor, name + "_", in_place_saving_input(globals()[name], name + "_"))
    Tensor.polygamma = _polygamma_method
    Tensor.polygamma_ = in_place_saving_input(_polygamma_method, "polygamma_")


_bind_methods()
