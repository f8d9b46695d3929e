"""torch.special's orthogonal polynomials of (input, n): chebyshev_polynomial_t/u/v/w, their shifted
forms, hermite_polynomial_h/he, laguerre_polynomial_l and legendre_polynomial_p. None has a
gradient, as in PyTorch (docs/special-functions.md).

PyTorch's rules, kept here: input and n promote together (an integer result gives the default
float; float16, bfloat16 and complex are refused, as its CPU kernels are); n is taken in that dtype
and truncated to an integer (NaN, +-inf and values past int64 become -1); n < 0 gives 0. Each
value comes from PyTorch's three-term recurrence in the result dtype, in its order of operations,
so overflow and the inf - inf that stops its loop give the same inf or NaN; its shortcuts are kept:
the exact values at the ends of the interval, cos(n acos x) and the like for |x| < 1 above its
thresholds of n, and NaN for Hermite's n above 128 (float32) or 512 (float64)."""
from __future__ import annotations

import math

import numpy as np

from . import _args, _dtypes
from ._math import float_result_operands
from ._runtime import no_grad
from ._shapes import broadcast_tensors
from ._factories import ones_like
from ._special import _into
from ._special_more import refuse_unsupported_dtype
from ._tensor import Tensor, tensor
from .functional import where

# How many recurrence steps run between the checks that some element is still finite and counting.
_CHECK_EVERY = 32


def _operands(name: str, input, n):
    """x and n broadcast in their result dtype, and n as PyTorch's int64 cast of it (-1 where that
    cast is undefined)."""
    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise _args.InvalidArgumentTypeError(
            f"special_{name}() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(n).__name__}): input or n must be a Tensor\n  fix: glassgrad.special.{name}("
            f"glassgrad.tensor({input!r}), {n!r})")
    for operand, what in ((input, "input"), (n, "n")):
        if isinstance(operand, Tensor) and not operand.dtype.is_floating_point:
            refuse_unsupported_dtype(name, operand, f"{what} {tuple(operand.shape)}")
    x, nf = float_result_operands(input, n)
    refuse_unsupported_dtype(name, x, f"the promoted dtype of input and n {tuple(x.shape)}")
    x, nf = broadcast_tensors(x.detach(), nf.detach())
    castable = nf.isfinite() & (nf.abs() < 2.0 ** 63)
    n64 = where(castable, nf.trunc(), -1.0).to("int64")
    return x, n64.to(x.dtype), n64


class _Recurrence:
    """PyTorch's loop in float64 NumPy on the host, over the elements that loop only (an op a step
    on the device would cost more than the step: n runs to 10^5 and beyond). A float32 result
    rounds to float32 where PyTorch's float32 kernel rounds: its steps compile to fused
    multiply-adds of the step's first product (exact in float64 for float32 factors) and the
    separately rounded second one, so each step is rounded once there, overflow to +-inf included."""

    def __init__(self, dtype):
        self.float32 = _dtypes.plain(dtype).endswith("float32")

    def round(self, r: np.ndarray) -> np.ndarray:
        return r.astype(np.float32).astype(np.float64) if self.float32 else r

    def product(self, k: float, p: np.ndarray) -> np.ndarray:
        """k p, the step's separately rounded product."""
        return self.round(k * p)

    def run(self, n: Tensor, looping: Tensor, q1: Tensor, operand: Tensor, step) -> Tensor:
        """q_n (float64, on q1's device) of q_0 = 1, q_1 = q1, q_(j+1) = step(j, q_(j-1), q_j, v)
        where looping (n >= 2 there; v: operand's elements there), stopping once no counting
        element is a number (NaN stays NaN: PyTorch's loop ends there)."""
        q_all: np.ndarray = q1.numpy(force=True).astype(np.float64).copy()
        mask: np.ndarray = looping.numpy(force=True).astype(bool)
        if mask.any():
            counts = n.numpy(force=True).astype(np.float64)[mask]
            v = operand.numpy(force=True).astype(np.float64)[mask]
            p, q = np.ones_like(v), q_all[mask]
            with np.errstate(all="ignore"):
                for j in range(1, int(counts.max())):
                    going = counts > j
                    p, q = np.where(going, q, p), np.where(going, self.round(step(j, p, q, v)), q)
                    if j % _CHECK_EVERY == 0 and not (going & ~np.isnan(q)).any():
                        break
            q_all[mask] = q
        return tensor(q_all, dtype="float64", device=q1.device)


def _even(n64):
    return n64 % 2 == 0


def _signed(even, value):
    return where(even, value, -value)


def _chebyshev_family(x, n, n64, y, first, at_one, at_minus_one, trig, threshold, ends_at_x):
    """The Chebyshev polynomials (shifted: y = 2x - 1 in x's dtype, ends_at_x False): q_1 =
    first(y), the step 2y q - p in float64; at y = 1 (x == 1, x == 0 shifted) at_one and
    at_minus_one; trig(y) in x's dtype where |y| < 1 and n > threshold."""
    one, minus_one = (x.abs() == 1) & (x > 0), (x.abs() == 1) & (x < 0)
    if not ends_at_x:
        one, minus_one = x == 1, x == 0
    inside = (n > threshold) & (y.abs() < 1)
    y64 = y.to("float64")
    # 2 (y q - p/2) rounds as 2y q - p, and overflows only where that does
    value = _Recurrence(x.dtype).run(n, (n >= 2) & ~inside & ~one & ~minus_one, first(y), y64,
                                     lambda j, p, q, y: (y * q - 0.5 * p) * 2).to(x.dtype)
    value = where(n == 1, first(y), where(n == 0, 1.0, value))
    value = where(inside, trig(where(inside, y, 0.0)), value)
    value = where(one, at_one, where(minus_one, at_minus_one, value))
    return where(n < 0, 0.0, value)


def _t(x, n, n64, y, ends_at_x, threshold):
    ones = ones_like(x)
    return _chebyshev_family(x, n, n64, y, lambda y: y, ones, _signed(_even(n64), ones),
                             lambda y: (n * y.acos()).cos(), threshold, ends_at_x)


def _u(x, n, n64, y, ends_at_x, threshold):
    count = (n64 + 1).to(x.dtype)

    def trig(y):
        a = y.acos()
        return where(a.sin() != 0, (count * a).sin() / a.sin(), count * (count * a).cos() / y)
    return _chebyshev_family(x, n, n64, y, lambda y: y + y, count, _signed(_even(n64), count), trig, threshold,
                             ends_at_x)


def _v(x, n, n64, y, ends_at_x, threshold):
    odd = (n64 + n64 + 1).to(x.dtype)

    def trig(y):
        a = y.acos()
        return where((a / 2).sin() != 1, ((n + 0.5) * a).cos() / (a / 2).cos(), _signed(_even(n64), odd))
    return _chebyshev_family(x, n, n64, y, lambda y: y + y - 1, ones_like(x), _signed(_even(n64), odd), trig,
                             threshold, ends_at_x)


def _w(x, n, n64, y, ends_at_x, threshold):
    odd = (n64 + n64 + 1).to(x.dtype)
    parity = _signed(_even(n64), ones_like(x))

    def trig(y):
        a = y.acos()
        ends = where(y > 0, odd, parity) if ends_at_x else parity
        return where((a / 2).cos() != 1, ((n + 0.5) * a).sin() / (a / 2).sin(), ends)
    return _chebyshev_family(x, n, n64, y, lambda y: y + y + 1, odd, parity, trig, threshold, ends_at_x)


# name: (the polynomial of y, n > threshold for the trigonometric form in (-1, 1), shifted)
_CHEBYSHEV = {"chebyshev_polynomial_t": (_t, 6, False), "chebyshev_polynomial_u": (_u, 8, False),
              "chebyshev_polynomial_v": (_v, 8, False), "chebyshev_polynomial_w": (_w, 8, False),
              "shifted_chebyshev_polynomial_t": (_t, 6, True), "shifted_chebyshev_polynomial_u": (_u, 6, True),
              "shifted_chebyshev_polynomial_v": (_v, 6, True), "shifted_chebyshev_polynomial_w": (_w, 4, True)}


def _chebyshev(name: str, input, n, out):
    fn, threshold, shifted = _CHEBYSHEV[name]
    with no_grad():
        x, nf, n64 = _operands(name, input, n)
        y = x + x - 1 if shifted else x
        return _into(out, fn(x, nf, n64, y, not shifted, threshold), name)


def _hermite(name: str, input, n, out, physicists: bool):
    with no_grad():
        x, nf, n64 = _operands(name, input, n)
        recurrence = _Recurrence(x.dtype)
        first = x + x if physicists else x
        limit = 128 if recurrence.float32 else 512
        looping = (nf >= 2) & (nf <= limit)
        if physicists:  # 2 (x q - j p) rounds as 2x q - 2j p

            def step(j, p, q, x):
                return (x * q - 0.5 * recurrence.product(float(j + j), p)) * 2
        else:

            def step(j, p, q, x):
                return x * q - recurrence.product(float(j), p)
        value = recurrence.run(nf, looping, first, x, step).to(x.dtype)
        value = where(nf > limit, math.nan, value)
        return _into(out, where(nf < 0, 0.0, where(nf == 0, 1.0, where(nf == 1, first, value))), name)


def _laguerre_or_legendre(name: str, input, n, out):
    with no_grad():
        x, nf, n64 = _operands(name, input, n)
        recurrence = _Recurrence(x.dtype)
        if name == "laguerre_polynomial_l":
            first, ends, at_ends = 1 - x, x.abs() == 0, ones_like(x)

            def factor(j, x):
                return recurrence.round(float(j + j) + recurrence.round(1 - x))
        else:
            first, ends = x, x.abs() == 1
            at_ends = _signed((x > 0) | _even(n64), ones_like(x))

            def factor(j, x):
                return recurrence.round(float(j + j + 1) * x)

        def step(j, p, q, x):
            return recurrence.round(factor(j, x) * q - recurrence.product(float(j), p)) / float(j + 1)
        value = recurrence.run(nf, (nf >= 2) & ~ends, first, x, step).to(x.dtype)
        value = where(nf == 1, first, where(nf == 0, 1.0, value))
        return _into(out, where(nf < 0, 0.0, where(ends, at_ends, value)), name)


def chebyshev_polynomial_t(x, n, *, out=None) -> Tensor:
    """T_n(x), the Chebyshev polynomial of the first kind (torch.special.chebyshev_polynomial_t)."""
    return _chebyshev("chebyshev_polynomial_t", x, n, out)


def chebyshev_polynomial_u(x, n, *, out=None) -> Tensor:
    """U_n(x), the Chebyshev polynomial of the second kind (torch.special.chebyshev_polynomial_u)."""
    return _chebyshev("chebyshev_polynomial_u", x, n, out)


def chebyshev_polynomial_v(x, n, *, out=None) -> Tensor:
    """V_n(x), the Chebyshev polynomial of the third kind (torch.special.chebyshev_polynomial_v)."""
    return _chebyshev("chebyshev_polynomial_v", x, n, out)


def chebyshev_polynomial_w(x, n, *, out=None) -> Tensor:
    """W_n(x), the Chebyshev polynomial of the fourth kind (torch.special.chebyshev_polynomial_w)."""
    return _chebyshev("chebyshev_polynomial_w", x, n, out)


def shifted_chebyshev_polynomial_t(x, n, *, out=None) -> Tensor:
    """T_n(2 x - 1) (torch.special.shifted_chebyshev_polynomial_t)."""
    return _chebyshev("shifted_chebyshev_polynomial_t", x, n, out)


def shifted_chebyshev_polynomial_u(x, n, *, out=None) -> Tensor:
    """U_n(2 x - 1) (torch.special.shifted_chebyshev_polynomial_u)."""
    return _chebyshev("shifted_chebyshev_polynomial_u", x, n, out)


def shifted_chebyshev_polynomial_v(x, n, *, out=None) -> Tensor:
    """V_n(2 x - 1) (torch.special.shifted_chebyshev_polynomial_v)."""
    return _chebyshev("shifted_chebyshev_polynomial_v", x, n, out)


def shifted_chebyshev_polynomial_w(x, n, *, out=None) -> Tensor:
    """W_n(2 x - 1) (torch.special.shifted_chebyshev_polynomial_w)."""
    return _chebyshev("shifted_chebyshev_polynomial_w", x, n, out)


def hermite_polynomial_h(x, n, *, out=None) -> Tensor:
    """H_n(x), the physicists' Hermite polynomial (torch.special.hermite_polynomial_h)."""
    return _hermite("hermite_polynomial_h", x, n, out, True)


def hermite_polynomial_he(x, n, *, out=None) -> Tensor:
    """He_n(x), the probabilists' Hermite polynomial (torch.special.hermite_polynomial_he)."""
    return _hermite("hermite_polynomial_he", x, n, out, False)


def laguerre_polynomial_l(x, n, *, out=None) -> Tensor:
    """L_n(x), the Laguerre polynomial (torch.special.laguerre_polynomial_l)."""
    return _laguerre_or_legendre("laguerre_polynomial_l", x, n, out)


def legendre_polynomial_p(x, n, *, out=None) -> Tensor:
    """P_n(x), the Legendre polynomial (torch.special.legendre_polynomial_p)."""
    return _laguerre_or_legendre("legendre_polynomial_p", x, n, out)


__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p"]
