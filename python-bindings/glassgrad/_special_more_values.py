"""The values of torch.special's Bessel, normal-distribution and zeta functions, as composites of
elementwise ops in float64 (no gradient: _special_more.py attaches the derivatives). Methods and
accuracy: docs/special-functions.md.

- i0, i0e, i1, i1e: Chebyshev series in x/2 - 2 on [0, 8] and in 32/x - 2 above, of the scaled
  functions (e^-|x| I0, e^-|x| I1 / x below 8, e^-|x| sqrt(|x|) I above), PyTorch's coefficients.
- erfcx: Laplace's continued fraction (erfc's, without its e^-x^2) from 2 up, e^(x^2) erfc(x) below.
- ndtr, log_ndtr: through erfc and erfcx, with PyTorch's branch points.
- ndtri: Newton steps on ndtr in the lower half (ndtri(p) = -ndtri(1 - p) above, 1 - p exact), from
  erfinv's value or, below 1e-10, the tail's asymptotic root.
- zeta(x, q): the Hurwitz zeta function, a direct sum to q + N >= 10 and the Euler-Maclaurin tail
  with 12 Bernoulli terms, PyTorch's domain rules (inf at x = 1 and at the poles q = 0, -1, ...)."""
from __future__ import annotations

import math

from . import _math as M
from . import _special_values as V
from ._tensor import Tensor
from .functional import where

_I0E_A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,)
_I0E_B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,)
_I1E_A = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1,)
_I1E_B = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1,)


def _chebyshev(coefs, y: Tensor) -> Tensor:
    """sum_k c_k T_k(y) / 2 over Chebyshev polynomials in Clenshaw's recurrence."""
    b0, b1, b2 = y * 0 + coefs[0], y * 0, y * 0
    for c in coefs[1:]:
        b0, b1, b2 = y * b0 - b1 + c, b0, b1
    return 0.5 * (b0 - b2)


def _scaled(a: Tensor, low, high) -> Tensor:
    """The series of |x| = a: low on [0, 8], high / sqrt(a) above (inf gives 0 there)."""
    near = a <= 8
    far = where(near, 9.0, a)
    return where(near, _chebyshev(low, a / 2 - 2), _chebyshev(high, 32 / far - 2) / far.sqrt())


def i0e(x: Tensor) -> Tensor:
    return _scaled(x.abs(), _I0E_A, _I0E_B)


def i0(x: Tensor) -> Tensor:
    return x.abs().exp() * i0e(x)


def i1e(x: Tensor) -> Tensor:
    a = x.abs()
    out = _scaled(a, _I1E_A, _I1E_B) * where(a <= 8, a, 1.0)
    return where(x < 0, -out, out)


def i1(x: Tensor) -> Tensor:
    return x.abs().exp() * i1e(x)


def erfcx(x: Tensor) -> Tensor:
    far = x >= 2
    t = where(far, x, 2.0)
    return where(far, 1 / (math.sqrt(math.pi) * V.erfc_fraction(t)), (x * x).exp() * V.erfc(x))


def ndtr(x: Tensor) -> Tensor:
    t = x * math.sqrt(0.5)
    tail = 0.5 * V.erfc(t.abs())
    return where(t.abs() < math.sqrt(0.5), 0.5 + 0.5 * M.erf(t), where(t > 0, 1 - tail, tail))


def log_ndtr(x: Tensor) -> Tensor:
    t = x * math.sqrt(0.5)
    low = x < -1
    return where(low, (erfcx(-where(low, t, -1.0)) / 2).log() - t * t, M.log1p(-V.erfc(t) / 2))


def _normal_density(z: Tensor) -> Tensor:
    return (-(z * z) / 2).exp() / math.sqrt(2 * math.pi)


def ndtri(p: Tensor) -> Tensor:
    upper = p > 0.5
    q = where(upper, 1 - p, p)  # exact for p in [1/2, 1]
    inside = (q > 0) & (q <= 0.5)
    q = where(inside, q, 0.25)
    tiny = q < 1e-10
    r = -2 * where(tiny, q, 1e-10).log()
    start = where(tiny, -(r - r.log() - math.log(2 * math.pi)).sqrt(), math.sqrt(2) * V.erfinv(2 * q - 1))
    z = start
    for _ in range(4):
        z = z - (0.5 * V.erfc(-z * math.sqrt(0.5)) - q) / _normal_density(z)
    z = where(upper, -z, z)
    z = where(inside | upper, z, math.nan)
    z = where(p == 0, -math.inf, where(p == 1, math.inf, z))
    return where((p < 0) | (p > 1) | M.isnan(p), math.nan, z)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
# Terms summed directly past a negative q, at most (the sum must reach q + N > 9).
_ZETA_MAX_TERMS = 1000


def zeta(x: Tensor, q: Tensor, terms: int) -> Tensor:
    """terms: how many terms after q^-x are summed directly (>= 9, and q + terms > 9 for every q).
    An element stops where its next term is below 2^-53 of its sum, as PyTorch's loop returns."""
    eps = 1.11022302462515654042e-16
    s = q ** -x
    a = q
    b = s
    done = s != s  # all false
    for _ in range(terms):
        a = a + 1
        b = a ** -x
        s = where(done, s, s + b)
        done = done | ((-eps * s < b) & (b < eps * s))
    w = a
    s = where(done, s, s + b * w / (x - 1) - 0.5 * b)
    rising = x * 0 + 1
    k = 0
    for c in _ZETA_A:
        rising = rising * (x + k)
        b = b / w
        t = rising * b / c
        s = where(done, s, s + t)
        done = done | ((t / s).abs() < eps)
        rising = rising * (x + k + 1)
        b = b / w
        k += 2
    pole = (q <= 0) & (q == q.floor())
    s = where((q <= 0) & (x != x.floor()), math.nan, s)
    s = where(pole, math.inf, s)
    return where(x == 1, math.inf, where(x < 1, math.nan, s))


def zeta_terms(q: Tensor) -> int:
    """The direct terms zeta needs for these q (a data-dependent count only where some q < 0)."""
    finite = where(M.isfinite(q), q, 0.0)
    low = float(finite.min().item()) if finite.numel() else 0.0
    return 9 if low >= 0 else min(_ZETA_MAX_TERMS, max(9, math.floor(9 - low) + 1))


# The rational approximations of J0 and J1 (PyTorch's bessel_j0/j1 coefficients): R on [0, 5],
# the Hankel asymptotic form with P and Q above.
_J0_PP = (0.0007969367292973471, 0.08283523921074408, 1.239533716464143, 5.447250030587687, 8.74716500199817,
    5.303240382353949, 1.0)
_J0_PQ = (0.0009244088105588637, 0.08562884743544745, 1.2535274390105895, 5.470977403304171,
    8.761908832370695, 5.306052882353947, 1.0)
_J0_QP = (-0.011366383889846916, -1.2825271867050931, -19.553954425773597, -93.20601521237683,
    -177.68116798048806, -147.07750515495118, -51.41053267665993, -6.050143506007285)
_J0_QQ = (64.3178256118178, 856.4300259769806, 3882.4018360540163, 7240.467741956525, 5930.727011873169,
    2062.0933166032783, 242.0057402402914)
_J0_RP = (-4794432209.782018, 1956174919465.5657, -249248344360967.72, 9708622510473064.0)
_J0_RQ = (499.563147152651, 173785.4016763747, 48440965.83399621, 11185553704.535683, 2112775201154.892,
    310518229857422.56, 3.1812195594320496e+16, 1.7108629408104315e+18)
_J1_PP = (0.0007621256162081731, 0.07313970569409176, 1.1271960812968493, 5.112079511468076,
    8.424045901417724, 5.214515986823615, 1.0)
_J1_PQ = (0.0005713231280725487, 0.06884559087544954, 1.105142326340617, 5.073863861286015,
    8.399855543276042, 5.209828486823619, 1.0)
_J1_QP = (0.05108625947501766, 4.982138729512334, 75.82382841325453, 366.7796093601508, 710.8563049989261,
    597.4896124006136, 211.68875710057213, 25.207020585802372)
_J1_QQ = (74.23732770356752, 1056.4488603826283, 4986.410583376536, 9562.318924047562, 7997.041604473507,
    2826.1927851763908, 336.0936078106983)
_J1_RP = (-899971225.7055594, 452228297998.19403, -72749424522181.83, 3682957328638529.0)
_J1_RQ = (620.8364781180543, 256987.25675774884, 83514679.14319493, 22151159547.97925, 4749141220799.914,
    784369607876235.9, 8.952223361846274e+16, 5.322786203326801e+18)


def _poly(coefs, w: Tensor) -> Tensor:
    """Horner's sum of coefs (highest power first) at w, from 0 as PyTorch's loops."""
    p = w * 0
    for c in coefs:
        p = p * w + c
    return p


def _hankel(a: Tensor, pp, pq, qp, qq, phase: float) -> Tensor:
    """The asymptotic form at a = |x| > 5 (a clamped there to keep the other branch finite)."""
    far = where((a > 5) | M.isnan(a), a, 6.0)
    w = (5 / far) * (5 / far)
    p = _poly(pp, w) / _poly(pq, w)
    q = _poly(qp, w) / _poly(qq, w)
    return (p * (far - phase).cos() - 5 / far * q * (far - phase).sin()) * 0.797884560802865355879892119868763737 / far.sqrt()


def bessel_j0(x: Tensor) -> Tensor:
    a = x.abs()
    z = a * a
    near = (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * _poly(_J0_RP, z) / _poly(_J0_RQ, z)
    near = where(a < 1e-5, 1 - z / 4, near)
    return where(a <= 5, near, _hankel(a, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, math.pi / 4))


def bessel_j1(x: Tensor) -> Tensor:
    a = x.abs()
    z = a * a
    near = _poly(_J1_RP, z) / _poly(_J1_RQ, z) * a * (z - 14.6819706421238932572) * (z - 49.2184563216946036703)
    out = where(a <= 5, near, _hankel(a, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, 3 * math.pi / 4))
    return where(x < 0, -out, out)
