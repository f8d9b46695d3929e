"""ExponentialFamily and ContinuousBernoulli without torch: the Bregman-divergence entropy and KL
against the closed forms, ContinuousBernoulli's density, moments and CDF against its closed form
C(p) = 2 atanh(1 - 2p) / (1 - 2p) (torch's values: Taylor series within lims of p = 1/2), and
float64 finite-difference gradients of log_prob and rsample (docs/distributions.md)."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions.exp_family import ExponentialFamily



def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


P = np.array([0.1, 0.3, 0.8, 0.97])
X = np.array([0.25, 0.0, 0.6, 1.0])


def _cb_log_norm(p):
    return math.log(2 * math.atanh(1 - 2 * p) / (1 - 2 * p))


def test_torchs_exponential_families_derive_from_the_base():
    for cls in (D.Normal, D.Exponential, D.Gamma, D.Chi2, D.Beta, D.Dirichlet, D.Poisson, D.Bernoulli,
                D.ContinuousBernoulli):
        assert issubclass(cls, ExponentialFamily), cls
    for cls in (D.Categorical, D.Laplace, D.Uniform, D.StudentT, D.Binomial):
        assert not issubclass(cls, ExponentialFamily), cls
    assert D.ExponentialFamily is ExponentialFamily


@pytest.mark.parametrize("make", [lambda: D.Normal(T([0.3, -1.0]), T([1.5, 0.4])),
                                  lambda: D.Exponential(T([0.5, 2.0])),
                                  lambda: D.Gamma(T([2.0, 3.5]), T([1.0, 0.5])),
                                  lambda: D.Bernoulli(probs=T([0.2, 0.7])),
                                  lambda: D.ContinuousBernoulli(T([0.2, 0.9]))])
def test_bregman_entropy_equals_the_closed_form(make):
    d = make()
    np.testing.assert_allclose(ExponentialFamily.entropy(d).detach().numpy(), d.entropy().detach().numpy(),
                               rtol=1e-12, atol=1e-14)


def test_bregman_kl_equals_the_closed_forms():
    from glassgrad.distributions.kl import _kl_expfamily_expfamily as bregman
    pairs = [(D.Beta(T([2.0, 3.0]), T([1.0, 0.5])), D.Beta(T([1.0, 3.0]), T([2.0, 0.7]))),
             (D.Dirichlet(T([[2.0, 3.0, 1.0]])), D.Dirichlet(T([[1.0, 3.0, 2.5]]))),
             (D.Gamma(T([2.0]), T([3.0])), D.Gamma(T([1.5]), T([0.5]))),
             (D.Normal(T([0.0]), T([1.0])), D.Normal(T([1.0]), T([2.0])))]
    for p, q in pairs:
        np.testing.assert_allclose(bregman(p, q).detach().numpy(), D.kl_divergence(p, q).detach().numpy(),
                                   rtol=1e-10, atol=1e-12)
    # Beta(2, 1) against Beta(1, 2): E_p[log x - log(1 - x)] = (psi(2) - psi(3)) - (psi(1) - psi(3)) = 1
    np.testing.assert_allclose(bregman(D.Beta(T(2.0), T(1.0)), D.Beta(T(1.0), T(2.0))).item(), 1.0, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        bregman(D.Normal(T(0.0), T(1.0)), D.Exponential(T(1.0)))


def test_poisson_has_no_entropy_as_torch():
    with pytest.raises(NotImplementedError):
        D.Poisson(T([2.0])).entropy()


def test_continuous_bernoulli_matches_its_closed_form():
    d = D.ContinuousBernoulli(T(P))
    log_c = np.array([_cb_log_norm(p) for p in P])
    want = log_c + X * np.log(P) + (1 - X) * np.log1p(-P)
    np.testing.assert_allclose(d.log_prob(T(X)).numpy(), want, rtol=1e-12)
    mean = P / (2 * P - 1) + 1 / (np.log1p(-P) - np.log(P))
    var = P * (P - 1) / (1 - 2 * P) ** 2 + 1 / (np.log1p(-P) - np.log(P)) ** 2
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-12)
    cdf = (P ** X * (1 - P) ** (1 - X) + P - 1) / (2 * P - 1)
    np.testing.assert_allclose(d.cdf(T(X)).numpy(), cdf, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(d.icdf(d.cdf(T(X))).numpy(), X, atol=1e-12)
    # entropy = -E[log p(x)] = -(log C + E[x] log p + (1 - E[x]) log(1 - p))
    ent = -(log_c + mean * np.log(P) + (1 - mean) * np.log1p(-P))
    np.testing.assert_allclose(d.entropy().numpy(), ent, rtol=1e-12)
    outside = D.ContinuousBernoulli(T(P), validate_args=False)  # validated, values off [0, 1] raise
    np.testing.assert_allclose(outside.cdf(T([-0.5, 1.5, -1.0, 2.0])).numpy(), [0.0, 1.0, 0.0, 1.0])


def test_continuous_bernoulli_near_one_half_uses_torchs_taylor_series():
    d = D.ContinuousBernoulli(T([0.5, 0.5004]))
    np.testing.assert_allclose(d.log_prob(T([0.3, 0.3])).numpy()[0], math.log(2) + math.log(0.5), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy()[0], 0.5)
    np.testing.assert_allclose(d.variance.numpy()[0], 1 / 12)
    x = 0.0004
    np.testing.assert_allclose(d.mean.numpy()[1], 0.5 + (1 / 3 + 16 / 45 * x * x) * x, rtol=1e-14)
    np.testing.assert_allclose(d.cdf(T([0.3, 0.3])).numpy(), [0.3, 0.3])  # uniform inside lims


def test_continuous_bernoulli_logits_shapes_and_support():
    logits = np.log(P / (1 - P))
    d = D.ContinuousBernoulli(logits=T(logits).reshape(2, 2))
    np.testing.assert_allclose(d.probs.numpy().ravel(), P, rtol=1e-12)
    assert d.batch_shape == (2, 2) and d.event_shape == () and d.has_rsample
    gg.manual_seed(0)
    x = d.rsample((5, 3))
    assert x.shape == (5, 3, 2, 2) and bool(((x >= 0) & (x <= 1)).all())
    assert d.expand((3, 2, 2)).sample().shape == (3, 2, 2)
    assert d.support is D.constraints.unit_interval and set(d.arg_constraints) == {"probs", "logits"}
    with pytest.raises(ValueError, match="not both"):
        D.ContinuousBernoulli()
    with pytest.raises(ValueError, match="probs"):
        D.ContinuousBernoulli(1.5, validate_args=True)


def test_continuous_bernoulli_draw_mean():
    gg.manual_seed(1)
    d = D.ContinuousBernoulli(T([0.2, 0.5, 0.9]))
    x = d.sample((40000,)).numpy()
    assert np.all(np.abs(x.mean(0) - d.mean.numpy()) < 6 * np.sqrt(d.variance.numpy() / 40000))


def test_gradients_match_finite_differences():
    def log_prob(logits):
        return D.ContinuousBernoulli(logits=logits).log_prob(T(X)) + D.ContinuousBernoulli(logits=logits).entropy()

    def rsample(logits):
        gg.manual_seed(7)
        return D.ContinuousBernoulli(logits=logits).rsample((3,))

    def kl(a, b):
        return D.kl_divergence(D.ContinuousBernoulli(logits=a), D.ContinuousBernoulli(logits=b))

    logits = np.log(P / (1 - P))
    assert gg.debug.gradcheck(log_prob, [logits])
    assert gg.debug.gradcheck(rsample, [logits])
    assert gg.debug.gradcheck(kl, [logits, logits[::-1].copy()])
