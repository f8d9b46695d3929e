"""VonMises and GeneralizedPareto without torch: VonMises' density against the exact Bessel series
(torch's polynomial approximation is good to about 1e-7), its variance 1 - I1/I0, draws on
[-pi, pi) with the right circular mean and resultant length; GeneralizedPareto against its closed
forms (c = 0 is the shifted Exponential, c < 0 a bounded support); finite-difference gradients of
log_prob, cdf and rsample (docs/distributions.md)."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _bessel(k, order):
    return sum((k / 2) ** (2 * j + order) / (math.factorial(j) * math.factorial(j + order)) for j in range(60))


K = np.array([0.3, 2.0, 3.75, 8.0])
LOC = np.array([0.5, -1.0, 2.5, 0.0])
X = np.array([0.1, -2.0, 3.0, 0.2])


def test_von_mises_density_and_variance():
    d = D.VonMises(T(LOC), T(K))
    want = K * np.cos(X - LOC) - math.log(2 * math.pi) - np.log([_bessel(k, 0) for k in K])
    np.testing.assert_allclose(d.log_prob(T(X)).numpy(), want, rtol=1e-6, atol=1e-6)
    ratio = np.array([_bessel(k, 1) / _bessel(k, 0) for k in K])
    np.testing.assert_allclose(d.variance.numpy(), 1 - ratio, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d.mean.numpy(), LOC)
    np.testing.assert_allclose(d.mode.numpy(), LOC)
    assert not d.has_rsample and d.batch_shape == (4,)
    with pytest.raises(Exception):
        d.rsample()
    # the density integrates to 1 over one turn
    grid = np.linspace(-math.pi, math.pi, 20001)
    dens = np.exp(D.VonMises(T(LOC[:, None]), T(K[:, None])).log_prob(T(grid)).numpy())
    np.testing.assert_allclose(np.trapezoid(dens, grid, axis=-1), 1.0, rtol=1e-6)


def test_von_mises_draws():
    gg.manual_seed(0)
    d = D.VonMises(T(LOC), T(K))
    x = d.sample((20000,)).numpy()
    assert x.shape == (20000, 4) and x.dtype == np.float64
    assert (x >= -math.pi).all() and (x < math.pi).all()
    resultant = np.exp(1j * x).mean(0)
    ratio = np.array([_bessel(k, 1) / _bessel(k, 0) for k in K])
    np.testing.assert_allclose(np.abs(resultant), ratio, atol=0.02)
    np.testing.assert_allclose(np.angle(resultant * np.exp(-1j * LOC)), 0.0, atol=0.05)
    assert D.VonMises(T(LOC), T(K)).expand((3, 4)).sample((2,)).shape == (2, 3, 4)
    f32 = D.VonMises(gg.tensor([0.0]), gg.tensor([1.0])).sample((5,))
    assert f32.dtype == gg.float32


C = np.array([0.0, 0.4, -0.5, 1.2])
SCALE = np.array([1.0, 2.0, 0.5, 1.5])
Z = np.array([0.7, 1.3, 0.9, 4.0])  # (x - loc) / scale; inside the c = -0.5 support (z < 2)


def test_generalized_pareto_closed_forms():
    d = D.GeneralizedPareto(T(LOC), T(SCALE), T(C))
    x = LOC + SCALE * Z
    surv = np.where(C == 0, np.exp(-Z), (1 + C * Z) ** (-1 / np.where(C == 0, 1, C)))
    dens = np.where(C == 0, np.exp(-Z), (1 + C * Z) ** (-1 / np.where(C == 0, 1, C) - 1)) / SCALE
    np.testing.assert_allclose(d.log_prob(T(x)).numpy(), np.log(dens), rtol=1e-12)
    np.testing.assert_allclose(d.cdf(T(x)).numpy(), 1 - surv, rtol=1e-12)
    np.testing.assert_allclose(d.log_survival_function(T(x)).numpy(), np.log(surv), rtol=1e-12)
    np.testing.assert_allclose(d.icdf(T(1 - surv)).numpy(), x, rtol=1e-10)
    mean = np.where(C < 1, LOC + SCALE / (1 - np.minimum(C, 0.5)), np.nan)
    var = np.where(C < 0.5, SCALE ** 2 / ((1 - C) ** 2 * (1 - 2 * C)), np.nan)
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), np.log(SCALE) + C + 1, rtol=1e-12)
    np.testing.assert_allclose(d.support.upper_bound.numpy(), [np.inf, np.inf, LOC[2] + 2 * SCALE[2], np.inf])
    assert d.has_rsample and set(d.arg_constraints) == {"loc", "scale", "concentration"}


def test_generalized_pareto_draws():
    gg.manual_seed(1)
    d = D.GeneralizedPareto(T(LOC[:3]), T(SCALE[:3]), T([0.0, 0.2, -0.5]))
    x = d.sample((40000,)).numpy()
    assert (x >= LOC[:3]).all() and (x[:, 2] <= LOC[2] + 2 * SCALE[2]).all()
    assert np.all(np.abs(x.mean(0) - d.mean.numpy()) < 6 * np.sqrt(d.variance.numpy() / 40000))


def test_gradients_match_finite_differences():
    def von_mises(loc, k):
        return D.VonMises(loc, k).log_prob(T(X)) + D.VonMises(loc, k).variance

    def pareto(loc, scale, c):
        d = D.GeneralizedPareto(loc, scale, c)
        return d.log_prob(T(LOC + SCALE * Z)) + d.cdf(T(LOC + SCALE * Z)) + d.entropy()

    def pareto_rsample(loc, scale, c):
        gg.manual_seed(2)
        return D.GeneralizedPareto(loc, scale, c).rsample((3,))

    assert gg.debug.gradcheck(von_mises, [LOC, K + 0.1])  # not at 3.75, where the approximation switches
    assert gg.debug.gradcheck(pareto, [LOC, SCALE, C + 0.1])
    assert gg.debug.gradcheck(pareto_rsample, [LOC, SCALE, C + 0.1])
