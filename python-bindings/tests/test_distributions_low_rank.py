"""LowRankMultivariateNormal without torch: it equals MultivariateNormal with covariance
W W^T + diag(D) (log_prob, entropy, precision, KL), a zero factor gives independent Normals, the
draws have that covariance, and float64 finite-difference gradients of log_prob and rsample."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

rng = np.random.default_rng(8)
LOC = rng.standard_normal(3)
W = rng.standard_normal((2, 3, 2))
DIAG = rng.uniform(0.5, 1.5, 3)
V = rng.standard_normal((4, 2, 3))


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _close(a, b, rtol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), np.asarray(b.detach().numpy() if hasattr(b, "detach") else b),
                               rtol=rtol, atol=1e-12)


def test_equals_the_full_covariance_normal():
    d = D.LowRankMultivariateNormal(T(LOC), T(W), T(DIAG))
    cov = W @ np.swapaxes(W, -1, -2) + np.diag(DIAG)
    full = D.MultivariateNormal(T(LOC), covariance_matrix=T(cov))
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.has_rsample
    _close(d.log_prob(T(V)), full.log_prob(T(V)))
    _close(d.entropy(), full.entropy())
    _close(d.covariance_matrix, cov)
    _close(d.precision_matrix, np.linalg.inv(cov), rtol=1e-9)
    _close(d.scale_tril, np.linalg.cholesky(cov))
    _close(d.variance, np.diagonal(cov, axis1=-2, axis2=-1))
    other = D.LowRankMultivariateNormal(T(LOC[::-1].copy()), T(W[::-1].copy()), T(DIAG * 2))
    other_full = D.MultivariateNormal(other.loc, covariance_matrix=other.covariance_matrix)
    _close(D.kl_divergence(d, other), D.kl_divergence(full, other_full), rtol=1e-9)
    _close(D.kl_divergence(full, other), D.kl_divergence(full, other_full), rtol=1e-9)
    _close(D.kl_divergence(d, other_full), D.kl_divergence(full, other_full), rtol=1e-9)


def test_a_zero_factor_is_independent_normals():
    d = D.LowRankMultivariateNormal(T([0.0, 1.0]), T([[0.0], [0.0]]), T([1.0, 4.0]))
    x = np.array([0.5, -1.0])
    want = sum(-0.5 * ((xi - m) ** 2) / v - 0.5 * math.log(2 * math.pi * v) for xi, m, v in zip(x, [0, 1], [1, 4]))
    np.testing.assert_allclose(d.log_prob(T(x)).item(), want, rtol=1e-12)
    np.testing.assert_allclose(d.entropy().item(), 0.5 * (2 * (1 + math.log(2 * math.pi)) + math.log(4.0)),
                               rtol=1e-12)


def test_draws_have_the_covariance():
    gg.manual_seed(0)
    d = D.LowRankMultivariateNormal(T(LOC), T(W[0]), T(DIAG))
    x = d.sample((40000,)).numpy()
    assert x.shape == (40000, 3)
    cov = W[0] @ W[0].T + np.diag(DIAG)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.1)
    np.testing.assert_allclose(x.mean(0), LOC, atol=6 * math.sqrt(cov.diagonal().max() / 40000))


def test_constructor_errors():
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 3 x m"):
        D.LowRankMultivariateNormal(T(LOC), T(W[:, :2]), T(DIAG))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(T(LOC), T(W), T(DIAG[:2]))
    with pytest.raises(ValueError, match="at least one-dimensional"):
        D.LowRankMultivariateNormal(T(1.0), T(W), T(DIAG))


def test_gradients_match_finite_differences():
    def log_prob(loc, w, diag):
        d = D.LowRankMultivariateNormal(loc, w, diag)
        return d.log_prob(T(V)) + d.entropy()

    def rsample(loc, w, diag):
        gg.manual_seed(3)
        return D.LowRankMultivariateNormal(loc, w, diag).rsample((2,))

    assert gg.debug.gradcheck(log_prob, [LOC, W, DIAG])
    assert gg.debug.gradcheck(rsample, [LOC, W, DIAG])
