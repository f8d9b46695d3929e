"""lgamma, digamma, polygamma, erfinv, erfc, mvlgamma against scipy.special in float64 over wide
ranges (negative non-integers, poles, infinities), float32 results, and float64 finite-difference
gradients (docs/special-functions.md)."""
import math

import numpy as np
import pytest

import glassgrad as gg

sp = pytest.importorskip("scipy.special")

# Relative 1e-12; absolute 1e-14 where the function crosses zero between the negative poles (no
# fixed-precision method keeps relative precision at a zero of the function; the positive zeros
# have their Taylor series: test_relative_precision_near_the_positive_zeros).
RTOL, ATOL = 1e-12, 1e-14


def _agree(ours, ref):
    ours = ours.numpy()
    same = (np.isnan(ours) & np.isnan(ref)) | (ours == ref)
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: `same` covers them
        close = np.abs(ours - ref) <= RTOL * np.abs(ref) + ATOL
    bad = ~(same | close)
    assert not bad.any(), list(zip(np.nonzero(bad)[0][:5], ours[bad][:5], ref[bad][:5]))


GAMMA_ARGS = np.concatenate([np.linspace(1e-3, 40, 4001), np.geomspace(40, 1e300, 300),
                             -np.linspace(1e-3, 60.3, 4001), [1e-300, -1e-300, 1.0, 2.0, 0.5, 1e5 + 0.5, -1e5 - 0.5]])
SPECIAL = np.array([0.0, -0.0, -1.0, -2.0, -30.0, np.inf, -np.inf, np.nan])


def test_lgamma_matches_scipy():
    x = np.concatenate([GAMMA_ARGS, SPECIAL])
    ref = sp.gammaln(x)
    ref[x == -np.inf] = np.inf  # PyTorch's (and C's) lgamma(-inf) = +inf; scipy says -inf
    _agree(gg.lgamma(gg.tensor(x)), ref)


def test_digamma_matches_scipy():
    x = np.concatenate([GAMMA_ARGS, [0.0, -0.0, -1.0, -3.0, np.inf, np.nan]])
    ref = sp.psi(x)
    ref[x == 0] = np.where(np.signbit(x[x == 0]), np.inf, -np.inf)  # PyTorch's signed infinities
    _agree(gg.digamma(gg.tensor(x)), ref)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_polygamma_matches_scipy(n):
    # Below -100 the reflection's cot(pi x) term, exact to 1e-15 * pi^(n+1) absolutely, outweighs
    # psi^(n)'s value ~ 1/|x|^n (scipy's value there is no closer: docs/special-functions.md).
    x = np.concatenate([GAMMA_ARGS[(GAMMA_ARGS > -100) & (GAMMA_ARGS < 1e6)], [np.inf]])
    _agree(gg.polygamma(n, gg.tensor(x)), sp.polygamma(n, x))
    poles = gg.polygamma(n, gg.tensor([0.0, -1.0, -4.0])).numpy()
    assert (poles == (math.inf if n % 2 else -math.inf)).all()


def test_erfc_matches_scipy():
    x = np.concatenate([np.linspace(-8, 26, 6001), [np.inf, -np.inf, np.nan]])
    _agree(gg.erfc(gg.tensor(x)), sp.erfc(x))


def test_erfinv_matches_scipy():
    tails = 1 - np.geomspace(1e-16, 0.5, 400)
    x = np.concatenate([np.linspace(-1, 1, 4001), tails, -tails, [1e-300, 0.0, 1.5, -3.0, np.nan]])
    _agree(gg.erfinv(gg.tensor(x)), sp.erfinv(x))


def test_mvlgamma_matches_scipy():
    x = np.linspace(2.1, 30, 50)
    for p in (1, 2, 5):
        _agree(gg.mvlgamma(gg.tensor(x), p), np.array([sp.multigammaln(v, p) for v in x]))
    # below (p - 1)/2 the sum of lgamma's, unchecked, as PyTorch 2's: inf at a pole of one term,
    # lgamma's log|Gamma| elsewhere
    p3 = 3 / 2 * np.log(np.pi)
    got = gg.mvlgamma(gg.tensor([1.0, 0.75, 0.5]), 3).numpy()
    want = [np.inf, p3 + sp.gammaln(0.75) + sp.gammaln(0.25) + np.log(abs(sp.gamma(-0.25))),
            p3 + sp.gammaln(0.5) + np.inf]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_dtypes_methods_and_in_place_forms():
    x32 = gg.tensor([0.3, 2.5, -1.7])
    assert gg.lgamma(x32).dtype == gg.float32
    np.testing.assert_allclose(gg.lgamma(x32).numpy(), sp.gammaln(x32.numpy().astype(np.float64)), rtol=1e-6)
    assert gg.digamma(gg.tensor([1, 2])).dtype == gg.float32  # integers give the default float
    np.testing.assert_allclose(x32.polygamma(1).numpy(), sp.polygamma(1, x32.numpy().astype(np.float64)), rtol=1e-6)
    for name, ref in (("lgamma", sp.gammaln), ("digamma", sp.psi), ("erfc", sp.erfc)):
        y = gg.tensor([0.3, 2.5], dtype=gg.float64)
        getattr(y, name + "_")()
        np.testing.assert_allclose(y.numpy(), ref(np.array([0.3, 2.5])), rtol=1e-12)
    y = gg.tensor([0.3, -0.5], dtype=gg.float64)
    y.erfinv_()
    np.testing.assert_allclose(y.numpy(), sp.erfinv([0.3, -0.5]), rtol=1e-12)
    y = gg.tensor([0.3], dtype=gg.float64)
    y.polygamma_(2)
    np.testing.assert_allclose(y.numpy(), sp.polygamma(2, [0.3]), rtol=1e-12)


GRADS = [
    ("lgamma", gg.lgamma, [0.3, 2.5, -1.3, 7.0, -4.6]),
    ("digamma", gg.digamma, [0.3, 2.5, -1.3, 7.0, -4.6]),
    ("polygamma1", lambda t: gg.polygamma(1, t), [0.3, 2.5, -1.3, 7.0]),
    ("polygamma3", lambda t: gg.polygamma(3, t), [0.3, 2.5, -1.3, 7.0]),
    ("erfinv", gg.erfinv, [-0.9, -0.2, 0.0, 0.5, 0.99]),
    ("erfc", gg.erfc, [-1.5, 0.2, 1.9, 2.1, 4.0]),
    ("mvlgamma", lambda t: gg.mvlgamma(t, 3), [1.5, 2.5, 4.0]),
    ("composed", lambda t: gg.lgamma(t * t + 1) * gg.erfinv(t / 4), [0.3, -1.2, 2.0]),
]


@pytest.mark.parametrize("name,fn,x", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_finite_differences(name, fn, x):
    assert gg.debug.gradcheck(fn, [np.array(x)])


def test_relative_precision_near_the_positive_zeros():
    """Within 0.2 of lgamma's zeros 1 and 2 and of digamma's root, the Taylor series keep relative
    precision (a fixed-precision formula keeps only absolute precision there); mpmath's 30 digits
    as the reference."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    d = np.concatenate([np.geomspace(1e-15, 0.21, 60), -np.geomspace(1e-15, 0.21, 60)])
    root = 1.4616321449683622
    for fn, ref, points in ((gg.lgamma, mp.loggamma, np.concatenate([1 + d, 2 + d])), (gg.digamma, mp.digamma, root + d)):
        want = np.array([float(ref(mp.mpf(float(v)))) for v in points])
        got = fn(gg.tensor(points)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_incomplete_gamma_matches_scipy():
    """Relative 1e-13, plus 4e-16 * (a |log x| + x + |lgamma(a)|): the prefactor
    exp(a log x - x - lgamma(a)) inherits the rounding of its exponent."""
    x = np.concatenate([[0.0], np.geomspace(1e-4, 3000, 300), [np.inf]])
    for a in (0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 200.0, 1000.0):
        at = gg.tensor(np.full_like(x, a))
        for ours, ref in ((gg.igamma(at, gg.tensor(x)), sp.gammainc(a, x)), (gg.igammac(at, gg.tensor(x)),
                                                                            sp.gammaincc(a, x))):
            got = ours.numpy()
            keep = ref > 1e-280  # far from underflow, where float64 keeps its relative precision
            with np.errstate(divide="ignore"):
                scale = 1e-13 + 4e-16 * (a * np.abs(np.log(x[keep])) + x[keep] + abs(math.lgamma(a)))
            assert (np.abs(got[keep] - ref[keep]) <= scale * ref[keep]).all(), a
            assert (got[~keep] < 1e-270).all()


def test_incomplete_gamma_gradient():
    a = np.array([0.5, 2.5, 10.0])
    assert gg.debug.gradcheck(lambda t: gg.igamma(gg.tensor(a, dtype=gg.float64), t) +
                              gg.igammac(gg.tensor(a[::-1].copy(), dtype=gg.float64), t), [np.array([0.3, 3.0, 8.0])])
    with pytest.raises(gg.UnsupportedError, match="not implemented"):
        at = gg.tensor(a, requires_grad=True)
        gg.igamma(at, gg.tensor([1.0, 2.0, 3.0], dtype=gg.float64)).sum().backward()
