"""LKJCholesky without torch: for dim 2 the density of r = L_21 is (1 - r^2)^(eta - 1) over
sqrt(pi) Gamma(eta) / Gamma(eta + 1/2) (it integrates to 1); draws are Cholesky factors of
correlation matrices whose off-diagonal correlations have the LKJ marginal variance
1 / (2 eta + dim - 1); finite-difference gradient of log_prob in the concentration."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _factor(r):
    return np.stack([np.stack([np.ones_like(r), np.zeros_like(r)], -1),
                     np.stack([r, np.sqrt(1 - r * r)], -1)], -2)


@pytest.mark.parametrize("eta", [0.5, 1.0, 2.5])
def test_dim_two_density(eta):
    r = np.array([-0.7, 0.0, 0.3, 0.95])
    got = D.LKJCholesky(2, T(eta)).log_prob(T(_factor(r))).numpy()
    want = (eta - 1) * np.log1p(-r * r) - (0.5 * math.log(math.pi) + math.lgamma(eta) - math.lgamma(eta + 0.5))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    grid = np.linspace(-1, 1, 400001)[1:-1]
    dens = np.exp(D.LKJCholesky(2, T(eta)).log_prob(T(_factor(grid))).numpy())
    np.testing.assert_allclose(np.trapezoid(dens, grid), 1.0, rtol=2e-3)


def test_draws_are_correlation_factors_with_the_lkj_marginal():
    gg.manual_seed(0)
    eta = np.array([0.5, 1.0, 3.0])
    d = D.LKJCholesky(4, T(eta))
    assert d.batch_shape == (3,) and d.event_shape == (4, 4) and not d.has_rsample
    x = d.sample((4000,))
    assert x.shape == (4000, 3, 4, 4) and bool(D.constraints.corr_cholesky.check(x).all())
    corr = (x @ x.mT).numpy()
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    want = 1 / (2 * eta + 3)
    for i, j in ((1, 0), (3, 1), (2, 0), (3, 2)):  # every pair: LKJ is exchangeable
        np.testing.assert_allclose(corr[:, :, i, j].var(0), want, rtol=0.12)
    assert D.LKJCholesky(3).sample().shape == (3, 3) and D.LKJCholesky(3, T(eta)).expand((2, 3)).batch_shape == (2, 3)
    assert d.support is D.constraints.corr_cholesky and set(d.arg_constraints) == {"concentration"}
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        D.LKJCholesky(1)


def test_log_prob_gradient_matches_finite_differences():
    gg.manual_seed(1)
    x = D.LKJCholesky(4, T([1.5, 2.0])).sample((3,))
    assert gg.debug.gradcheck(lambda eta: D.LKJCholesky(4, eta).log_prob(x), [np.array([1.5, 2.0])])
