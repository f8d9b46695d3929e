"""The shape and matrix transforms and biject_to / transform_to against torch (float64): forward,
inverse and log-determinant values and gradients, shapes, and which transform each registry gives
for each constraint. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(15)
VEC = rng.standard_normal((2, 6))
MAT = rng.standard_normal((2, 3, 3))


def _close(got, want, what=""):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("name,x", [("CorrCholeskyTransform", VEC), ("SoftmaxTransform", VEC),
                                    ("AbsTransform", VEC), ("LowerCholeskyTransform", MAT),
                                    ("PositiveDefiniteTransform", MAT)])
def test_transforms_match_torch(name, x):
    ours, theirs = getattr(D, name)(), getattr(TD, name)()
    gx, tx = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(gx), theirs(tx)
    _close(y, ty, "forward")
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    _close(gx.grad, tx.grad, "gradient")
    _close(ours.inv(gg.tensor(ty.detach().numpy())), theirs.inv(ty.detach()), "inverse")
    if name == "CorrCholeskyTransform":
        _close(ours.log_abs_det_jacobian(gg.tensor(x), y), theirs.log_abs_det_jacobian(torch.tensor(x), ty), "ladj")
    assert ours.domain.event_dim == theirs.domain.event_dim and ours.codomain.event_dim == theirs.codomain.event_dim
    assert ours.forward_shape(x.shape) == tuple(theirs.forward_shape(torch.Size(x.shape)))


def test_wrapper_transforms_match_torch():
    x = rng.standard_normal((2, 3, 4))
    ours, theirs = D.IndependentTransform(D.ExpTransform(), 1), TD.IndependentTransform(TD.ExpTransform(), 1)
    y, ty = ours(gg.tensor(x)), theirs(torch.tensor(x))
    _close(ours.log_abs_det_jacobian(gg.tensor(x), y), theirs.log_abs_det_jacobian(torch.tensor(x), ty))
    r, tr = D.ReshapeTransform((3, 4), (2, 6)), TD.ReshapeTransform(torch.Size((3, 4)), torch.Size((2, 6)))
    _close(r(gg.tensor(x)), tr(torch.tensor(x)))
    assert r.inverse_shape((5, 2, 6)) == tuple(tr.inverse_shape(torch.Size((5, 2, 6))))
    n, tn = D.Gamma(gg.tensor(2.0, dtype=gg.float64), gg.tensor(1.5, dtype=gg.float64)), TD.Gamma(torch.tensor(2.0, dtype=torch.float64),
                                                              torch.tensor(1.5, dtype=torch.float64))
    v = np.array([0.3, 1.0, 2.5])
    c, tc = D.CumulativeDistributionTransform(n), TD.CumulativeDistributionTransform(tn)
    _close(c(gg.tensor(v)), tc(torch.tensor(v)))
    _close(c.log_abs_det_jacobian(gg.tensor(v), c(gg.tensor(v))), tc.log_abs_det_jacobian(torch.tensor(v),
                                                                                           tc(torch.tensor(v))))


CONSTRAINTS = ["positive", "nonnegative", "unit_interval", "simplex", "real", "real_vector", "corr_cholesky",
               "lower_cholesky", "positive_definite", "positive_semidefinite"]


@pytest.mark.parametrize("name", CONSTRAINTS)
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_match_torch(registry, name):
    ours_c, theirs_c = getattr(D.constraints, name), getattr(TD.constraints, name)
    try:
        theirs = getattr(TD, registry)(theirs_c)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(D, registry)(ours_c)
        return
    ours = getattr(D, registry)(ours_c)
    assert type(ours).__name__ == type(theirs).__name__
    shape = {"simplex": (3, 4), "corr_cholesky": (3, 6)}.get(name, (2, 3, 3) if "definite" in name or "cholesky"
                                                              in name else (3, 4))
    x = rng.standard_normal(shape)
    _close(ours(gg.tensor(x)), theirs(torch.tensor(x)), f"{registry}({name})")


def test_bounded_registries_match_torch():
    for make in (lambda c: c.greater_than(2.0), lambda c: c.less_than(-1.0), lambda c: c.interval(-1.0, 3.0),
                 lambda c: c.half_open_interval(0.0, 5.0), lambda c: c.greater_than_eq(1.5)):
        for registry in ("biject_to", "transform_to"):
            x = rng.standard_normal(5)
            ours = getattr(D, registry)(make(D.constraints))(gg.tensor(x))
            theirs = getattr(TD, registry)(make(TD.constraints))(torch.tensor(x))
            _close(ours, theirs)


def test_cat_and_stack_match_torch():
    x = rng.standard_normal((3, 5))
    for make, kw in (("CatTransform", {"dim": 1, "lengths": [2, 2, 1]}), ("CatTransform", {"dim": -1,
                                                                                            "lengths": [1, 3, 1]})):
        ours = getattr(D, make)([D.ExpTransform(), D.IndependentTransform(D.ExpTransform(), 1),
                                 D.AffineTransform(1.0, 3.0)], **kw)
        theirs = getattr(TD, make)([TD.ExpTransform(), TD.IndependentTransform(TD.ExpTransform(), 1),
                                    TD.AffineTransform(1.0, 3.0)], **kw)
        y, ty = ours(gg.tensor(x)), theirs(torch.tensor(x))
        _close(y, ty)
        _close(ours.log_abs_det_jacobian(gg.tensor(x), y), theirs.log_abs_det_jacobian(torch.tensor(x), ty))
        assert ours.event_dim == theirs.event_dim
    ours = D.StackTransform([D.ExpTransform(), D.SigmoidTransform(), D.AffineTransform(1.0, 3.0)], dim=0)
    theirs = TD.StackTransform([TD.ExpTransform(), TD.SigmoidTransform(), TD.AffineTransform(1.0, 3.0)], dim=0)
    y, ty = ours(gg.tensor(x)), theirs(torch.tensor(x))
    _close(y, ty)
    _close(ours.log_abs_det_jacobian(gg.tensor(x), y), theirs.log_abs_det_jacobian(torch.tensor(x), ty))
    np.testing.assert_array_equal(ours.codomain.check(y).numpy(), theirs.codomain.check(ty).numpy())
    assert [n for n in TD.__all__ if not hasattr(D, n)] == []
