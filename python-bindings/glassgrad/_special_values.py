"""The values of the special functions, as composites of elementwise ops in float64 (no gradient:
_special.py attaches the derivatives). Methods and accuracy: docs/special-functions.md.

- lgamma: Lanczos' approximation (g = 607/128, 15 terms) for x >= 0.5, the reflection
  lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below.
- digamma, polygamma(n >= 1): the asymptotic series at y >= 10 + 2n, reached by the recurrence
  psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! / x^(n+1); below 0.5 the n-times differentiated
  reflection psi(1 - x) - psi(x) = pi cot(pi x).
- Near the zeros of lgamma (1, 2) and digamma (1.4616...), their Taylor series.
- erfc: 1 - erf(x) below 2 (at most 2.3 digits lost), the continued fraction above.
- erfinv: a single-precision start (M. Giles' polynomials) and Newton steps on erf, or on erfc in
  the tails (1 - x is exact there).
The argument of sin and cot is reduced to x - round(x), in [-1/2, 1/2] and exact,
so negative non-integers keep their precision."""
from __future__ import annotations

import math

from . import _math as M
from ._tensor import Tensor
from .functional import where

_G = 607 / 128
_LANCZOS = (0.99999999999999709182, 57.156235665862923517, -59.597960355475491248, 14.136097974741747174,
            -0.49191381609762019978, 0.33994649984811888699e-4, 0.46523628927048575665e-4,
            -0.98374475304879564677e-4, 0.15808870322491248884e-3, -0.21026444172410488319e-3,
            0.21743961811521264320e-3, -0.16431810653676389022e-3, 0.84418223983852743293e-4,
            -0.26190838401581408670e-4, 0.36899182659531622704e-5)
# Bernoulli numbers B_2, B_4, ..., B_20 (the asymptotic series of psi^(n))
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)


def _lanczos(x: Tensor) -> Tensor:
    """lgamma(x) for x >= 0.5."""
    z = x - 1
    a = z * 0 + _LANCZOS[0]
    for k, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (z + k)
    t = z + (_G + 0.5)
    return 0.5 * math.log(2 * math.pi) + (z + 0.5) * t.log() - t + a.log()


def _reduced(x: Tensor) -> Tensor:
    """x - round(x), in [-1/2, 1/2] and exact (Sterbenz): sin(pi x) and cot(pi x) are, up to sign,
    sin and cot of pi times it."""
    return x - x.round()


def lgamma(x: Tensor) -> Tensor:
    low = x < 0.5
    main = _lanczos(where(low, 1 - x, x))
    reflected = math.log(math.pi) - (math.pi * _reduced(x)).abs().sin().log() - main  # inf at the poles
    y = where(low, reflected, main)
    for root in (1.0, 2.0):  # near the positive zeros, their Taylor series: relative precision kept
        y = _near_zero(y, x, "lgamma", root)
    return where(M.isinf(x), math.inf, y)


# Within _TAYLOR_RADIUS of a zero (lgamma at 1 and 2, digamma at its positive root), a fixed-precision
# formula keeps only absolute precision; the Taylor series there keeps relative precision. Its
# coefficients are f^(k)(root) / k!: psi^(k-1) for lgamma, psi^(k) for digamma, computed once in
# float64 by polygamma below (far from its own zeros). 24 terms at radius 0.2 of series whose
# radius of convergence is at least 1 leave under 0.2^25 ~ 3e-18.
_TAYLOR_RADIUS = 0.2
_TAYLOR_TERMS = 24
DIGAMMA_ROOT = 1.4616321449683622  # the double nearest digamma's positive root
DIGAMMA_AT_ROOT = -9.241265521729427e-17  # digamma of that double (40-digit arithmetic)
_COEFFICIENTS: dict = {}


def _near_zero(y: Tensor, x: Tensor, name: str, root: float) -> Tensor:
    near = (x - root).abs() < _TAYLOR_RADIUS
    if not bool(near.any().item()):
        return y
    return where(near, _taylor((name, root), x - root), y)


def _taylor(key, d: Tensor) -> Tensor:
    if key not in _COEFFICIENTS:
        from ._tensor import tensor
        name, root = key
        at = tensor([root], dtype="float64", device="cpu")
        first = 0 if name == "lgamma" else 1  # lgamma^(k) = psi^(k-1), digamma^(k) = psi^(k)
        coefs = [float(polygamma(k - 1 + first, at, near_root=False).item()) / math.factorial(k)
                 for k in range(1, _TAYLOR_TERMS + 1)]
        offset = DIGAMMA_AT_ROOT if name == "digamma" else 0.0
        _COEFFICIENTS[key] = (offset, coefs)
    offset, coefs = _COEFFICIENTS[key]
    acc = d * 0
    for c in reversed(coefs):
        acc = (acc + c) * d
    return acc + offset


def _asymptotic(n: int, y: Tensor) -> Tensor:
    """psi^(n)(y) for y >= 10 + 2n."""
    inv = 1 / y
    if n == 0:
        s = y.log() - 0.5 * inv
        p = inv * inv
        for k, b in enumerate(_BERNOULLI, start=1):
            s = s - (b / (2 * k)) * p
            p = p * inv * inv
        return s
    # (-1)^(n+1) [(n-1)!/y^n + n!/(2 y^(n+1)) + sum_k B_2k (2k+n-1)!/(2k)! / y^(2k+n)]
    s = float(math.factorial(n - 1)) * inv ** n + math.factorial(n) / 2 * inv ** (n + 1)
    for k, b in enumerate(_BERNOULLI, start=1):
        s = s + (b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)) * inv ** (2 * k + n)
    return s if n % 2 == 1 else -s


def _polygamma_right(n: int, x: Tensor) -> Tensor:
    """psi^(n)(x) for x >= 0.5: shifted up to x + N, N = 10 + 2n, where x is below that."""
    N = 10 + 2 * n
    small = x < N
    y = where(small, x + N, x)
    acc = x * 0
    for k in range(N):
        acc = acc + (1 / (x + k) if n == 0 else (x + k) ** -(n + 1))
    scale = -1.0 if n == 0 else float((-1) ** (n + 1) * math.factorial(n))  # floats: n! passes 2**64 (_python_ints)
    return _asymptotic(n, y) - where(small, acc, 0.0) * (-scale if n == 0 else -scale)


def _cot_derivative_polynomial(n: int) -> list:
    """Coefficients (lowest first) of P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)):
    P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c)."""
    p = [0, 1]
    for _ in range(n):
        d = [i * p[i] for i in range(1, len(p))] + [0, 0]
        p = [-(d[i] + (d[i - 2] if i >= 2 else 0)) for i in range(len(d))]
    return p


def polygamma(n: int, x: Tensor, near_root: bool = True) -> Tensor:
    """psi^(n)(x), n >= 0 (n = 0: digamma; near_root=False leaves out the Taylor series at its root)."""
    low = x < 0.5
    right = _polygamma_right(n, where(low, 1 - x, x))
    c = 1 / (math.pi * _reduced(x)).tan()  # cot(pi x): period 1
    poly = x * 0
    for coef in reversed(_cot_derivative_polynomial(n)):
        poly = poly * c + float(coef)  # a float: a large n's integer coefficients pass 2**64 (_python_ints)
    # psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))
    reflected = (-1) ** n * right - math.pi ** (n + 1) * poly
    y = where(low, reflected, right)
    if n == 0 and near_root:
        y = _near_zero(y, x, "digamma", DIGAMMA_ROOT)
    pole = (x <= 0) & (x == x.floor())
    if n == 0:  # PyTorch: -inf at +0, +inf at -0, NaN at the negative integers
        at_pole = where(x == 0, M.copysign(x * 0 + math.inf, -x), math.nan)
    else:
        at_pole = x * 0 + (math.inf if n % 2 == 1 else -math.inf)
    y = where(pole, at_pole, y)
    if n == 0:
        y = where(x == math.inf, math.inf, where(x == -math.inf, math.nan, y))
    else:
        y = where(x == math.inf, 0.0, where(x == -math.inf, math.nan, y))
    return y


def erfc_fraction(t: Tensor) -> Tensor:
    """Laplace's continued fraction at t >= 2: erfc(t) = e^(-t^2) / (sqrt(pi) times it)."""
    cf = t * 1
    for k in range(60, 0, -1):
        cf = t + (k / 2) / cf
    return cf


def erfc(x: Tensor) -> Tensor:
    far = x >= 2
    t = where(far, x, 2.0)
    tail = (-(t * t)).exp() / (math.sqrt(math.pi) * erfc_fraction(t))
    return where(far, tail, 1 - M.erf(x))


_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefs, w: Tensor) -> Tensor:
    p = w * 0 + coefs[0]
    for c in coefs[1:]:
        p = p * w + c
    return p


def erfinv(x: Tensor) -> Tensor:
    a = x.abs()
    inside = a < 1
    s = where(inside, a, 0.0)
    w = -((1 - s) * (1 + s)).log()
    central = w < 5
    y = where(central, _horner(_GILES_CENTRAL, w - 2.5), _horner(_GILES_TAIL, where(central, 5.0, w).sqrt() - 3))
    y = y * s
    tail = s > 0.5
    for _ in range(5):
        # Newton on erf(y) = s; in the tails on log erfc(y) = log(1 - s) (nearly linear in y^2,
        # so it converges from the start's far end too); erf' = 2/sqrt(pi) exp(-y^2)
        e = erfc(y)
        r = where(tail, (e.log() - (1 - s).log()) * e, M.erf(y) - s)
        y = y - where(tail, -r, r) * (math.sqrt(math.pi) / 2) * (y * y).exp()
    y = where(inside, y, where(a == 1, math.inf, math.nan))
    return M.copysign(y, x)


def _incomplete_gamma_terms(x: Tensor) -> int:
    top = float(x.max().item()) if x.numel() else 0.0
    top = top if math.isfinite(top) else 0.0
    return int(2 * math.sqrt(top) + 60) if top < 1e6 else int(2 * math.sqrt(1e6) + 60)


def gammainc_pair(a: Tensor, x: Tensor):
    """(P(a, x), Q(a, x)), the regularized incomplete gamma functions, for a > 0, x >= 0: the
    series of P where x < a + 1, the continued fraction of Q (modified Lentz) elsewhere, and the
    other one as 1 minus it (it is at least about 1/2 there: no cancellation)."""
    series = x < a + 1
    xs = where(x > 0, x, 1.0)
    log_front = a * xs.log() - xs - lgamma(a)  # log(x^a e^-x / Gamma(a))
    terms = _incomplete_gamma_terms(where(series, x, 0.0).abs()) + _incomplete_gamma_terms(a * 0 + 1)
    # P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
    term = a * 0 + 1
    total = term
    for k in range(1, 4 * terms):
        term = term * xs / (a + k)
        total = total + term
    p_series = (log_front.exp() / a) * total
    # Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), Lentz's evaluation
    tiny = 1e-300
    b = xs + 1 - a
    c = b * 0 + 1 / tiny
    d = 1 / where(b.abs() < tiny, tiny, b)
    h = d
    for i in range(1, 4 * _incomplete_gamma_terms(where(series, 0.0, x)) + 20):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / where(d.abs() < tiny, tiny, d)
        c = b + an / c
        c = where(c.abs() < tiny, tiny, c)
        h = h * d * c
    q_cf = log_front.exp() * h
    p = where(series, p_series, 1 - q_cf)
    q = where(series, 1 - p_series, q_cf)
    p = where(x == 0, 0.0, where(x == math.inf, 1.0, p))
    q = where(x == 0, 1.0, where(x == math.inf, 0.0, q))
    bad = (a <= 0) | (x < 0) | M.isnan(a) | M.isnan(x)
    return where(bad, math.nan, p), where(bad, math.nan, q)
