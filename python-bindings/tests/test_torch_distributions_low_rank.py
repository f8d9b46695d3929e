"""LowRankMultivariateNormal against torch.distributions (float64): shapes with broadcast batch axes,
log_prob and its gradients to loc, cov_factor and cov_diag, entropy, the derived matrices, expand,
rsample from the same normal draws, and the three KL pairs with MultivariateNormal. Skipped
without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import matching_pair

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(5)
LOC = rng.standard_normal((2, 4))
W = rng.standard_normal((3, 1, 4, 2))
DIAG = rng.uniform(0.5, 1.5, (4,))
V = rng.standard_normal((5, 3, 2, 4))


def _close(got, want, what=""):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-11, err_msg=what)


def _both(requires_grad=False):
    ours_p = [gg.tensor(x, requires_grad=requires_grad) for x in (LOC, W, DIAG)]
    theirs_p = [torch.tensor(x, requires_grad=requires_grad) for x in (LOC, W, DIAG)]
    return ours_p, theirs_p, D.LowRankMultivariateNormal(*ours_p), TD.LowRankMultivariateNormal(*theirs_p)


def test_values_and_gradients_match_torch():
    ours, theirs = matching_pair(D.LowRankMultivariateNormal, TD.LowRankMultivariateNormal, (LOC, W, DIAG), V, torch,
                                 rtol=1e-9)
    assert ours.batch_shape == (3, 2) and ours.event_shape == (4,)
    for name in ("mean", "mode", "variance", "stddev", "covariance_matrix", "precision_matrix", "scale_tril",
                 "cov_factor", "cov_diag", "loc"):
        _close(getattr(ours, name), getattr(theirs, name), name)
    _close(ours.entropy(), theirs.entropy(), "entropy")
    big = ours.expand((2, 3, 2))
    assert big.batch_shape == (2, 3, 2) and big.sample((2,)).shape == (2, 2, 3, 2, 4)
    _close(big.log_prob(gg.tensor(V[0])), theirs.expand((2, 3, 2)).log_prob(torch.tensor(V[0])), "expand")


def test_rsample_shapes_and_gradients():
    ours_p, theirs_p, ours, theirs = _both(requires_grad=True)
    gg.manual_seed(0)
    x = ours.rsample((6,))
    assert x.shape == (6, 3, 2, 4)
    gg.manual_seed(0)
    eps_w = gg.randn(6, 3, 2, 2, dtype=gg.float64)
    eps_d = gg.randn(6, 3, 2, 4, dtype=gg.float64)
    tw, td = torch.tensor(eps_w.numpy()), torch.tensor(eps_d.numpy())
    want = theirs_p[0] + (theirs_p[1] @ tw.unsqueeze(-1)).squeeze(-1) + theirs_p[2].sqrt() * td
    _close(x, want, "rsample")
    x.sum().backward()
    want.sum().backward()
    for g, t in zip(ours_p, theirs_p):
        _close(g.grad, t.grad, "d rsample")


def test_kl_pairs_match_torch():
    _, _, p, tp = _both()
    W2, D2, L2 = rng.standard_normal((2, 4, 3)), rng.uniform(0.5, 2.0, (2, 4)), rng.standard_normal(4)
    S = rng.standard_normal((4, 4))
    S = S @ S.T + 4 * np.eye(4)
    q = D.LowRankMultivariateNormal(gg.tensor(L2), gg.tensor(W2), gg.tensor(D2))
    tq = TD.LowRankMultivariateNormal(torch.tensor(L2), torch.tensor(W2), torch.tensor(D2))
    m, tm = D.MultivariateNormal(gg.tensor(L2), gg.tensor(S)), TD.MultivariateNormal(torch.tensor(L2), torch.tensor(S))
    _close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), "lowrank-lowrank")
    _close(D.kl_divergence(m, q), TD.kl_divergence(tm, tq), "mvn-lowrank")
    _close(D.kl_divergence(p, m), TD.kl_divergence(tp, tm), "lowrank-mvn")


def test_constructor_errors_match_torch():
    for args in ((LOC[0, 0], W, DIAG), (LOC, W[..., :3, :], DIAG), (LOC, W, DIAG[:3]), (LOC, W[0, 0, 0], DIAG)):
        with pytest.raises(ValueError):
            TD.LowRankMultivariateNormal(*(torch.tensor(a) for a in args))
        with pytest.raises(ValueError):
            D.LowRankMultivariateNormal(*(gg.tensor(a) for a in args))
