"""Wishart and the matrix constraints against torch (float64): log_prob and its gradients to df and
the covariance, mean, mode, variance, entropy (closed and Bregman), the matrices of each
parameterization, expand, the KL of two Wisharts, draw means, and the constraints' checks. Skipped
without torch."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import matching_pair

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(13)
X = rng.standard_normal((2, 3, 3))
S = X @ np.swapaxes(X, -1, -2) + 3 * np.eye(3)
DF = np.array([4.5, 6.0])
Y = rng.standard_normal((4, 2, 3, 3))
V = Y @ np.swapaxes(Y, -1, -2) + np.eye(3)


def _close(got, want, what=""):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-11, err_msg=what)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_matches_torch(param):
    matrix = {"covariance_matrix": S, "precision_matrix": np.linalg.inv(S), "scale_tril": np.linalg.cholesky(S)}[param]

    def make(module):  # torch's cholesky_solve gives the unread upper triangle of L a gradient: read it as tril
        return lambda df, m: module.Wishart(df, **{param: m.tril() if param == "scale_tril" else m})

    ours, theirs = matching_pair(make(D), make(TD), (DF, matrix), V, torch, rtol=1e-8)
    for name in ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril", "df"):
        _close(getattr(ours, name), getattr(theirs, name), name)
    _close(ours.entropy(), theirs.entropy(), "entropy")
    _close(D.ExponentialFamily.entropy(ours), TD.ExponentialFamily.entropy(theirs), "Bregman entropy")
    _close(ours.expand((3, 2)).log_prob(gg.tensor(V[0])), theirs.expand((3, 2)).log_prob(torch.tensor(V[0])))


def test_kl_and_draws_match_torch():
    for i in range(2):  # unbatched: torch's Bregman KL sums df's term over batch axes
        p, tp = D.Wishart(gg.tensor(DF[i]), gg.tensor(S[i])), TD.Wishart(torch.tensor(DF[i]), torch.tensor(S[i]))
        q, tq = (D.Wishart(gg.tensor(DF[1 - i] + 1), gg.tensor(S[1 - i])),
                 TD.Wishart(torch.tensor(DF[1 - i] + 1), torch.tensor(S[1 - i])))
        _close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), "kl")
    gg.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TD.Wishart(torch.tensor(DF), torch.tensor(S))
    x = D.Wishart(gg.tensor(DF), gg.tensor(S)).sample((20000,)).numpy()
    se = np.sqrt(theirs.variance.numpy() / 20000)
    assert np.all(np.abs(x.mean(0) - theirs.mean.numpy()) < 6 * se)


def test_matrix_constraints_match_torch():
    cases = [S[0], np.array([[1.0, 2.0], [2.0, 1.0]]), np.zeros((2, 2)), np.array([[1.0, 2.0], [0.0, 1.0]]),
             np.linalg.cholesky(S[0]), -np.eye(2), np.array([[1.0, 0.0], [0.6, 0.8]]), 2 * np.eye(2), V]
    for name in ("positive_definite", "positive_semidefinite", "symmetric", "lower_cholesky", "lower_triangular",
                 "corr_cholesky", "square"):
        ours, theirs = getattr(D.constraints, name), getattr(TD.constraints, name)
        assert ours.event_dim == theirs.event_dim == 2
        for m in cases:
            np.testing.assert_array_equal(ours.check(gg.tensor(m)).numpy(), theirs.check(torch.tensor(m)).numpy(),
                                          err_msg=f"{name} {m}")
