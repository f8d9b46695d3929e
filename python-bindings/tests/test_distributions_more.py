"""glassgrad.distributions' later classes and methods without torch or SciPy: closed forms from
the math module, icdf(cdf(x)) = x, probabilities that sum to one, special cases that coincide
(Weibull with concentration 1 is Exponential), expand's shapes, and the base class's errors."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

RNG = np.random.default_rng(8)
LOC, SCALE = RNG.standard_normal(5), RNG.uniform(0.5, 2.0, 5)
X = RNG.standard_normal(5)
U = RNG.uniform(0.05, 0.95, 5)


def _t(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def test_cauchy_and_gumbel_closed_forms():
    c = D.Cauchy(_t(LOC), _t(SCALE))
    z = (X - LOC) / SCALE
    np.testing.assert_allclose(c.log_prob(_t(X)).numpy(), -np.log(math.pi * SCALE * (1 + z * z)), rtol=1e-12)
    np.testing.assert_allclose(c.cdf(_t(X)).numpy(), [0.5 + math.atan(v) / math.pi for v in z], rtol=1e-12)
    g = D.Gumbel(_t(LOC), _t(SCALE))
    np.testing.assert_allclose(g.log_prob(_t(X)).numpy(), -np.log(SCALE) - (z + np.exp(-z)), rtol=1e-12)
    np.testing.assert_allclose(g.mean.numpy(), LOC + SCALE * 0.5772156649015329, rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: D.Cauchy(_t(LOC), _t(SCALE)), lambda: D.HalfNormal(_t(SCALE)), lambda: D.HalfCauchy(_t(SCALE)),
    lambda: D.Gumbel(_t(LOC), _t(SCALE)), lambda: D.Weibull(_t(SCALE), _t(SCALE + 0.5)),
    lambda: D.Pareto(_t(SCALE), _t(SCALE + 1)), lambda: D.Normal(_t(LOC), _t(SCALE)),
    lambda: D.Laplace(_t(LOC), _t(SCALE)), lambda: D.Exponential(_t(SCALE)), lambda: D.LogNormal(_t(LOC), _t(SCALE)),
    lambda: D.Uniform(_t(LOC), _t(LOC + SCALE))])
def test_icdf_inverts_cdf(make):
    d = make()
    x = d.icdf(_t(U))
    np.testing.assert_allclose(d.cdf(x).numpy(), U, rtol=1e-9)


def test_weibull_with_concentration_one_is_exponential():
    w, e = D.Weibull(_t(SCALE), _t(np.ones(5))), D.Exponential(_t(1 / SCALE))
    x = _t(np.abs(X))
    for a, b in ((w.log_prob(x), e.log_prob(x)), (w.mean, e.mean), (w.variance, e.variance),
                 (w.entropy(), e.entropy()), (w.cdf(x), e.cdf(x))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_count_distributions_sum_to_one_and_match_their_means():
    k = _t(np.arange(400.0)).reshape(-1, 1)
    for d in (D.Geometric(probs=_t([0.2, 0.5, 0.9])), D.NegativeBinomial(_t([1.0, 2.5, 7.0]), probs=_t([0.2, 0.5, 0.8])),
              D.Binomial(9, probs=_t([0.2, 0.5, 0.9]), validate_args=False)):  # k past 9: log_prob -inf
        p = d.log_prob(k).exp().numpy()
        p = np.where(np.isfinite(p), p, 0.0)
        np.testing.assert_allclose(p.sum(0), 1.0, rtol=1e-9)
        np.testing.assert_allclose((p * np.arange(400.0)[:, None]).sum(0), d.mean.numpy(), rtol=1e-8)
        if isinstance(d, D.Binomial):
            np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(np.where(p > 0, p, 1))).sum(0), rtol=1e-9)
            p5 = [math.comb(9, 5) * q ** 5 * (1 - q) ** 4 for q in (0.2, 0.5, 0.9)]
            np.testing.assert_allclose(p[5], p5, rtol=1e-9)


def test_modes_and_laplace_cdf():
    np.testing.assert_allclose(D.Laplace(_t(LOC), _t(SCALE)).cdf(_t(X)).numpy(),
                               np.where(X < LOC, 0.5 * np.exp((X - LOC) / SCALE), 1 - 0.5 * np.exp(-(X - LOC) / SCALE)),
                               rtol=1e-12)
    assert np.isnan(D.Uniform(0.0, 1.0).mode.numpy())
    assert D.Exponential(_t(SCALE)).mode.numpy().tolist() == [0.0] * 5
    assert D.Binomial(10, probs=_t([0.0, 0.26, 1.0])).mode.numpy().tolist() == [0.0, 2.0, 10.0]
    assert D.OneHotCategorical(probs=_t([0.1, 0.6, 0.3])).mode.numpy().tolist() == [0.0, 1.0, 0.0]
    np.testing.assert_allclose(D.Beta(_t([3.0, 0.5, 2.0]), _t([2.0, 3.0, 0.5])).mode.numpy(), [2 / 3, 0.0, 1.0])


def test_draw_moments_without_torch():
    gg.manual_seed(11)
    n = 40000
    for d, mean, var in ((D.Gumbel(1.0, 2.0), 1 + 2 * 0.5772156649015329, (math.pi * 2) ** 2 / 6),
                         (D.Geometric(probs=0.3), 1 / 0.3 - 1, 0.7 / 0.09),
                         (D.HalfNormal(2.0), 2 * math.sqrt(2 / math.pi), 4 * (1 - 2 / math.pi))):
        x = d.sample((n,)).numpy()
        assert abs(x.mean() - mean) < 6 * math.sqrt(var / n), (type(d).__name__, x.mean(), mean)


def test_base_class_errors_and_expand():
    with pytest.raises(NotImplementedError, match="icdf"):
        D.Poisson(2.0).icdf(gg.tensor(0.5))
    e = D.Gumbel(_t(LOC), _t(SCALE)).expand((3, 5))
    assert e.batch_shape == (3, 5) and e.loc.shape == (3, 5) and e.rsample((2,)).shape == (2, 3, 5)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        D.Cauchy(0.0, -1.0)


@pytest.mark.parametrize("make", [lambda: D.Gumbel(_t(LOC), _t(SCALE)), lambda: D.Pareto(_t(SCALE), _t(SCALE + 1)),
                                  lambda: D.Cauchy(_t(LOC), _t(SCALE)), lambda: D.HalfNormal(_t(SCALE)),
                                  lambda: D.Geometric(probs=_t(U)), lambda: D.Binomial(4, probs=_t(U))])
def test_kl_of_a_distribution_with_itself_is_zero_and_of_another_positive(make):
    p = make()
    np.testing.assert_allclose(D.kl_divergence(p, p).numpy(), 0.0, atol=1e-12)
    q = p.expand(p.batch_shape)
    for name, v in vars(q).items():  # move every parameter a little: KL becomes positive
        if isinstance(v, gg.Tensor) and v.dtype == gg.float64 and name in ("loc", "scale", "alpha", "probs"):
            setattr(q, name, v * 0.9 if name != "loc" else v + 0.3)
    if isinstance(q, D.HalfNormal):
        q = D.HalfNormal(_t(SCALE * 0.9))
    if isinstance(q, (D.Geometric, D.Binomial)):
        q = type(p)(probs=_t(U * 0.9)) if isinstance(q, D.Geometric) else D.Binomial(4, probs=_t(U * 0.9))
    assert np.all(D.kl_divergence(p, q).numpy() > 0)


def test_multinomial_entropy_sums_over_the_support():
    p = np.array([0.2, 0.5, 0.3])
    d = D.Multinomial(3, probs=_t(p))
    outcomes = [np.array([a, b, 3 - a - b], float) for a in range(4) for b in range(4 - a)]
    lp = np.array([d.log_prob(_t(x)).item() for x in outcomes])
    np.testing.assert_allclose(np.exp(lp).sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.entropy().item(), -(np.exp(lp) * lp).sum(), rtol=1e-12)
    one = D.Multinomial(1, probs=_t(p))
    np.testing.assert_allclose(one.entropy().item(), -(p * np.log(p)).sum(), rtol=1e-12)
    assert gg.debug.gradcheck(lambda q: D.Multinomial(4, logits=q).entropy(), [np.log(p)])
