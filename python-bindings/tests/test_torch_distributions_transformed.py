"""TransformedDistribution and the transforms against torch.distributions on the same float64
parameters: shapes, log_prob and its gradients, cdf, icdf, each transform's forward, inverse and
log_abs_det_jacobian, and draws' moments. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributions as D
from distribution_checks import log_prob_and_backward_match
import glassgrad.distributions.transforms as T

torch = pytest.importorskip("torch")
TD = torch.distributions
TT = torch.distributions.transforms

_rng = np.random.default_rng(33)
LOC, SCALE = _rng.standard_normal(4), _rng.uniform(0.5, 1.5, 4)
V01 = _rng.uniform(0.05, 0.95, 4)

CASES = {
    "affine_exp": (lambda M, K, a, b: M.TransformedDistribution(M.Normal(a, b), [K.AffineTransform(0.5, 2.0),
                                                                                 K.ExpTransform()]), V01 * 3, True),
    "sigmoid": (lambda M, K, a, b: M.TransformedDistribution(M.Normal(a, b), K.SigmoidTransform()), V01, True),
    "tanh": (lambda M, K, a, b: M.TransformedDistribution(M.Normal(a, b), [K.TanhTransform()]), V01 * 2 - 1, True),
    "decreasing_affine": (lambda M, K, a, b: M.TransformedDistribution(M.Exponential(b), [K.AffineTransform(a, -b)]),
                          LOC - SCALE * V01, True),
    "event_affine": (lambda M, K, a, b: M.TransformedDistribution(M.Normal(a, b), [K.AffineTransform(a, b,
                                                                                                     event_dim=1)]),
                     V01, False),
    "power_softplus": (lambda M, K, a, b: M.TransformedDistribution(M.Exponential(b), [K.PowerTransform(0.5),
                                                                                       K.SoftplusTransform()]),
                       V01 + 0.8, True),
    "inverse": (lambda M, K, a, b: M.TransformedDistribution(M.Uniform(a * 0 + 0.1, a * 0 + 5.0),
                                                             [K.ExpTransform().inv]), V01, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformed_distribution_matches_torch(name):
    make, value, monotone = CASES[name]
    a, b = gg.tensor(LOC, requires_grad=True), gg.tensor(SCALE, requires_grad=True)
    ta, tb = torch.tensor(LOC, requires_grad=True), torch.tensor(SCALE, requires_grad=True)
    ours, theirs = make(D, T, a, b), make(TD, TT, ta, tb)
    log_prob_and_backward_match(ours, theirs, value, torch)
    for g, t in ((a.grad, ta.grad), (b.grad, tb.grad)):
        if t is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    if monotone:
        np.testing.assert_allclose(ours.cdf(gg.tensor(value)).detach().numpy(),
                                   theirs.cdf(torch.tensor(value)).detach().numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours.icdf(gg.tensor(V01)).detach().numpy(),
                                   theirs.icdf(torch.tensor(V01)).detach().numpy(), rtol=1e-10, atol=1e-12)
    gg.manual_seed(2)
    n = 20000
    draws = ours.sample((n,))
    assert draws.shape == (n, 4) and not draws.requires_grad
    want = theirs.sample((n,)).numpy()
    # medians of the two samples agree within a few standard errors of a median
    spread = np.subtract(*np.percentile(want, [75, 25], axis=0))
    assert np.all(np.abs(np.median(draws.numpy(), 0) - np.median(want, 0)) < 6 * spread / np.sqrt(n))
    big = ours.expand((3,) + tuple(ours.batch_shape))
    assert big.sample((2,)).shape == (2, 3, 4)
    np.testing.assert_allclose(big.log_prob(gg.tensor(value)).detach().numpy(),
                               theirs.expand((3,) + tuple(theirs.batch_shape)).log_prob(torch.tensor(value)).detach()
                               .numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make", [lambda K, t: K.ExpTransform(), lambda K, t: K.SigmoidTransform(),
                                  lambda K, t: K.TanhTransform(), lambda K, t: K.SoftplusTransform(),
                                  lambda K, t: K.AffineTransform(t(LOC), t(-SCALE)),
                                  lambda K, t: K.PowerTransform(t(SCALE)),
                                  lambda K, t: K.ComposeTransform([K.ExpTransform(), K.AffineTransform(1.0, 3.0)]),
                                  lambda K, t: K.SigmoidTransform().inv])
def test_transforms_match_torch(make):
    ours, theirs = make(T, gg.tensor), make(TT, torch.tensor)
    x = np.abs(LOC) + 0.1 if isinstance(ours, T.PowerTransform) else (V01 if "Inverse" in type(ours).__name__ else LOC)
    y, ty = ours(gg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.inv(y).numpy(), theirs.inv(ty).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.log_abs_det_jacobian(gg.tensor(x), y).numpy(),
                               theirs.log_abs_det_jacobian(torch.tensor(x), ty).numpy(), rtol=1e-10, atol=1e-12)
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim and ours.codomain.event_dim == theirs.codomain.event_dim
