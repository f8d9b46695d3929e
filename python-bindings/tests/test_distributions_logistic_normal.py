"""StickBreakingTransform and LogisticNormal without torch: x = 0 maps to the uniform simplex, the
inverse recovers x, log_abs_det_jacobian equals the log-determinant of the finite-difference
Jacobian onto the first K coordinates, LogisticNormal's shapes, draws on the simplex, and float64
finite-difference gradients of log_prob and rsample (docs/distributions.md)."""
import numpy as np

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions.transforms import StickBreakingTransform

rng = np.random.default_rng(4)


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def test_stick_breaking_maps_zero_to_the_centre_and_inverts():
    t = StickBreakingTransform()
    np.testing.assert_allclose(t(T(np.zeros(3))).numpy(), np.full(4, 0.25), rtol=1e-14)
    x = rng.standard_normal((2, 3))
    y = t(T(x))
    np.testing.assert_allclose(y.numpy().sum(-1), 1.0, rtol=1e-14)
    assert (y.numpy() > 0).all()
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-10, atol=1e-12)
    assert t.forward_shape((2, 3)) == (2, 4) and t.inv.forward_shape((2, 4)) == (2, 3)
    assert t.domain.event_dim == 1 and t.codomain is D.constraints.simplex and t == StickBreakingTransform()


def test_stick_breaking_log_det_is_the_jacobians():
    t = StickBreakingTransform()
    x = rng.standard_normal(3)
    h = 1e-6
    jac = np.stack([(t(T(x + h * e)).numpy()[:3] - t(T(x - h * e)).numpy()[:3]) / (2 * h) for e in np.eye(3)], 1)
    want = np.log(abs(np.linalg.det(jac)))
    got = t.log_abs_det_jacobian(T(x), t(T(x))).item()
    np.testing.assert_allclose(got, want, rtol=1e-7)


def test_logistic_normal_shapes_and_draws():
    loc, scale = rng.standard_normal((2, 3)), rng.uniform(0.5, 1.5, (2, 3))
    d = D.LogisticNormal(T(loc), T(scale))
    assert d.batch_shape == (2,) and d.event_shape == (4,) and d.has_rsample
    assert D.LogisticNormal(T(0.3), T(1.2)).event_shape == (2,)
    gg.manual_seed(0)
    x = d.sample((1000,)).numpy()
    assert x.shape == (1000, 2, 4) and (x > 0).all()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    # the log-ratios log(y_j / stick left) recover loc + scale * N(0, 1)
    e = d.expand((5, 2))
    assert type(e) is D.LogisticNormal and e.batch_shape == (5, 2) and e.loc.shape == (5, 2, 3)
    assert d.support is D.constraints.simplex and set(d.arg_constraints) == {"loc", "scale"}
    np.testing.assert_allclose(d.loc.numpy(), loc)


def test_log_prob_is_the_change_of_variables():
    loc, scale = np.array([0.2, -0.4]), np.array([0.7, 1.3])
    y = np.array([0.5, 0.3, 0.2])
    # inverse by hand: x_j = log(y_j / (1 - sum_{i<=j} y_i)) + log(K - j)
    sf = 1 - np.cumsum(y[:2])
    x = np.log(y[:2] / sf) + np.log([2.0, 1.0])
    normal = -0.5 * ((x - loc) / scale) ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)
    z = 1 / (1 + np.exp(-(x - np.log([2.0, 1.0]))))
    log_det = np.sum(np.log(z) + np.log1p(-z) + np.log(np.r_[1.0, np.cumprod(1 - z)[:-1]]))
    got = D.LogisticNormal(T(loc), T(scale)).log_prob(T(y)).item()
    np.testing.assert_allclose(got, normal.sum() - log_det, rtol=1e-12)


def test_gradients_match_finite_differences():
    y = rng.dirichlet(np.ones(4), 2)

    def log_prob(loc, scale):
        return D.LogisticNormal(loc, scale).log_prob(T(y))

    def rsample(loc, scale):
        gg.manual_seed(5)
        return D.LogisticNormal(loc, scale).rsample((3,))

    args = [rng.standard_normal((2, 3)), rng.uniform(0.5, 1.5, (2, 3))]
    assert gg.debug.gradcheck(log_prob, args)
    assert gg.debug.gradcheck(rsample, args)
