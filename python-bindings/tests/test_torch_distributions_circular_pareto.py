"""VonMises and GeneralizedPareto against torch.distributions: log_prob and its gradients, variance,
mean, mode, entropy, cdf, icdf, log_survival_function, support and expand. torch's
GeneralizedPareto.log_prob compares with a float32 zero, so its float64 log_prob raises there:
those comparisons run in float32. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import matching_pair

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(12)
LOC = rng.standard_normal((2, 3))
K = np.array([[0.5, 3.7, 10.0], [1e-3, 3.8, 50.0]])
V = rng.uniform(-3, 3, (2, 3))
C = np.array([[0.0, -0.3, 0.4], [1e-9, 0.7, -1.0]])
SCALE = np.array([[1.0, 2.0, 0.5], [1.0, 1.5, 2.0]])


def _close(got, want, what="", rtol=1e-10):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=rtol * 1e-2, err_msg=what)


def test_von_mises_matches_torch():
    ours, theirs = matching_pair(D.VonMises, TD.VonMises, (LOC, K), V, torch)
    for name in ("mean", "mode", "variance"):
        _close(getattr(ours, name), getattr(theirs, name), name)
    _close(ours.expand((4, 2, 3)).log_prob(gg.tensor(V)), theirs.expand((4, 2, 3)).log_prob(torch.tensor(V)))
    assert type(ours.support).__name__.lstrip("_") == type(theirs.support).__name__.lstrip("_")


def test_von_mises_draws_match_torchs_moments():
    gg.manual_seed(0)
    torch.manual_seed(0)
    x = D.VonMises(gg.tensor(LOC), gg.tensor(K)).sample((20000,)).numpy()
    y = TD.VonMises(torch.tensor(LOC), torch.tensor(K)).sample((20000,)).numpy()
    np.testing.assert_allclose(np.abs(np.exp(1j * x).mean(0)), np.abs(np.exp(1j * y).mean(0)), atol=0.03)


def test_generalized_pareto_matches_torch():
    f32 = [np.asarray(a, np.float32) for a in (LOC, SCALE, C)]
    value = (LOC + np.abs(V) * 0.3).astype(np.float32)
    ours_p = [gg.tensor(x, requires_grad=True) for x in f32]
    theirs_p = [torch.tensor(x, requires_grad=True) for x in f32]
    ours, theirs = D.GeneralizedPareto(*ours_p), TD.GeneralizedPareto(*theirs_p)
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.has_rsample == theirs.has_rsample
    lp, tlp = ours.log_prob(gg.tensor(value)), theirs.log_prob(torch.tensor(value))
    _close(lp, tlp, "log_prob", rtol=1e-6)
    lp.sum().backward()
    tlp.sum().backward()
    for g, t in zip(ours_p, theirs_p):
        _close(g.grad, t.grad, "d log_prob", rtol=1e-5)
    for name in ("cdf", "log_cdf", "log_survival_function"):
        _close(getattr(ours, name)(gg.tensor(value)), getattr(theirs, name)(torch.tensor(value)), name, rtol=1e-5)
    _close(ours.support.upper_bound, theirs.support.upper_bound, "support", rtol=1e-6)


def test_generalized_pareto_float64_moments_and_icdf():
    ours = D.GeneralizedPareto(*(gg.tensor(x) for x in (LOC, SCALE, C)))
    theirs = TD.GeneralizedPareto(*(torch.tensor(x) for x in (LOC, SCALE, C)))
    for name in ("mean", "mode", "variance", "stddev"):
        _close(getattr(ours, name), getattr(theirs, name), name)
    _close(ours.entropy(), theirs.entropy(), "entropy")
    u = rng.uniform(0.01, 0.99, (2, 3))
    _close(ours.icdf(gg.tensor(u)), theirs.icdf(torch.tensor(u)), "icdf")
    big = ours.expand((5, 2, 3))
    assert big.batch_shape == (5, 2, 3) and big.rsample((2,)).shape == (2, 5, 2, 3)
