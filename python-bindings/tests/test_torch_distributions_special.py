"""Gamma, Chi2, Beta, Dirichlet, StudentT, LogNormal, MultivariateNormal, Poisson, Binomial and
their kl_divergence pairs against torch.distributions on the same float64 parameters: values of
log_prob, entropy, mean, variance (and MultivariateNormal's matrices), and the parameters'
gradients of log_prob + entropy (docs/distributions.md)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(5)
A, B = rng.uniform(0.5, 3.0, (2, 3)), rng.uniform(0.5, 3.0, (2, 3))
U = rng.uniform(0.05, 0.95, (2, 3))
X = rng.standard_normal((2, 3, 3))
S = X @ np.swapaxes(X, -1, -2) + 3 * np.eye(3)
MU = rng.standard_normal((2, 3))
V3 = rng.standard_normal((4, 2, 3))


def _mvn(kind):
    def make(m, a, b):
        mat = a.reshape(2, 3, 1) * b.reshape(2, 1, 3)  # a rank-one term keeps S's gradient flowing to a and b
        cov = m_tensor(m, S) + mat @ mat.transpose(-1, -2) * 0.1
        if kind == "covariance_matrix":
            return m.MultivariateNormal(a[..., 0:3] * 0 + m_tensor(m, MU), covariance_matrix=cov)
        if kind == "precision_matrix":
            return m.MultivariateNormal(m_tensor(m, MU) + a, precision_matrix=cov)
        return m.MultivariateNormal(m_tensor(m, MU) * b, scale_tril=m_linalg(m).cholesky(cov))
    return make


def m_tensor(m, a):
    return gg.tensor(a) if m is D else torch.tensor(a)


def m_linalg(m):
    return gg.linalg if m is D else torch.linalg


CASES = {
    "Gamma": (lambda m, a, b: m.Gamma(a, b), 3 * U, ("mean", "variance", "mode")),
    "Gamma_cdf": (lambda m, a, b: m.Gamma(a.detach(), b), 3 * U, ("mean",)),
    "Chi2": (lambda m, a, b: m.Chi2(a + b), 3 * U, ("mean", "variance")),
    "Beta": (lambda m, a, b: m.Beta(a, b), U, ("mean", "variance")),
    "Dirichlet": (lambda m, a, b: m.Dirichlet(a * b), U / U.sum(-1, keepdims=True), ("mean", "variance")),
    "StudentT": (lambda m, a, b: m.StudentT(a + 2, b, a), 4 * U - 2, ("mean", "variance")),
    "LogNormal": (lambda m, a, b: m.LogNormal(a - 1, b), A, ("mean", "variance", "mode")),
    "Poisson": (lambda m, a, b: m.Poisson(a * b), np.floor(3 * A), ("mean", "variance")),
    "Binomial": (lambda m, a, b: m.Binomial(m_tensor(m, np.full((2, 3), 6.0)), probs=b / 4), np.floor(2 * A),
                 ("mean", "variance")),
    "Binomial_logits": (lambda m, a, b: m.Binomial(m_tensor(m, np.full((2, 3), 6.0)), logits=a - b),
                        np.floor(2 * A), ("mean", "variance")),
    "MVN_covariance": (_mvn("covariance_matrix"), V3, ("mean", "variance", "covariance_matrix", "scale_tril",
                                                        "precision_matrix")),
    "MVN_precision": (_mvn("precision_matrix"), V3, ("mean", "variance", "covariance_matrix")),
    "MVN_scale_tril": (_mvn("scale_tril"), V3, ("variance", "covariance_matrix")),
}
NO_ENTROPY = {"Poisson", "Binomial", "Binomial_logits"}  # PyTorch's enumerate their support


@pytest.mark.parametrize("name", sorted(CASES))
def test_distribution_matches_torch(name):
    make, value, props = CASES[name]
    a, b = gg.tensor(A, requires_grad=True), gg.tensor(B, requires_grad=True)
    ta, tb = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    ours, theirs = make(D, a, b), make(TD, ta, tb)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    lp, tlp = ours.log_prob(gg.tensor(value)), theirs.log_prob(torch.tensor(value))
    np.testing.assert_allclose(lp.detach().numpy(), tlp.detach().numpy(), rtol=1e-10, atol=1e-12)
    loss, tloss = lp.sum(), tlp.sum()
    if name not in NO_ENTROPY:
        np.testing.assert_allclose(ours.entropy().detach().numpy(), theirs.entropy().detach().numpy(), rtol=1e-10, atol=1e-12)
        loss, tloss = loss + ours.entropy().sum(), tloss + theirs.entropy().sum()
    loss.backward()
    tloss.backward()
    for g, t in ((a.grad, ta.grad), (b.grad, tb.grad)):
        if t is not None:
            np.testing.assert_allclose(np.zeros(A.shape) if g is None else g.numpy(), t.numpy(), rtol=1e-8,
                                       atol=1e-10)
    for prop in props:
        np.testing.assert_allclose(getattr(ours, prop).detach().numpy(), getattr(theirs, prop).detach().numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=prop)


KL = {
    "Gamma": lambda m, a, b: m.Gamma(a, b),
    "Chi2": lambda m, a, b: m.Chi2(a),
    "Beta": lambda m, a, b: m.Beta(a, b),
    "Dirichlet": lambda m, a, b: m.Dirichlet(a + b),
    "LogNormal": lambda m, a, b: m.LogNormal(a, b),
    "Poisson": lambda m, a, b: m.Poisson(a),
    "MultivariateNormal": _mvn("covariance_matrix"),
}


@pytest.mark.parametrize("name", sorted(KL))
def test_kl_divergence_matches_torch(name):
    make = KL[name]
    a, b = gg.tensor(A, requires_grad=True), gg.tensor(B, requires_grad=True)
    ta, tb = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    ours = D.kl_divergence(make(D, a, b), make(D, b, a))
    theirs = TD.kl_divergence(make(TD, ta, tb), make(TD, tb, ta))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-8, atol=1e-10)
