"""torch.i0 and torch.special's i0e, i1, i1e, ndtr, ndtri, log_ndtr, erfcx, entr, zeta,
modified_bessel_i0/i1, bessel_j0/j1 and spherical_bessel_j0 (Tensor.i0 and i0_ too). Values: composites in
float64 (_special_more_values.py); the result takes the input's float dtype (integers and bools
give the default float). Gradients are PyTorch's closed forms (docs/special-functions.md):
i0' = i1, i0e' = i1e - sgn(x) i0e, i1' = i0 - i1/x and i1e' = i0e - i1e (sgn(x) + 1/x) (1/2 at
0), ndtr' = phi(x), ndtri' = sqrt(2 pi) e^(y^2/2), log_ndtr' = phi(x) / ndtr(x), erfcx' = 2x y -
2/sqrt(pi), entr' = -(1 + log x), zeta's to q = -x zeta(x + 1, q) (to x an error, as PyTorch's);
modified_bessel_i0/i1, bessel_j0/j1 and spherical_bessel_j0 have none, as in PyTorch."""
from __future__ import annotations

import math

from . import _C, _dtypes
from ._args import UnsupportedDTypeError
from . import _special_more_values as W
from ._runtime import no_grad
from ._special import _as_float, _igamma_args, _in_float64, _into, _unary
from ._tensor import Tensor
from .autograd.function import Function
from .functional import where


def _i0_derivative(x: Tensor, y: Tensor) -> Tensor:
    return i1(x)


def _i0e_derivative(x: Tensor, y: Tensor) -> Tensor:
    return i1e(x) - x.sign() * y


def _i1_derivative(x: Tensor, y: Tensor) -> Tensor:
    return where(x == 0, 0.5, i0(x) - y / x)


def _i1e_derivative(x: Tensor, y: Tensor) -> Tensor:
    return where(x == 0, 0.5, i0e(x) - y * (x.sign() + 1 / x))


_I0 = _unary("I0", W.i0, _i0_derivative)
_I0e = _unary("I0e", W.i0e, _i0e_derivative)
_I1 = _unary("I1", W.i1, _i1_derivative)
_I1e = _unary("I1e", W.i1e, _i1e_derivative)
_Ndtr = _unary("Ndtr", W.ndtr, lambda x, y: (-(x * x) / 2).exp() / math.sqrt(2 * math.pi))
_Ndtri = _unary("Ndtri", W.ndtri, lambda x, y: math.sqrt(2 * math.pi) * (y * y / 2).exp())
_LogNdtr = _unary("LogNdtr", W.log_ndtr, lambda x, y: (-(x * x) / 2 - y).exp() / math.sqrt(2 * math.pi))
_Erfcx = _unary("Erfcx", W.erfcx, lambda x, y: 2 * x * y - 2 / math.sqrt(math.pi))


def _logit_derivative(x: Tensor, y: Tensor) -> Tensor:
    """PyTorch's logit gradient: 1 / (x (1 - x)), inf at +-0, NaN outside [0, 1]."""
    inside = where(x == 0, math.inf, 1 / (x * (1 - x)))
    return where((x < 0) | (x > 1), math.nan, inside)


_Logit = _unary("Logit", lambda z: z.log() - (-z).log1p(), _logit_derivative)


def _rounded_logit(dtype: str):
    """log(z / (1 - z)) of a float16 or bfloat16 z with 1 - z and the quotient rounded to its
    dtype, as PyTorch's kernel computes them in the dtype (logit(bfloat16 0.5469) is 0.1846 there,
    0.1885 from the exact value)."""
    def value(w: Tensor) -> Tensor:
        one_minus = w.neg().add(1).to(dtype).double()  # type: ignore[attr-defined]  # methods bound at import
        return w.div(one_minus).to(dtype).double().log()  # type: ignore[attr-defined]
    return _unary("Logit", value, _logit_derivative)


_ROUNDED_LOGIT = {"float16": _rounded_logit("float16"), "bfloat16": _rounded_logit("bfloat16")}


def logit_without_eps(z: Tensor) -> Tensor:
    """torch.logit(z) of a float tensor z, eps not given: log(z / (1 - z)) with PyTorch's gradient."""
    rounded = _ROUNDED_LOGIT.get(_dtypes.plain(z.dtype))
    return (rounded or _Logit).apply(z)


def _entr_value(x: Tensor) -> Tensor:
    return where(x > 0, -x * where(x > 0, x, 1.0).log(), where(x == 0, 0.0, where(x < 0, -math.inf, x)))


_Entr = _unary("Entr", _entr_value, lambda x, y: -(1 + x.log()))


def i0(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the first kind, order 0 (torch.i0, torch.special.i0);
    gradient i1(x)."""
    return _into(out, _I0.apply(_as_float(input)), "i0")


def i0e(input: Tensor, *, out=None) -> Tensor:
    """e^-|x| i0(x) (torch.special.i0e); gradient i1e(x) - sgn(x) i0e(x)."""
    return _into(out, _I0e.apply(_as_float(input)), "i0e")


def i1(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the first kind, order 1 (torch.special.i1); gradient
    i0(x) - i1(x)/x, 1/2 at 0."""
    return _into(out, _I1.apply(_as_float(input)), "i1")


def i1e(input: Tensor, *, out=None) -> Tensor:
    """e^-|x| i1(x) (torch.special.i1e); gradient i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0."""
    return _into(out, _I1e.apply(_as_float(input)), "i1e")


def ndtr(input: Tensor, *, out=None) -> Tensor:
    """The standard normal distribution function (torch.special.ndtr); gradient its density."""
    return _into(out, _Ndtr.apply(_as_float(input)), "ndtr")


def ndtri(input: Tensor, *, out=None) -> Tensor:
    """The inverse of ndtr on [0, 1] (torch.special.ndtri): -inf at 0, inf at 1, NaN outside;
    gradient sqrt(2 pi) e^(y^2/2)."""
    return _into(out, _Ndtri.apply(_as_float(input)), "ndtri")


def log_ndtr(input: Tensor, *, out=None) -> Tensor:
    """log(ndtr(x)) without its underflow for very negative x (torch.special.log_ndtr)."""
    return _into(out, _LogNdtr.apply(_as_float(input)), "log_ndtr")


def erfcx(input: Tensor, *, out=None) -> Tensor:
    """e^(x^2) erfc(x) (torch.special.erfcx), finite for large x; gradient 2x erfcx(x) - 2/sqrt(pi)."""
    return _into(out, _Erfcx.apply(_as_float(input)), "erfcx")


def entr(input: Tensor, *, out=None) -> Tensor:
    """-x log(x) for x > 0, 0 at 0, -inf below (torch.special.entr); gradient -(1 + log x)."""
    return _into(out, _Entr.apply(_as_float(input)), "entr")


class _Zeta(Function):
    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return W.zeta(x.to("float64"), q.to("float64"), W.zeta_terms(q)).to(q.dtype)

    @staticmethod
    def backward(ctx, g):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise _C.UnsupportedError("the derivative for 'zeta' is not implemented (its first argument, x), as "
                                      "in PyTorch\n  fix: pass x.detach(); the gradient to q is -x zeta(x + 1, q)")
        return None, -g * x * _Zeta.apply(x + 1, q)


def zeta(input, other, *, out=None) -> Tensor:
    """The Hurwitz zeta function sum_k (other + k)^-input (torch.special.zeta; either argument may
    be a number): inf at input = 1 and at the poles other = 0, -1, ...; NaN for input < 1; the
    gradient to other only, as PyTorch's."""
    x, q = _igamma_args(input, other)
    return _into(out, _Zeta.apply(x, q), "zeta")


# The dtypes PyTorch's CPU kernels of the functions without a gradient refuse, by PyTorch's names.
_REFUSED = {"float16": "Half", "bfloat16": "BFloat16", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def refuse_unsupported_dtype(name: str, x: Tensor, what: str) -> None:
    """PyTorch's NotImplementedError for the dtypes its kernel of name lacks (what: the operands)."""
    plain = _dtypes.plain(x.dtype).split(".")[-1]
    if plain in _REFUSED:
        raise UnsupportedDTypeError(f"\"{name}_cpu\" not implemented for '{_REFUSED[plain]}'\n  special.{name}: {what} "
                                    f"is {x.dtype}, which PyTorch's kernel does not take\n  fix: .float() (or .double())")


def _without_gradient(name: str, value_fn, input: Tensor) -> Tensor:
    if isinstance(input, Tensor):
        refuse_unsupported_dtype(name, input, f"input {tuple(input.shape)}")
    x = _as_float(input)
    with no_grad():
        return _in_float64(value_fn, x.detach())


def modified_bessel_i0(input: Tensor, *, out=None) -> Tensor:
    """i0's values without a gradient (torch.special.modified_bessel_i0, which has none)."""
    return _into(out, _without_gradient("modified_bessel_i0", W.i0, input), "modified_bessel_i0")


def modified_bessel_i1(input: Tensor, *, out=None) -> Tensor:
    """i1's values without a gradient (torch.special.modified_bessel_i1, which has none)."""
    return _into(out, _without_gradient("modified_bessel_i1", W.i1, input), "modified_bessel_i1")


def bessel_j0(input: Tensor, *, out=None) -> Tensor:
    """The Bessel function of the first kind, order 0 (torch.special.bessel_j0), without a gradient
    (PyTorch has none)."""
    return _into(out, _without_gradient("bessel_j0", W.bessel_j0, input), "bessel_j0")


def bessel_j1(input: Tensor, *, out=None) -> Tensor:
    """The Bessel function of the first kind, order 1 (torch.special.bessel_j1), without a gradient
    (PyTorch has none)."""
    return _into(out, _without_gradient("bessel_j1", W.bessel_j1, input), "bessel_j1")


def spherical_bessel_j0(x: Tensor, *, out=None) -> Tensor:
    """sin(x)/x, 1 at 0, without a gradient (torch.special.spherical_bessel_j0, which has none)."""
    def value(x: Tensor) -> Tensor:
        safe = where(x == 0, 1.0, x)
        return where(x == 0, 1.0, where(x.abs() == math.inf, 0.0, safe.sin() / safe))
    return _into(out, _without_gradient("spherical_bessel_j0", value, x), "spherical_bessel_j0")


__all__ = ["i0"]


def _bind_methods():
    from ._inplace import in_place_saving_input
    Tensor.i0 = i0
    Tensor.i0_ = in_place_saving_input(i0, "i0_")


_bind_methods()
