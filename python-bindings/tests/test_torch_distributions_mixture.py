"""MixtureSameFamily and Multinomial against torch.distributions on the same float64 parameters:
shapes, log_prob and its gradients, mean, variance, cdf, expand, and the moments of many seeded
draws (within six standard errors). Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import log_prob_and_backward_match

torch = pytest.importorskip("torch")
TD = torch.distributions

_rng = np.random.default_rng(12)
W, M, S = _rng.standard_normal((2, 3)), _rng.standard_normal((2, 3)), _rng.uniform(0.5, 1.5, (2, 3))
M2 = _rng.standard_normal((2, 3, 2))

CASES = {
    "normal_mixture": (lambda L, w, m, s: L.MixtureSameFamily(L.Categorical(logits=w), L.Normal(m, s)),
                       _rng.standard_normal((4, 2)), True),
    "independent_mixture": (lambda L, w, m, s: L.MixtureSameFamily(
        L.Categorical(logits=w), L.Independent(L.Normal(m.unsqueeze(-1) + _t(L, M2), s.unsqueeze(-1)), 1)),
        _rng.standard_normal((4, 2, 2)), False),
    "multinomial": (lambda L, w, m, s: L.Multinomial(7, logits=w), np.array([[1.0, 2, 4], [0, 0, 7]]), False),
    "multinomial_probs": (lambda L, w, m, s: L.Multinomial(5, probs=s), np.array([[1.0, 0, 4], [2, 2, 1]]), False),
}


def _t(lib, x):
    return gg.tensor(x) if lib is D else torch.tensor(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    make, value, has_cdf = CASES[name]
    ours_p = [gg.tensor(x, requires_grad=True) for x in (W, M, S)]
    theirs_p = [torch.tensor(x, requires_grad=True) for x in (W, M, S)]
    ours, theirs = make(D, *ours_p), make(TD, *theirs_p)
    log_prob_and_backward_match(ours, theirs, value, torch)
    for g, t in zip((p.grad for p in ours_p), (p.grad for p in theirs_p)):
        if t is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    for prop in ("mean", "variance"):
        np.testing.assert_allclose(getattr(ours, prop).detach().numpy(), getattr(theirs, prop).detach().numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=prop)
    if has_cdf:
        np.testing.assert_allclose(ours.cdf(gg.tensor(value)).detach().numpy(),
                                   theirs.cdf(torch.tensor(value)).detach().numpy(), rtol=1e-10, atol=1e-12)
    big, tbig = ours.expand((3, 2)), theirs.expand((3, 2))
    assert big.batch_shape == (3, 2) and big.sample((2,)).shape == (2, 3, 2) + tuple(ours.event_shape)
    np.testing.assert_allclose(big.log_prob(gg.tensor(value[:1])).detach().numpy(),
                               tbig.log_prob(torch.tensor(value[:1])).detach().numpy(), rtol=1e-10, atol=1e-12)
    gg.manual_seed(7)
    n = 30000
    x = ours.sample((n,)).numpy()
    assert x.shape == (n,) + tuple(ours.batch_shape) + tuple(ours.event_shape)
    mean, var = theirs.mean.detach().numpy(), theirs.variance.detach().numpy()
    assert np.all(np.abs(x.mean(0) - mean) < 6 * np.sqrt(var / n) + 1e-12), (x.mean(0), mean)


def test_refusals_match_torch():
    for bad in (lambda L, t: L.MixtureSameFamily(L.Normal(t(M), t(S)), L.Normal(t(M), t(S))),
                lambda L, t: L.MixtureSameFamily(L.Categorical(logits=t(W[:, :2])), L.Normal(t(M), t(S)))):
        with pytest.raises(ValueError):
            bad(TD, torch.tensor)
        with pytest.raises(ValueError):
            bad(D, gg.tensor)
