"""TransformedDistribution, transforms and constraints without torch: a Normal through exp is
LogNormal (same draws for the same seed, same log_prob, cdf and icdf), rsample's gradients
through a tanh-squashed Normal by float64 finite differences, inverse caching, constraints."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions import constraints
from glassgrad.distributions import transforms as T

RNG = np.random.default_rng(4)
LOC, SCALE = RNG.standard_normal(3), RNG.uniform(0.5, 1.5, 3)
Y = RNG.uniform(0.2, 3.0, 3)


def test_exp_of_normal_is_lognormal():
    t = D.TransformedDistribution(D.Normal(gg.tensor(LOC), gg.tensor(SCALE)), [T.ExpTransform()])
    ln = D.LogNormal(gg.tensor(LOC), gg.tensor(SCALE))
    for a, b in ((t.log_prob(gg.tensor(Y)), ln.log_prob(gg.tensor(Y))), (t.cdf(gg.tensor(Y)), ln.cdf(gg.tensor(Y))),
                 (t.icdf(gg.tensor(Y / 4)), ln.icdf(gg.tensor(Y / 4)))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    gg.manual_seed(6)
    x = t.sample((5,))
    gg.manual_seed(6)
    np.testing.assert_allclose(x.numpy(), ln.sample((5,)).numpy(), rtol=1e-12)


def test_decreasing_transform_reverses_the_cdf():
    t = D.TransformedDistribution(D.Exponential(gg.tensor(2.0, dtype=gg.float64)), T.AffineTransform(1.0, -1.0))  # y = 1 - x, x >= 0
    y = gg.tensor([0.5, -1.0], dtype=gg.float64)
    np.testing.assert_allclose(t.cdf(y).numpy(), np.exp(-2 * (1 - y.numpy())), rtol=1e-12)
    np.testing.assert_allclose(t.log_prob(y).numpy(), np.log(2) - 2 * (1 - y.numpy()), rtol=1e-12)


def test_tanh_squashed_rsample_gradient_by_finite_differences():
    loc = gg.tensor(LOC, requires_grad=True)
    gg.manual_seed(9)
    x = D.TransformedDistribution(D.Normal(loc, gg.tensor(SCALE)), [T.TanhTransform()]).rsample((4,))
    x.sum().backward()
    gg.manual_seed(9)
    eps = gg.randn(4, 3, dtype=gg.float64).numpy()
    h = 1e-6
    fd = (np.tanh(LOC + h + SCALE * eps) - np.tanh(LOC - h + SCALE * eps)).sum(0) / (2 * h)
    np.testing.assert_allclose(loc.grad.numpy(), fd, rtol=1e-6)


def test_inverse_cache_and_compose():
    t = T.SigmoidTransform(cache_size=1)
    x = gg.tensor([40.0], dtype=gg.float64)  # sigmoid(40) rounds to 1 - eps: the cache gives x back
    assert t.inv(t(x)) is x
    c = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(2.0, 3.0)])
    v = gg.tensor(LOC)
    np.testing.assert_allclose(c(v).numpy(), 2 + 3 * np.exp(LOC), rtol=1e-12)
    np.testing.assert_allclose(c.inv(c(v)).numpy(), LOC, rtol=1e-12)
    np.testing.assert_allclose(c.log_abs_det_jacobian(v, c(v)).numpy(), LOC + np.log(3), rtol=1e-12)
    with pytest.raises(ValueError, match="Transform"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")


def test_constraints_check():
    v = gg.tensor([-1.0, 0.0, 0.5, 1.0, float("nan")], dtype=gg.float64)
    assert constraints.positive.check(v).numpy().tolist() == [False, False, True, True, False]
    assert constraints.unit_interval.check(v).numpy().tolist() == [False, True, True, True, False]
    assert constraints.real.check(v).numpy().tolist() == [True, True, True, True, False]
    assert constraints.nonnegative_integer.check(v).numpy().tolist() == [False, True, False, True, False]
    assert constraints.real_vector.event_dim == 1 and constraints.simplex.event_dim == 1
    assert bool(constraints.simplex.check(gg.tensor([0.25, 0.75])).item())
