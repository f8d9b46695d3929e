"""ContinuousBernoulli and the ExponentialFamily base against torch.distributions (float64):
log_prob and its gradients, cdf, icdf, mean, variance, entropy (closed and Bregman), KL pairs with
a ContinuousBernoulli, and the Bregman KL of two members of one family. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import log_prob_and_backward_match

torch = pytest.importorskip("torch")
TD = torch.distributions

P = np.array([[0.1, 0.4995, 0.7], [0.3, 0.5, 0.99]])
V = np.array([[0.2, 0.5, 0.9], [0.0, 1.0, 0.3]])


def _close(got, want, what=""):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_continuous_bernoulli_matches_torch(param):
    values = P if param == "probs" else np.log(P / (1 - P))
    x, tx = gg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    ours, theirs = D.ContinuousBernoulli(**{param: x}), TD.ContinuousBernoulli(**{param: tx})
    log_prob_and_backward_match(ours, theirs, V, torch)
    _close(x.grad, tx.grad, "d log_prob")
    for name in ("mean", "variance", "stddev", "probs", "logits"):
        _close(getattr(ours, name), getattr(theirs, name), name)
    _close(ours.cdf(gg.tensor(V)), theirs.cdf(torch.tensor(V)), "cdf")
    _close(ours.icdf(gg.tensor(V)), theirs.icdf(torch.tensor(V)), "icdf")
    _close(ours.entropy(), theirs.entropy(), "entropy")
    _close(D.ExponentialFamily.entropy(ours), TD.ExponentialFamily.entropy(theirs), "Bregman entropy")
    assert ours.param_shape == tuple(theirs.param_shape)
    big, tbig = ours.expand((4, 2, 3)), theirs.expand((4, 2, 3))
    _close(big.log_prob(gg.tensor(V)), tbig.log_prob(torch.tensor(V)), "expanded log_prob")


def test_rsample_is_the_icdf_of_its_uniform():
    logits = np.log(P / (1 - P))
    x, tx = gg.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    gg.manual_seed(2)
    draw = D.ContinuousBernoulli(logits=x).rsample((4,))
    gg.manual_seed(2)
    u = gg.rand(4, 2, 3, dtype=gg.float64)
    want = TD.ContinuousBernoulli(logits=tx).icdf(torch.tensor(u.numpy()))
    _close(draw, want, "rsample")
    draw.sum().backward()
    want.sum().backward()
    _close(x.grad, tx.grad, "d rsample")


Q = np.array([0.3, 0.6, 0.9])



KL = {
    "cb_cb": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.ContinuousBernoulli(t(Q[::-1].copy()))),
    "beta_cb": (lambda m, t: m.Beta(t(Q + 1), t(Q + 0.5)), lambda m, t: m.ContinuousBernoulli(t(Q))),
    "cb_normal": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.Normal(t(Q), t(Q))),
    "cb_uniform": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.Uniform(t(Q - 1), t(Q + 1))),
    "cb_uniform_inf": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.Uniform(t(Q - 1), t(Q + 0.05))),
    "uniform_cb": (lambda m, t: m.Uniform(t(Q * 0.1), t(Q)), lambda m, t: m.ContinuousBernoulli(t(Q))),
    "cb_exponential": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.Exponential(t(Q))),
    "cb_pareto": (lambda m, t: m.ContinuousBernoulli(t(Q)), lambda m, t: m.Pareto(t(Q), t(Q))),
    "normal_cb": (lambda m, t: m.Normal(t(Q), t(Q)), lambda m, t: m.ContinuousBernoulli(t(Q))),
    "gamma_cb": (lambda m, t: m.Gamma(t(Q), t(Q)), lambda m, t: m.ContinuousBernoulli(t(Q))),
    "bernoulli_bernoulli_bregman": (lambda m, t: m.Bernoulli(t(Q)), lambda m, t: m.Bernoulli(t(Q[::-1].copy()))),
}


@pytest.mark.parametrize("name", sorted(KL))
def test_kl_pairs_match_torch(name):
    make_p, make_q = KL[name]
    p, q = make_p(D, gg.tensor), make_q(D, gg.tensor)
    tp, tq = make_p(TD, torch.tensor), make_q(TD, torch.tensor)
    _close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), name)


def test_bregman_kl_matches_torchs_for_one_family():
    from glassgrad.distributions.kl import _kl_expfamily_expfamily
    from torch.distributions.kl import _kl_expfamily_expfamily as torch_bregman
    a, b = np.array([2.0, 0.7]), np.array([1.2, 3.0])
    for cls in ("Gamma", "Beta", "Normal"):
        p, q = getattr(D, cls)(gg.tensor(a), gg.tensor(b)), getattr(D, cls)(gg.tensor(b), gg.tensor(a))
        tp, tq = getattr(TD, cls)(torch.tensor(a), torch.tensor(b)), getattr(TD, cls)(torch.tensor(b), torch.tensor(a))
        _close(_kl_expfamily_expfamily(p, q), torch_bregman(tp, tq), cls)
