"""The values of torch.special's airy_ai, bessel_y0/y1 and modified_bessel_k0/k1 (scaled too), as
composites of elementwise ops in float64 on float64 tensors (none has a gradient, as in PyTorch). Each follows
PyTorch's method and coefficients (the Cephes ones) with its branch points, so the values are
PyTorch's (docs/special-functions.md):

- bessel_y0, bessel_y1: a rational function plus (2/pi) log(x) J(x) on (0, 5], the Hankel form of
  bessel_j0/j1 (a quarter period on) above; -inf at 0, NaN below. PyTorch's denominators drop
  Cephes' leading 1 (a relative 2e-8 at x = 5): so do these.
- modified_bessel_k0/k1: Chebyshev series in x^2 - 2 (with log(x/2) I(x)) on (0, 2] and in
  8/x - 2 (times e^-x / sqrt(x)) above; inf at 0, NaN below. The scaled forms are e^x K(x).
- airy_ai: the Maclaurin series on [-2.09, 2.09), the rational asymptotic forms beyond; 0 above
  103.892, NaN at +-inf."""
from __future__ import annotations

import math

from . import _math as M
from . import _special_more_values as W
from ._special_more_values import _chebyshev, _hankel, _poly, bessel_j0, bessel_j1, i0, i1
from .functional import where

_TWO_OVER_PI = 0.636619772367581343075535053490057448

# bessel_j0's Hankel coefficients serve y0 too (and j1's y1): Y is the same form a quarter period on.
_J0_HANKEL = (W._J0_PP, W._J0_PQ, W._J0_QP, W._J0_QQ)
_J1_HANKEL = (W._J1_PP, W._J1_PQ, W._J1_QP, W._J1_QQ)
_Y0_P = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
         -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
         4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_Q = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
         8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
         2.50596256172653059228e+17)
_Y1_P = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
         -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_Q = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
         1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
         6.87141087355300489866e+16, 3.97270608116560655612e+18)


def _near_and_far(x, split: float, far_at: float):
    """x where x <= split (else split / 2) and x where it is above (else far_at): each branch
    stays finite where the other is chosen."""
    near = x <= split
    return near, where(near & (x > 0), x, split / 2), where(near, far_at, x)


def bessel_y0(x):
    near, a, b = _near_and_far(x, 5.0, 6.0)
    z = a * a
    small = _poly(_Y0_P, z) / _poly(_Y0_Q, z) + _TWO_OVER_PI * a.log() * bessel_j0(a)
    y = where(near, small, _hankel(b, *_J0_HANKEL, math.pi / 4 + math.pi / 2))
    return where(x == 0, -math.inf, where(x < 0, math.nan, y))


def bessel_y1(x):
    near, a, b = _near_and_far(x, 5.0, 6.0)
    z = a * a
    small = a * (_poly(_Y1_P, z) / _poly(_Y1_Q, z)) + _TWO_OVER_PI * (bessel_j1(a) * a.log() - 1 / a)
    y = where(near, small, _hankel(b, *_J1_HANKEL, 3 * math.pi / 4 + math.pi / 2))
    return where(x == 0, -math.inf, where(x < 0, math.nan, y))


_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)


def _modified_k(x, order: int, scaled: bool):
    """K0 or K1 (e^x K with scaled): inf at 0, NaN below 0 and at NaN, 0 at inf."""
    near, a, b = _near_and_far(x, 2.0, 3.0)
    if order == 0:
        small = _chebyshev(_K0_A, a * a - 2) - (0.5 * a).log() * i0(a)
        large = _chebyshev(_K0_B, 8 / b - 2) / b.sqrt()
    else:
        small = (0.5 * a).log() * i1(a) + _chebyshev(_K1_A, a * a - 2) / a
        large = _chebyshev(_K1_B, 8 / b - 2) / b.sqrt()
    y = where(near, small * a.exp(), large) if scaled else where(near, small, (-b).exp() * large)
    return where(x == 0, math.inf, where(x < 0, math.nan, y))


def modified_bessel_k0(x):
    return _modified_k(x, 0, False)


def modified_bessel_k1(x):
    return _modified_k(x, 1, False)


def scaled_modified_bessel_k0(x):
    return _modified_k(x, 0, True)


def scaled_modified_bessel_k1(x):
    return _modified_k(x, 1, True)


_AI_N = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
         1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
         1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AI_D = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
         1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
         1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AI_FN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
          -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
          -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AI_FD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
          9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
          4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AI_GN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
          9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
          5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
          8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AI_GD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
          5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
          4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
          4.91834570062930015649e-09)
_INV_SQRT_PI = 5.64189583547756286948e-01
# Terms of the Maclaurin series: on [-2.09, 2.09] the 16th is below 1e-30 of the sum.
_AI_SERIES_TERMS = 16


def _airy_series(x):
    """c1 f(x) - c2 g(x), each series summed until its term is below float64 epsilon of f, as
    PyTorch's loop (x within [-2.09, 2.09])."""
    f, g, m, n = x * 0 + 1, x, x * 0 + 1, x
    z = x * x * x
    going = x == x
    k = 1.0
    for _ in range(_AI_SERIES_TERMS):
        m = m * z / (k + 1) / (k + 2)
        n = n * z / (k + 2) / (k + 3)
        k += 3
        f, g = where(going, f + m, f), where(going, g + n, g)
        going = going & ((m / f).abs() > 2.220446049250313e-16)
    return 0.355028053887817239260 * f - 0.258819403792806798405 * g


def airy_ai(x):
    low, high = x < -2.09, x >= 2.09
    s = where(low, -x, 3.0).sqrt()
    zeta = 2 * where(low, -x, 3.0) * s / 3  # for x < -2.09
    z = 1 / zeta
    zz = z * z
    t = zeta + 0.25 * math.pi
    oscillating = _INV_SQRT_PI / s.sqrt() * (t.sin() * (1 + zz * _poly(_AI_FN, zz) / _poly(_AI_FD, zz))
                                             - t.cos() * (z * _poly(_AI_GN, zz) / _poly(_AI_GD, zz)))
    xh = where(high & (x <= 103.892), x, 3.0)
    zeta_h = 2 * xh * xh.sqrt() / 3
    decaying = _INV_SQRT_PI * (_poly(_AI_N, 1 / zeta_h) / _poly(_AI_D, 1 / zeta_h)) / (2 * xh.sqrt().sqrt() * zeta_h.exp())
    y = where(low, oscillating, where(high, decaying, _airy_series(where(low | high, 0.0, x))))
    return where(M.isinf(x), math.nan, where(x > 103.892, 0.0, y))
