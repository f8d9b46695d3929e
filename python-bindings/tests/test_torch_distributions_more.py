"""glassgrad.distributions' later classes and methods against torch.distributions on the same
float64 parameters: log_prob (and its gradients), cdf, icdf, entropy, mean, mode, variance,
stddev, expand, and the moments of many seeded draws. Skipped when torch is not importable."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

_rng = np.random.default_rng(21)
A = _rng.standard_normal((2, 3))
B = _rng.uniform(0.6, 2.0, (2, 3))
C = _rng.uniform(2.5, 4.0, (2, 3))
Q = _rng.uniform(0.1, 0.9, (2, 3))
U = _rng.uniform(0.05, 0.95, (2, 3))

PROPS = ("mean", "mode", "variance", "stddev", "entropy", "cdf", "icdf")
# name: (constructor on the module given, values for log_prob/cdf, properties that torch defines)
CASES = {
    "Cauchy": (lambda m, a, b, c: m.Cauchy(a, b), lambda: A * 2, ("mode", "entropy", "cdf", "icdf")),
    "HalfNormal": (lambda m, a, b, c: m.HalfNormal(b), lambda: np.abs(A), PROPS),
    "HalfCauchy": (lambda m, a, b, c: m.HalfCauchy(b), lambda: np.abs(A), ("mode", "entropy", "cdf", "icdf")),
    "Gumbel": (lambda m, a, b, c: m.Gumbel(a, b), lambda: A, PROPS),
    "Weibull": (lambda m, a, b, c: m.Weibull(b, c), lambda: np.abs(A) + 0.1, PROPS),
    "Pareto": (lambda m, a, b, c: m.Pareto(b, c), lambda: B + np.abs(A), PROPS),
    "Geometric": (lambda m, a, b, c: m.Geometric(logits=a), lambda: np.round(B * 3), ("mean", "mode", "variance",
                                                                                       "entropy")),
    "GeometricP": (lambda m, a, b, c: m.Geometric(probs=c / 4.5), lambda: np.round(B * 3),
                   ("mean", "mode", "variance", "entropy")),
    "NegativeBinomial": (lambda m, a, b, c: m.NegativeBinomial(c, logits=a), lambda: np.round(B * 4),
                         ("mean", "mode", "variance")),
    "NegativeBinomialP": (lambda m, a, b, c: m.NegativeBinomial(c, probs=b / 2.1), lambda: np.round(B * 4),
                          ("mean", "mode", "variance")),
    "InverseGamma": (lambda m, a, b, c: m.InverseGamma(c, b), lambda: np.abs(A) + 0.2,
                     ("mean", "mode", "variance", "stddev", "entropy", "cdf")),
    "Kumaraswamy": (lambda m, a, b, c: m.Kumaraswamy(b, c), lambda: U, PROPS),
    "KumaraswamyMode": (lambda m, a, b, c: m.Kumaraswamy(c, b * 0.5), lambda: U, ("mode", "mean", "variance")),
    "FisherSnedecor": (lambda m, a, b, c: m.FisherSnedecor(c, c + 2.5), lambda: np.abs(A) + 0.1,
                       ("mean", "mode", "variance", "stddev")),
    "FisherSnedecorNaN": (lambda m, a, b, c: m.FisherSnedecor(b, b + 1), lambda: np.abs(A) + 0.1,
                          ("mean", "mode", "variance")),
    "Normal": (lambda m, a, b, c: m.Normal(a, b), lambda: A, ("icdf", "mode")),
    "Uniform": (lambda m, a, b, c: m.Uniform(a, a + b), lambda: A + 0.3 * B, ("icdf", "mode")),
    "Exponential": (lambda m, a, b, c: m.Exponential(b), lambda: np.abs(A), ("icdf", "mode")),
    "Laplace": (lambda m, a, b, c: m.Laplace(a, b), lambda: A * 1.5, ("icdf", "cdf", "mode")),
    "LogNormal": (lambda m, a, b, c: m.LogNormal(a, b), lambda: np.abs(A), ("icdf",)),
    "Binomial": (lambda m, a, b, c: m.Binomial(6, logits=a), lambda: np.round(B * 2), ("mode", "entropy")),
    "OneHotCategorical": (lambda m, a, b, c: m.OneHotCategorical(logits=a), lambda: np.eye(3)[[2, 0]], ("mode",)),
    "Beta": (lambda m, a, b, c: m.Beta(b - 0.3, c - 2.45), lambda: U, ("mode",)),
}


def _close(got, want, what):
    got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-9, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_log_prob_gradients_match_torch(name):
    make, values, props = CASES[name]
    ours_p = [gg.tensor(x, requires_grad=True) for x in (A, B, C)]
    theirs_p = [torch.tensor(x, requires_grad=True) for x in (A, B, C)]
    ours, theirs = make(D, *ours_p), make(TD, *theirs_p)
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample, name
    v = values()
    lp, tlp = ours.log_prob(gg.tensor(v)), theirs.log_prob(torch.tensor(v))
    _close(lp, tlp, "log_prob")
    lp.sum().backward()
    tlp.sum().backward()
    for g, t in zip((p.grad for p in ours_p), (p.grad for p in theirs_p)):
        if t is not None:
            _close(g, t, "d log_prob")
    for prop in props:
        got, want = getattr(ours, prop), getattr(theirs, prop)
        if prop in ("cdf",):
            got, want = got(gg.tensor(v)), want(torch.tensor(v))
        elif prop == "icdf":
            got, want = got(gg.tensor(U)), want(torch.tensor(U))
        elif prop == "entropy":
            got, want = got(), want()
        _close(got, want, prop)


@pytest.mark.parametrize("name", ["Cauchy", "HalfNormal", "HalfCauchy", "Gumbel", "Weibull", "Pareto", "Geometric",
                                  "NegativeBinomial", "Binomial", "InverseGamma", "Kumaraswamy",
                                  "FisherSnedecor"])
def test_shapes_expand_and_draws(name):
    make, _, _ = CASES[name]
    ours = make(D, *(gg.tensor(x) for x in (A, B, C)))
    theirs = make(TD, *(torch.tensor(x) for x in (A, B, C)))
    gg.manual_seed(3)
    n = 40000
    draws = ours.sample((n,))
    assert draws.shape == (n, 2, 3) and not draws.requires_grad
    big = ours.expand((4, 2, 3))
    assert big.batch_shape == (4, 2, 3) and big.sample((5,)).shape == (5, 4, 2, 3)
    _close(big.log_prob(gg.tensor(CASES[name][1]())), theirs.expand((4, 2, 3)).log_prob(
        torch.tensor(CASES[name][1]())), "expanded log_prob")
    x = draws.numpy()
    if name in ("Cauchy", "HalfCauchy"):  # no moments: the sample median against the icdf at 1/2
        med = theirs.icdf(torch.full((2, 3), 0.5, dtype=torch.float64)).numpy()
        np.testing.assert_allclose(np.median(x, 0), med, atol=6 * B.max() / math.sqrt(n) * 2)
        return
    mean, var = theirs.mean.numpy(), theirs.variance.numpy()
    finite = np.isfinite(var)
    tol = 6 * np.sqrt(var[finite] / n)  # six standard errors of the mean
    assert np.all(np.abs(x.mean(0)[finite] - mean[finite]) < tol), (x.mean(0), mean)


@pytest.mark.parametrize("name", ["HalfNormal", "HalfCauchy"])
def test_half_rsample_is_positive_and_scales_with_its_scale(name):
    scale = gg.tensor(B, requires_grad=True)
    gg.manual_seed(5)
    x = getattr(D, name)(scale).rsample((7,))
    assert (x.detach().numpy() >= 0).all()
    x.sum().backward()
    np.testing.assert_allclose(scale.grad.numpy(), (x.detach().numpy() / B).sum(0), rtol=1e-12)


@pytest.mark.parametrize("name", ["Cauchy", "Gumbel", "Weibull", "Pareto"])
def test_rsample_is_the_icdf_of_its_uniform_and_carries_gradients(name):
    make, _, _ = CASES[name]
    ps = [gg.tensor(x, requires_grad=True) for x in (A, B, C)]
    gg.manual_seed(4)
    x = make(D, *ps).rsample((3,))
    gg.manual_seed(4)
    u = gg.rand(3, 2, 3, dtype=gg.float64)
    tps = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ps]
    tu = torch.tensor(u.numpy().clip(np.finfo(float).tiny, 1 - np.finfo(float).eps))
    want = make(TD, *tps).icdf(tu)
    _close(x, want, "rsample value")
    x.sum().backward()
    want.sum().backward()
    for p, t in zip(ps, tps):
        if t.grad is not None:
            _close(p.grad, t.grad, "rsample gradient")


def test_base_class_raises_not_implemented_as_torch():
    for ours, theirs in ((D.Gamma(2.0, 1.0), TD.Gamma(2.0, 1.0)), (D.Poisson(2.0), TD.Poisson(2.0))):
        with pytest.raises(NotImplementedError):
            theirs.icdf(torch.tensor(0.5))
        with pytest.raises(NotImplementedError):
            ours.icdf(gg.tensor(0.5))


def test_validation_errors():  # with torch's default validation on (conftest.py)
    for bad in (lambda m: m.Cauchy(0.0, -1.0), lambda m: m.HalfNormal(-1.0), lambda m: m.Gumbel(0.0, 0.0),
                lambda m: m.Weibull(1.0, -2.0), lambda m: m.Pareto(-1.0, 1.0), lambda m: m.Geometric(probs=1.5),
                lambda m: m.NegativeBinomial(-1.0, probs=0.5)):
        with pytest.raises(ValueError):
            bad(TD)
        with pytest.raises(ValueError):
            bad(D)
    with pytest.raises(ValueError, match="not both"):
        D.Geometric()


def test_multinomial_entropy_matches_torch():
    p = np.random.default_rng(2).dirichlet(np.ones(4), (2, 3))
    for n in (1, 5):
        ours = D.Multinomial(n, probs=gg.tensor(p)).entropy().numpy()
        theirs = TD.Multinomial(n, probs=torch.tensor(p)).entropy().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-7)  # torch takes lgamma(n + 1) in float32


def test_param_shape_and_enumerate_support_as_torch():
    p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    for make in (lambda m, t: m.Bernoulli(t(p)), lambda m, t: m.Binomial(3, t(p)),
                 lambda m, t: m.NegativeBinomial(t(p * 0 + 2), t(p)), lambda m, t: m.OneHotCategorical(t(p)),
                 lambda m, t: m.Multinomial(2, t(p)), lambda m, t: m.Categorical(t(p))):
        assert make(D, gg.tensor).param_shape == tuple(make(TD, torch.tensor).param_shape)
    for ours, theirs in ((D.Normal(0.0, 1.0), TD.Normal(0.0, 1.0)), (D.Poisson(2.0), TD.Poisson(2.0)),
                         (D.Dirichlet(gg.ones(3)), TD.Dirichlet(torch.ones(3)))):
        assert not ours.has_enumerate_support and not theirs.has_enumerate_support
        with pytest.raises(NotImplementedError):
            theirs.enumerate_support()
        with pytest.raises(NotImplementedError):
            ours.enumerate_support()
