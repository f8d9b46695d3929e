"""The shape and matrix transforms and biject_to / transform_to without torch: round trips,
codomains (corr_cholesky, lower_cholesky, positive_definite, simplex), log-determinants against
finite-difference Jacobians, shapes, and float64 finite-difference gradients through the maps."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from glassgrad.distributions import constraints as C

rng = np.random.default_rng(14)


def T(x):
    return gg.tensor(np.asarray(x, dtype=np.float64))


def _log_det_fd(f, x):
    h = 1e-6
    cols = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)]
    return np.log(abs(np.linalg.det(np.stack(cols, 1))))


def test_corr_cholesky_transform():
    t = D.CorrCholeskyTransform()
    x = rng.standard_normal((2, 6))
    y = t(T(x))
    assert y.shape == (2, 4, 4) and bool(C.corr_cholesky.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-9, atol=1e-11)
    assert t.forward_shape((5, 6)) == (5, 4, 4) and t.inverse_shape((5, 4, 4)) == (5, 6)
    with pytest.raises(ValueError, match="flattened lower-diagonal"):
        t.forward_shape((5,))
    rows, cols = np.tril_indices(4, -1)  # the map onto the strict lower triangle is square: its Jacobian's log-det
    want = _log_det_fd(lambda v: t(T(v)).numpy()[rows, cols], x[0])
    np.testing.assert_allclose(t.log_abs_det_jacobian(T(x[0]), y[0]).item(), want, rtol=1e-6)
    assert gg.debug.gradcheck(lambda v: t(v), [x])


def test_matrix_transforms():
    m = rng.standard_normal((2, 3, 3))
    L = D.LowerCholeskyTransform()(T(m))
    assert bool(C.lower_cholesky.check(L).all())
    np.testing.assert_allclose(np.tril(L.numpy(), -1), np.tril(m, -1))
    np.testing.assert_allclose(np.diagonal(L.numpy(), axis1=-2, axis2=-1), np.exp(np.diagonal(m, axis1=-2, axis2=-1)))
    np.testing.assert_allclose(D.LowerCholeskyTransform().inv(L).numpy(), np.tril(m), rtol=1e-12, atol=1e-15)
    P = D.PositiveDefiniteTransform()(T(m))
    assert bool(C.positive_definite.check(P).all())
    np.testing.assert_allclose(P.numpy(), L.numpy() @ np.swapaxes(L.numpy(), -1, -2), rtol=1e-12)
    np.testing.assert_allclose(D.PositiveDefiniteTransform().inv(P).numpy(), np.tril(m), rtol=1e-9, atol=1e-12)


def test_shape_and_elementwise_transforms():
    x = rng.standard_normal((2, 3, 4))
    s = D.SoftmaxTransform()(T(x))
    np.testing.assert_allclose(s.numpy(), np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(D.AbsTransform()(T(x)).numpy(), np.abs(x))
    r = D.ReshapeTransform((3, 4), (12,))
    assert r(T(x)).shape == (2, 12) and r.inv(r(T(x))).shape == (2, 3, 4)
    assert r.forward_shape((2, 3, 4)) == (2, 12) and r.log_abs_det_jacobian(T(x), r(T(x))).shape == (2,)
    with pytest.raises(ValueError, match="different numbers of elements"):
        D.ReshapeTransform((3, 4), (5,))
    ind = D.IndependentTransform(D.ExpTransform(), 2)
    np.testing.assert_allclose(ind.log_abs_det_jacobian(T(x), ind(T(x))).numpy(), x.sum((-1, -2)), rtol=1e-12)
    assert ind.domain.event_dim == 2 and ind.codomain.event_dim == 2
    n = D.Normal(T(0.5), T(2.0))
    cdf = D.CumulativeDistributionTransform(n)
    v = T([-1.0, 0.3, 4.0])
    np.testing.assert_allclose(cdf(v).numpy(), n.cdf(v).numpy())
    np.testing.assert_allclose(cdf.inv(cdf(v)).numpy(), v.numpy(), rtol=1e-9)
    np.testing.assert_allclose(cdf.log_abs_det_jacobian(v, cdf(v)).numpy(), n.log_prob(v).numpy())


@pytest.mark.parametrize("constraint", [C.positive, C.nonnegative, C.greater_than(2.0), C.less_than(-1.0),
                                        C.unit_interval, C.interval(-1.0, 3.0), C.half_open_interval(0.0, 5.0),
                                        C.real, C.simplex, C.real_vector, C.corr_cholesky])
def test_biject_to_maps_reals_into_the_constraint_and_back(constraint):
    t = D.biject_to(constraint)
    assert t.bijective
    x = rng.standard_normal((3, 6)) if constraint is not C.simplex else rng.standard_normal((3, 4))
    y = t(T(x))
    assert bool(constraint.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-8, atol=1e-10)


def test_transform_to_and_registration():
    m = rng.standard_normal((2, 3, 3))
    for c in (C.lower_cholesky, C.positive_definite, C.positive_semidefinite, C.simplex):
        assert bool(c.check(D.transform_to(c)(T(m))).all())
    with pytest.raises(NotImplementedError, match="Cannot transform"):
        D.biject_to(C.positive_definite)
    registry = D.constraint_registry.ConstraintRegistry()
    registry.register(C.positive, lambda c: D.SoftplusTransform())
    assert isinstance(registry(C.positive), D.SoftplusTransform)


def test_cat_and_stack_transforms():
    x = rng.standard_normal((3, 5))
    t = D.CatTransform([D.ExpTransform(), D.identity_transform, D.AffineTransform(1.0, 3.0)], dim=1,
                       lengths=[2, 2, 1])
    y = t(T(x))
    want = np.concatenate([np.exp(x[:, :2]), x[:, 2:4], 1 + 3 * x[:, 4:]], 1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-12, atol=1e-14)
    ladj = np.concatenate([x[:, :2], np.zeros((3, 2)), np.full((3, 1), np.log(3.0))], 1)
    np.testing.assert_allclose(t.log_abs_det_jacobian(T(x), y).numpy(), ladj, rtol=1e-12, atol=1e-15)
    assert t.bijective and t.length == 5 and t.domain.check(T(x)).shape == (3, 5)
    with pytest.raises(AssertionError, match="must equal 5"):
        t(T(x[:, :4]))
    s = D.StackTransform([D.ExpTransform(), D.SigmoidTransform(), D.AffineTransform(1.0, 3.0)], dim=0)
    z = s(T(x))
    np.testing.assert_allclose(z.numpy(), np.stack([np.exp(x[0]), 1 / (1 + np.exp(-x[1])), 1 + 3 * x[2]]),
                               rtol=1e-12)
    np.testing.assert_allclose(s.inv(z).numpy(), x, rtol=1e-10, atol=1e-12)
    assert bool(s.codomain.check(z).all()) and not bool(s.codomain.check(T(-np.ones((3, 5)))).all())
    assert C.stack([C.real_vector, C.simplex], dim=-1).event_dim == 1
    assert C.cat([C.positive, C.real], dim=0, lengths=[1, 2]).check(T([1.0, -1.0, 0.0])).numpy().tolist() == \
        [True, True, True]
