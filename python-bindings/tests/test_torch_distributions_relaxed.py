"""RelaxedBernoulli, RelaxedOneHotCategorical and OneHotCategoricalStraightThrough against
torch.distributions on the same float64 parameters: shapes, log_prob and its gradients to the
logits and the temperature, and draws' statistics. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import log_prob_and_backward_match

torch = pytest.importorskip("torch")
TD = torch.distributions

_rng = np.random.default_rng(17)
LG = _rng.standard_normal((2, 3))
SIMPLEX = _rng.dirichlet(np.ones(3), 2)
UNIT = _rng.uniform(0.05, 0.95, (2, 3))

CASES = {
    "RelaxedBernoulli": (lambda L, t, lg: L.RelaxedBernoulli(t, logits=lg), UNIT),
    "RelaxedBernoulliP": (lambda L, t, lg: L.RelaxedBernoulli(t, probs=lg.sigmoid()), UNIT),
    "RelaxedOneHotCategorical": (lambda L, t, lg: L.RelaxedOneHotCategorical(t, logits=lg), SIMPLEX),
    "RelaxedOneHotCategoricalP": (lambda L, t, lg: L.RelaxedOneHotCategorical(t, probs=lg.softmax(-1)), SIMPLEX),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_gradients_match_torch(name):
    make, value = CASES[name]
    t, lg = gg.tensor(0.7, dtype=gg.float64, requires_grad=True), gg.tensor(LG, requires_grad=True)
    tt, tlg = torch.tensor(0.7, dtype=torch.float64, requires_grad=True), torch.tensor(LG, requires_grad=True)
    ours, theirs = make(D, t, lg), make(TD, tt, tlg)
    log_prob_and_backward_match(ours, theirs, value, torch)
    np.testing.assert_allclose(lg.grad.numpy(), tlg.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-9, atol=1e-12)
    gg.manual_seed(3)
    x = ours.rsample((20000,))
    assert x.shape == (20000, 2, 3) and x.requires_grad
    # medians of the two samples agree within a few standard errors of a median
    want = theirs.sample((20000,)).numpy()
    spread = np.subtract(*np.percentile(want, [75, 25], axis=0))
    assert np.all(np.abs(np.median(x.detach().numpy(), 0) - np.median(want, 0)) < 6 * spread / np.sqrt(20000) + 1e-3)


def test_straight_through_matches_torch():
    ours = D.OneHotCategoricalStraightThrough(logits=gg.tensor(LG, requires_grad=True))
    theirs = TD.OneHotCategoricalStraightThrough(logits=torch.tensor(LG))
    assert ours.has_rsample and theirs.has_rsample
    v = np.eye(3)[[1, 2]]
    np.testing.assert_allclose(ours.log_prob(gg.tensor(v)).detach().numpy(),
                               theirs.log_prob(torch.tensor(v)).numpy(), rtol=1e-12)
