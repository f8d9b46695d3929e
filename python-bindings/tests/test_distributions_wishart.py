"""Wishart and the matrix constraints without torch: a 1 x 1 Wishart(df, [[s]]) is
Gamma(df / 2, rate 1 / (2 s)) (log_prob, entropy, mean, variance); the three matrix
parameterizations agree; draws are positive definite with mean df V; the Bregman entropy equals
the closed form; float64 finite-difference gradients of log_prob (df and the matrix) and of
rsample (the scale factor)."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions.exp_family import ExponentialFamily

C = D.constraints
rng = np.random.default_rng(6)
X = rng.standard_normal((2, 3, 3))
S = X @ np.swapaxes(X, -1, -2) + 3 * np.eye(3)
DF = np.array([4.5, 6.0])
Y = rng.standard_normal((4, 2, 3, 3))
V = Y @ np.swapaxes(Y, -1, -2) + np.eye(3)


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def test_one_by_one_is_a_gamma():
    df, s, x = np.array([3.0, 7.5]), np.array([0.5, 2.0]), np.array([1.2, 9.0])
    w = D.Wishart(T(df), covariance_matrix=T(s.reshape(2, 1, 1)))
    g = D.Gamma(T(df / 2), T(1 / (2 * s)))
    np.testing.assert_allclose(w.log_prob(T(x.reshape(2, 1, 1))).numpy(), g.log_prob(T(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.entropy().numpy(), g.entropy().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.mean.numpy().ravel(), g.mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.variance.numpy().ravel(), g.variance.numpy(), rtol=1e-12)


def test_parameterizations_agree_and_shapes():
    ws = [D.Wishart(T(DF), covariance_matrix=T(S)), D.Wishart(T(DF), precision_matrix=T(np.linalg.inv(S))),
          D.Wishart(T(DF), scale_tril=T(np.linalg.cholesky(S)))]
    for w in ws:
        assert w.batch_shape == (2,) and w.event_shape == (3, 3) and w.has_rsample
        np.testing.assert_allclose(w.log_prob(T(V)).numpy(), ws[0].log_prob(T(V)).numpy(), rtol=1e-10)
        np.testing.assert_allclose(w.precision_matrix.numpy(), np.linalg.inv(S), rtol=1e-10, atol=1e-13)
    w = ws[0]
    np.testing.assert_allclose(w.mean.numpy(), DF[:, None, None] * S, rtol=1e-12)
    np.testing.assert_allclose(w.mode.numpy(), (DF - 4)[:, None, None] * S, rtol=1e-12)  # (df - p - 1) V
    assert np.isnan(D.Wishart(T(3.5), covariance_matrix=T(S[0])).mode.numpy()).all()  # df <= p + 1: NaN
    np.testing.assert_allclose(ExponentialFamily.entropy(w).detach().numpy(), w.entropy().numpy(), rtol=1e-10)
    assert w.expand((5, 2)).log_prob(T(V[0])).shape == (5, 2)
    assert w.support is C.positive_definite and w.arg_constraints["df"].lower_bound == 2
    with pytest.raises(ValueError, match="greater than ndim - 1 = 2"):
        D.Wishart(T(2.0), covariance_matrix=T(S[0]))
    with pytest.raises(ValueError, match="Exactly one"):
        D.Wishart(T(4.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        D.Wishart(T(2.5), covariance_matrix=T(S[0]))
    assert any("Low df" in str(c.message) for c in caught)


def test_draws_are_positive_definite_with_mean_df_v():
    gg.manual_seed(0)
    w = D.Wishart(T(DF), covariance_matrix=T(S))
    x = w.sample((20000,))
    assert x.shape == (20000, 2, 3, 3) and bool(C.positive_definite.check(x).all())
    se = np.sqrt(w.variance.numpy() / 20000)
    assert np.all(np.abs(x.numpy().mean(0) - w.mean.numpy()) < 6 * se)


def test_matrix_constraints():
    pd, indefinite = S[0], np.array([[1.0, 2.0], [2.0, 1.0]])
    assert bool(C.positive_definite.check(T(pd))) and not bool(C.positive_definite.check(T(indefinite)))
    assert bool(C.positive_semidefinite.check(T(np.zeros((2, 2)))))
    assert not bool(C.symmetric.check(T([[1.0, 2.0], [0.0, 1.0]])))
    assert bool(C.lower_cholesky.check(T(np.linalg.cholesky(pd)))) and not bool(C.lower_cholesky.check(T(-np.eye(2))))
    assert bool(C.lower_triangular.check(T([[1.0, 0.0], [5.0, -1.0]])))
    assert bool(C.corr_cholesky.check(T([[1.0, 0.0], [0.6, 0.8]]))) and not bool(C.corr_cholesky.check(T(2 * np.eye(2))))
    assert C.square.check(T(np.zeros((4, 2, 3)))).shape == (4,) and not bool(C.square.check(T(np.zeros((2, 3)))))
    assert C.positive_definite.event_dim == 2


def test_gradients_match_finite_differences():
    def log_prob(df, x):
        cov = x @ x.transpose(-1, -2) + 3 * gg.eye(3, dtype=gg.float64)
        w = D.Wishart(df, covariance_matrix=cov)
        return w.log_prob(T(V)) + w.entropy()

    def rsample(x):
        gg.manual_seed(4)
        L = x.tril(-1) + gg.diag_embed(x.diagonal(0, -2, -1).exp())
        return D.Wishart(T(DF), scale_tril=L).rsample((2,))

    assert gg.debug.gradcheck(log_prob, [DF, X])
    assert gg.debug.gradcheck(rsample, [X * 0.3])
