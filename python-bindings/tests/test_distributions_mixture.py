"""MixtureSameFamily and Multinomial without torch: a one-component mixture is its component,
a mixture's density is the weighted sum of its components' densities, Multinomial with two
categories is Binomial, and drawn counts sum to total_count."""
import math

import numpy as np

import glassgrad as gg
import glassgrad.distributions as D

RNG = np.random.default_rng(2)
X = RNG.standard_normal(5)


def test_mixture_density_is_the_weighted_sum():
    w = np.array([0.2, 0.5, 0.3])
    m, s = RNG.standard_normal(3), RNG.uniform(0.5, 1.5, 3)
    mix = D.MixtureSameFamily(D.Categorical(probs=gg.tensor(w)), D.Normal(gg.tensor(m), gg.tensor(s)))
    dens = (w * np.exp(-((X[:, None] - m) ** 2) / (2 * s * s)) / (s * math.sqrt(2 * math.pi))).sum(1)
    np.testing.assert_allclose(mix.log_prob(gg.tensor(X)).numpy(), np.log(dens), rtol=1e-12)
    np.testing.assert_allclose(mix.mean.numpy(), (w * m).sum(), rtol=1e-12)
    one = D.MixtureSameFamily(D.Categorical(probs=gg.tensor([1.0], dtype=gg.float64)),
                              D.Normal(gg.tensor(m[:1]), gg.tensor(s[:1])))
    np.testing.assert_allclose(one.log_prob(gg.tensor(X)).numpy(),
                               D.Normal(gg.tensor(m[0]), gg.tensor(s[0])).log_prob(gg.tensor(X)).numpy(), rtol=1e-12)


def test_two_category_multinomial_is_binomial_and_draws_sum_to_total():
    p = np.array([0.3, 0.7])
    mult = D.Multinomial(6, probs=gg.tensor(p))
    k = np.arange(7.0)
    counts = gg.tensor(np.stack([k, 6 - k], 1))
    want = [math.log(math.comb(6, int(i)) * 0.3 ** i * 0.7 ** (6 - i)) for i in k]
    np.testing.assert_allclose(mult.log_prob(counts).numpy(), want, rtol=1e-12)
    gg.manual_seed(1)
    x = mult.sample((1000,)).numpy()
    assert x.shape == (1000, 2) and np.all(x.sum(1) == 6)
    assert abs(x[:, 0].mean() - 1.8) < 6 * math.sqrt(6 * 0.21 / 1000)
