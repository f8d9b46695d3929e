"""Relaxed distributions without torch: draws lie in (0, 1) / on the simplex, low temperatures
give nearly one-hot draws whose argmax frequencies are the probabilities, the straight-through
rsample is one-hot with the probabilities' gradient."""
import math

import numpy as np

import glassgrad as gg
import glassgrad.distributions as D

P = np.array([0.2, 0.5, 0.3])


def test_relaxed_one_hot_argmax_frequencies_are_the_probabilities():
    gg.manual_seed(5)
    n = 20000
    x = D.RelaxedOneHotCategorical(0.1, probs=gg.tensor(P)).rsample((n,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-9)
    freq = np.bincount(x.argmax(-1), minlength=3) / n
    assert np.all(np.abs(freq - P) < 6 * np.sqrt(P * (1 - P) / n))


def test_relaxed_bernoulli_draws_and_straight_through_gradient():
    gg.manual_seed(6)
    n = 20000
    x = D.RelaxedBernoulli(0.05, probs=gg.tensor([0.3], dtype=gg.float64)).sample((n,)).numpy()
    assert np.all((x > 0) & (x < 1))
    assert abs((x > 0.5).mean() - 0.3) < 6 * math.sqrt(0.21 / n)
    logits = gg.tensor(np.log(P), requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(logits=logits)
    y = d.rsample((4,))
    assert np.all(y.detach().numpy().sum(-1) == 1) and set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
    (y * gg.tensor([1.0, 2.0, 3.0], dtype=gg.float64)).sum().backward()
    s = P * np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(logits.grad.numpy(), 4 * (s - P * s.sum()), rtol=1e-10)
