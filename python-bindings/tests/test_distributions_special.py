"""Gamma, Chi2, Beta, Dirichlet, StudentT, LogNormal, MultivariateNormal, Poisson and Binomial
against scipy.stats (log_prob, entropy, mean, variance), float64 finite-difference gradients of
log_prob and entropy for the parameters, and the draws' moments (docs/distributions.md)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

st = pytest.importorskip("scipy.stats")
sp = pytest.importorskip("scipy.special")

rng = np.random.default_rng(3)
A, B = rng.uniform(0.5, 3.0, 6), rng.uniform(0.5, 3.0, 6)
U = rng.uniform(0.05, 0.95, 6)
T = gg.tensor

CASES = [
    ("Gamma", lambda: D.Gamma(T(A), T(B)), 3 * U, st.gamma(A, scale=1 / B)),
    ("Chi2", lambda: D.Chi2(T(A)), 3 * U, st.chi2(A)),
    ("Beta", lambda: D.Beta(T(A), T(B)), U, st.beta(A, B)),
    ("StudentT", lambda: D.StudentT(T(2 + A), T(U), T(B)), 4 * U - 2, st.t(2 + A, U, B)),
    ("LogNormal", lambda: D.LogNormal(T(U), T(B)), A, st.lognorm(B, scale=np.exp(U))),
]


@pytest.mark.parametrize("name,make,x,ref", CASES, ids=[c[0] for c in CASES])
def test_matches_scipy(name, make, x, ref):
    d = make()
    np.testing.assert_allclose(d.log_prob(T(x)).numpy(), ref.logpdf(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-12)


def test_counts_match_scipy():
    k = np.floor(3 * A)
    np.testing.assert_allclose(D.Poisson(T(A)).log_prob(T(k)).numpy(), st.poisson(A).logpmf(k), rtol=1e-12)
    n = np.full(6, 7.0)
    for d in (D.Binomial(T(n), probs=T(U)), D.Binomial(T(n), logits=T(np.log(U / (1 - U))))):
        np.testing.assert_allclose(d.log_prob(T(k)).numpy(), st.binom(7, U).logpmf(k), rtol=1e-11)
        np.testing.assert_allclose(d.mean.numpy(), 7 * U, rtol=1e-12)


def test_dirichlet_and_multivariate_normal_match_scipy():
    c = rng.uniform(0.5, 3.0, 4)
    p = rng.dirichlet(np.ones(4))
    d = D.Dirichlet(T(c))
    assert tuple(d.event_shape) == (4,) and tuple(d.batch_shape) == ()
    np.testing.assert_allclose(d.log_prob(T(p)).item(), st.dirichlet(c).logpdf(p), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().item(), st.dirichlet(c).entropy(), rtol=1e-12)
    X = rng.standard_normal((3, 3))
    S = X @ X.T + 3 * np.eye(3)
    mu = rng.standard_normal(3)
    v = rng.standard_normal((5, 3))
    ref = st.multivariate_normal(mu, S)
    for kw in ({"covariance_matrix": T(S)}, {"precision_matrix": T(np.linalg.inv(S))},
               {"scale_tril": T(np.linalg.cholesky(S))}):
        m = D.MultivariateNormal(T(mu), **kw)
        np.testing.assert_allclose(m.log_prob(T(v)).numpy(), ref.logpdf(v), rtol=1e-11)
        np.testing.assert_allclose(m.entropy().item(), ref.entropy(), rtol=1e-11)
        np.testing.assert_allclose(m.covariance_matrix.numpy(), S, rtol=1e-11, atol=1e-12)


GRADS = [
    ("Gamma", lambda a, b: D.Gamma(a, b).log_prob(T(3 * U)) + D.Gamma(a, b).entropy()),
    ("Beta", lambda a, b: D.Beta(a, b).log_prob(T(U)) + D.Beta(a, b).entropy()),
    ("StudentT", lambda a, b: D.StudentT(a + 2, b, a).log_prob(T(U)) + D.StudentT(a + 2, b, a).entropy()),
    ("Dirichlet", lambda a, b: D.Dirichlet((a + b).reshape(2, 3)).log_prob(T(np.full((2, 3), 1 / 3)))),
    ("Poisson", lambda a, b: D.Poisson(a).log_prob(T(np.floor(3 * B)))),
    ("Binomial", lambda a, b: D.Binomial(T(np.full(6, 5.0)), logits=b - 1).log_prob(T(np.floor(A)))),
    ("kl_gamma", lambda a, b: D.kl_divergence(D.Gamma(a, b), D.Gamma(b, a))),
    ("kl_beta", lambda a, b: D.kl_divergence(D.Beta(a, b), D.Beta(b, a))),
]


@pytest.mark.parametrize("name,fn", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_finite_differences(name, fn):
    assert gg.debug.gradcheck(fn, [A, B])


def test_multivariate_normal_gradients():
    X = rng.standard_normal((3, 3))
    v = rng.standard_normal((4, 3))

    def f(mu, x):
        m = D.MultivariateNormal(mu, covariance_matrix=x @ x.transpose(-1, -2) + 2 * gg.eye(3, dtype=gg.float64))
        return m.log_prob(T(v)).sum() + m.entropy() + m.rsample().sum() * 0
    assert gg.debug.gradcheck(f, [rng.standard_normal(3), X])


def test_draws_have_the_right_moments():
    gg.manual_seed(0)
    n = 40000
    g = D.Gamma(T([0.3, 1.0, 4.5]), T([1.0, 2.0, 0.5])).sample((n,)).numpy()
    np.testing.assert_allclose(g.mean(0), [0.3, 0.5, 9.0], rtol=0.05)
    np.testing.assert_allclose(g.var(0), [0.3, 0.25, 18.0], rtol=0.1)
    b = D.Beta(T([2.0]), T([3.0])).sample((n,)).numpy()
    assert abs(b.mean() - 0.4) < 0.01 and ((b > 0) & (b < 1)).all()
    d = D.Dirichlet(T([1.0, 2.0, 3.0])).sample((n,)).numpy()
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-6)  # float32 draws
    np.testing.assert_allclose(d.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)
    p = D.Poisson(T([0.5, 7.0])).sample((n,)).numpy()
    np.testing.assert_allclose(p.mean(0), [0.5, 7.0], rtol=0.05)
    assert (p == np.round(p)).all()
    k = D.Binomial(T([5.0]), probs=T([0.3])).sample((n,)).numpy()
    assert abs(k.mean() - 1.5) < 0.05 and k.max() <= 5
    S = np.array([[2.0, 0.5], [0.5, 1.0]])
    m = D.MultivariateNormal(T([1.0, -1.0], dtype=gg.float64), covariance_matrix=T(S)).rsample((n,)).numpy()
    np.testing.assert_allclose(np.cov(m.T), S, atol=0.08)
    assert D.LogNormal(T([0.0]), T([0.5])).rsample((n,)).numpy().min() > 0


def test_gamma_rsample_gradient_is_the_quantiles_derivative():
    """x = F^-1(u; a) with u held: dx/da against scipy's inverse incomplete gamma, differenced."""
    gg.manual_seed(1)
    a = gg.tensor([0.05, 0.2, 0.7, 1.5, 3.0, 8.0, 40.0, 300.0], dtype=gg.float64, requires_grad=True)
    x = D.Gamma(a, T(2.0, dtype=gg.float64)).rsample()
    x.sum().backward()
    xn, an = 2 * x.detach().numpy(), a.detach().numpy()  # the Gamma(a, 1) draws
    u = sp.gammainc(an, xn)
    h = 1e-6 * an
    numeric = (sp.gammaincinv(an + h, u) - sp.gammaincinv(an - h, u)) / (2 * h) / 2
    np.testing.assert_allclose(a.grad.numpy(), numeric, rtol=1e-6)


def test_rsample_gradients_have_the_right_means():
    """E[d x / d parameter] = d E[x] / d parameter, by Monte Carlo over 20000 draws."""
    gg.manual_seed(2)
    n = 20000
    a = gg.tensor([1.5, 0.4], dtype=gg.float64, requires_grad=True)
    b = gg.tensor([2.0, 3.0], dtype=gg.float64, requires_grad=True)
    D.Gamma(a, b).rsample((n,)).mean(0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 / np.array([2.0, 3.0]), rtol=0.03)
    np.testing.assert_allclose(b.grad.numpy(), -np.array([1.5, 0.4]) / np.array([4.0, 9.0]), rtol=0.03)
    a.grad, b.grad = None, None
    D.Beta(a, b).rsample((n,)).mean(0).sum().backward()
    an, bn = np.array([1.5, 0.4]), np.array([2.0, 3.0])
    np.testing.assert_allclose(a.grad.numpy(), bn / (an + bn) ** 2, rtol=0.05)
    np.testing.assert_allclose(b.grad.numpy(), -an / (an + bn) ** 2, rtol=0.05)
    c = gg.tensor([1.0, 2.0, 3.0], dtype=gg.float64, requires_grad=True)
    D.Dirichlet(c).rsample((n,)).mean(0)[0].backward()  # d/dc (c0 / sum c) = (1/6)(1 - 1/6), -1/36, -1/36
    np.testing.assert_allclose(c.grad.numpy(), [5 / 36, -1 / 36, -1 / 36], atol=0.006)


def test_multivariate_normal_needs_one_matrix():
    with pytest.raises(ValueError, match="Exactly one"):
        D.MultivariateNormal(T([0.0]))
