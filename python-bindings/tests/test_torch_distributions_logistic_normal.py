"""StickBreakingTransform and LogisticNormal against torch (float64): the transform, its inverse and
log-determinant, LogisticNormal's shapes, log_prob and its gradients, rsample from the same normal
draws, expand and the KL of two LogisticNormals. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import matching_pair
from glassgrad.distributions.transforms import StickBreakingTransform

torch = pytest.importorskip("torch")
TD = torch.distributions

rng = np.random.default_rng(9)
LOC, SCALE = rng.standard_normal((2, 3)), rng.uniform(0.5, 1.5, (2, 3))
Y = rng.dirichlet(np.ones(4), (5, 2))


def _close(got, want, what=""):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=what)


def test_stick_breaking_matches_torch():
    x = rng.standard_normal((4, 3)) * 3
    ours, theirs = StickBreakingTransform(), TD.transforms.StickBreakingTransform()
    y, ty = ours(gg.tensor(x)), theirs(torch.tensor(x))
    _close(y, ty, "forward")
    _close(ours.inv(gg.tensor(Y[0])), theirs.inv(torch.tensor(Y[0])), "inverse")
    _close(ours.log_abs_det_jacobian(gg.tensor(x), y), theirs.log_abs_det_jacobian(torch.tensor(x), ty), "log det")


def test_logistic_normal_matches_torch():
    ours, theirs = matching_pair(D.LogisticNormal, TD.LogisticNormal, (LOC, SCALE), Y, torch)
    _close(ours.expand((3, 2)).log_prob(gg.tensor(Y[0])), theirs.expand((3, 2)).log_prob(torch.tensor(Y[0])))
    scalar, tscalar = D.LogisticNormal(gg.tensor(0.3), gg.tensor(1.2)), TD.LogisticNormal(0.3, 1.2)
    assert scalar.batch_shape == tuple(tscalar.batch_shape) and scalar.event_shape == tuple(tscalar.event_shape)
    q, tq = D.LogisticNormal(gg.tensor(SCALE), gg.tensor(LOC ** 2 + 0.5)), TD.LogisticNormal(
        torch.tensor(SCALE), torch.tensor(LOC ** 2 + 0.5))
    _close(D.kl_divergence(ours, q), TD.kl_divergence(theirs, tq), "kl")


def test_rsample_matches_torchs_transform_of_the_same_normal_draws():
    loc, scale = gg.tensor(LOC, requires_grad=True), gg.tensor(SCALE, requires_grad=True)
    tloc, tscale = torch.tensor(LOC, requires_grad=True), torch.tensor(SCALE, requires_grad=True)
    gg.manual_seed(1)
    y = D.LogisticNormal(loc, scale).rsample((6,))
    gg.manual_seed(1)
    eps = torch.tensor(gg.randn(6, 2, 3, dtype=gg.float64).numpy())
    want = TD.transforms.StickBreakingTransform()(tloc + tscale * eps)
    _close(y, want, "rsample")
    y.pow(2).sum().backward()
    want.pow(2).sum().backward()
    _close(loc.grad, tloc.grad, "d loc")
    _close(scale.grad, tscale.grad, "d scale")
