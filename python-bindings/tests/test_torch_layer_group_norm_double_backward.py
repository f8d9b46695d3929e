"""Double backward (autograd.grad(create_graph=True), then backward) through layer_norm and
group_norm, with and without their affine parameters, a transformer block and a Hessian: float64
central differences of the first gradient, and torch's results (WGAN-GP critics with LayerNorm and
GroupNorm are in test_torch_norm_double_backward.py). Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from double_backward_check import check

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(5)


def _ln(shape):
    return lambda L, x: L.nn.functional.layer_norm(x, shape, eps=1e-3)


def _ln_affine(shape):
    return lambda L, x, w, b: L.nn.functional.layer_norm(x, shape, w, b, eps=1e-3)


def _gn(groups):
    return lambda L, x: L.nn.functional.group_norm(x, groups, eps=1e-3)


def _gn_affine(groups):
    return lambda L, x, w, b: L.nn.functional.group_norm(x, groups, w, b, eps=1e-3)


def _p(*shape):
    return _RNG.uniform(0.5, 1.5, shape)


# (name, x's shape, f(lib, x, *rest), rest arrays, arguments differentiated)
_CASES = [
    ("layer_norm last axis", (3, 5), _ln([5]), [], (0,)),
    ("layer_norm two axes", (2, 3, 4), _ln([3, 4]), [], (0,)),
    ("layer_norm one row", (6,), _ln([6]), [], (0,)),
    ("layer_norm affine", (4, 5), _ln_affine([5]), [_p(5), _RNG.standard_normal(5)], (0, 1, 2)),
    ("layer_norm affine two axes", (2, 2, 3), _ln_affine([2, 3]), [_p(2, 3), _RNG.standard_normal((2, 3))], (0, 1, 2)),
    ("layer_norm weight only", (3, 4), lambda L, x, w: L.nn.functional.layer_norm(x, [4], w, None, eps=1e-3),
     [_p(4)], (0, 1)),
    ("layer_norm bias only", (3, 4), lambda L, x, b: L.nn.functional.layer_norm(x, [4], None, b, eps=1e-3),
     [_RNG.standard_normal(4)], (0, 1)),
    ("group_norm 2 groups", (2, 4, 3), _gn(2), [], (0,)),
    ("group_norm 1 group 4-d", (2, 3, 2, 2), _gn(1), [], (0,)),
    ("group_norm one channel a group", (3, 3, 2), _gn(3), [], (0,)),
    ("group_norm affine 4-d", (2, 4, 2, 3), _gn_affine(2), [_p(4), _RNG.standard_normal(4)], (0, 1, 2)),
    ("group_norm affine 2-d", (3, 6), _gn_affine(3), [_p(6), _RNG.standard_normal(6)], (0, 1, 2)),
    ("layer_norm of a product", (3, 4), lambda L, x, v: L.nn.functional.layer_norm(x * v, [4], eps=1e-3),
     [_RNG.standard_normal((3, 4))], (0, 1)),
]


@pytest.mark.parametrize("name,shape,f,rest,wrt", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, shape, f, rest, wrt):
    x0 = np.random.default_rng(11).standard_normal(shape)
    check(f, [x0, *rest], wrt)


def test_transformer_block_double_backward_matches_torch():
    """A pre-norm transformer block's MLP half (LayerNorm, Linear, GELU, Linear, residual) and a
    softmax over its tokens: d/dparameters of the squared norm of d(out)/dx, float64, against torch."""
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((2, 3, 6))
    res = []
    for L in (gg, torch):
        ln, fc1, fc2 = L.nn.LayerNorm(6).double(), L.nn.Linear(6, 8).double(), L.nn.Linear(8, 6).double()
        with L.no_grad():
            for p in (*ln.parameters(), *fc1.parameters(), *fc2.parameters()):
                p.copy_(L.tensor(np.random.default_rng(p.numel()).standard_normal(tuple(p.shape)) * 0.5 + (p.dim() == 1) * 0.2))
        x = L.tensor(x0, requires_grad=True)
        h = x + fc2(L.nn.functional.gelu(fc1(ln(x))))
        out = L.nn.functional.softmax(h.sum(-1), dim=-1)
        (g,) = L.autograd.grad((out * L.tensor(np.arange(1.0, 4.0))).sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        res.append([p.grad.detach().numpy() for p in (*ln.parameters(), *fc1.parameters(), *fc2.parameters())])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_hessian_of_layer_norm_matches_torch():
    """autograd.functional.hessian of sum(tanh(layer_norm(x, w)) * c) in x."""
    rng = np.random.default_rng(6)
    x0, w0, c0 = rng.standard_normal((2, 3)), rng.uniform(0.5, 1.5, 3), rng.standard_normal((2, 3))
    res = []
    for L in (gg, torch):
        w, c = L.tensor(w0), L.tensor(c0)
        h = L.autograd.functional.hessian(lambda x: (L.tanh(L.nn.functional.layer_norm(x, [3], w)) * c).sum(), L.tensor(x0))
        res.append(h.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-11)
