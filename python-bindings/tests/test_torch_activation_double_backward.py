"""Double backward (autograd.grad(create_graph=True), then backward) through GELU (exact and tanh),
SiLU, ELU (and the functions built on ELU: SELU, CELU), softplus, mish and hardswish, as a gradient
penalty through a critic with these activations needs: float64 central differences of the first
gradient, and torch's results. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(3)
_X = _RNG.standard_normal((4, 5)) * 1.5
_W1 = _RNG.uniform(0.5, 1.5, (4, 5))
_W2 = _RNG.uniform(0.5, 1.5, (4, 5))

# (name, f(functional, x))
_CASES = [
    ("gelu", lambda F, x: F.gelu(x)),
    ("silu", lambda F, x: F.silu(x)),
    ("silu inplace", lambda F, x: F.silu(x * 1.0, inplace=True)),
    ("elu", lambda F, x: F.elu(x)),
    ("elu alpha 0.7", lambda F, x: F.elu(x, 0.7)),
    ("elu inplace", lambda F, x: F.elu(x * 1.0, inplace=True)),
    ("selu", lambda F, x: F.selu(x)),
    ("celu alpha 1.3", lambda F, x: F.celu(x, 1.3)),
    ("gelu tanh", lambda F, x: F.gelu(x, approximate="tanh")),
    ("softplus", lambda F, x: F.softplus(x)),
    ("softplus beta 2 threshold 1", lambda F, x: F.softplus(x, beta=2, threshold=1)),
    ("mish", lambda F, x: F.mish(x)),
    ("hardswish", lambda F, x: F.hardswish(x * 2.5)),
]


def _first_gradient(lib, f, a):
    x = lib.tensor(a, requires_grad=True)
    (g,) = lib.autograd.grad((lib.tensor(_W1) * f(lib.nn.functional, x) ** 2).sum(), x, create_graph=True)
    return x, g


@pytest.mark.parametrize("name,f", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, f):
    x, g = _first_gradient(gg, f, _X)
    (gg.tensor(_W2) * g).sum().backward()
    got = x.grad.detach().numpy()
    eps = 1e-6
    want = np.zeros_like(_X)
    for i in np.ndindex(*_X.shape):
        hi, lo = _X.copy(), _X.copy()
        hi[i] += eps
        lo[i] -= eps
        gh = _first_gradient(gg, f, hi)[1].detach().numpy()
        gl = _first_gradient(gg, f, lo)[1].detach().numpy()
        want[i] = ((gh - gl) * _W2).sum() / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    xt, gt_ = _first_gradient(torch, f, _X)
    (torch.tensor(_W2) * gt_).sum().backward()
    # torch's float64 celu is itself 1.6e-8 away from its exact first gradient (and from its own
    # central differences): compared more loosely there
    tol = dict(rtol=1e-6, atol=1e-7) if name.startswith("celu") else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, xt.grad.numpy(), **tol)
