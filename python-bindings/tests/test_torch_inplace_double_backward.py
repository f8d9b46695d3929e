"""Double backward (autograd.grad(create_graph=True), then backward) through in-place ops, as
PyTorch runs it: the gradient penalty of a critic with LeakyReLU(0.2, inplace=True) (PyTorch-GAN's
wgan_gp.py and wgan_div.py). The gradient of an in-place op reads the version the op overwrote;
a second backward through that gradient may read it too (PyTorch saves leaky_relu_'s result, and
each in-place op's own inputs for its double backward). Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from torch_compare import assert_parameter_grads_match

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
_X, _W, _V = _RNG.standard_normal((3, 6)), _RNG.standard_normal((6, 5)), _RNG.standard_normal((5, 1))

# (name, f(lib, functional, h) changing h in place and returning the result)
_OPS = [
    ("leaky_relu_", lambda L, F, h: F.leaky_relu_(h, 0.2)),
    ("leaky_relu inplace", lambda L, F, h: F.leaky_relu(h, 0.2, inplace=True)),
    ("relu_", lambda L, F, h: h.relu_()),
    ("relu inplace", lambda L, F, h: F.relu(h, inplace=True)),
    ("hardtanh inplace", lambda L, F, h: F.hardtanh(h, inplace=True)),
    ("sigmoid_", lambda L, F, h: h.sigmoid_()),
    ("tanh_", lambda L, F, h: h.tanh_()),
    ("exp_", lambda L, F, h: h.exp_()),
    ("pow_", lambda L, F, h: h.pow_(2)),
    ("mul_", lambda L, F, h: h.mul_(h.detach() + 1)),
    ("add_", lambda L, F, h: h.add_(1.0)),
    ("clamp_", lambda L, F, h: h.clamp_(-0.5, 0.5)),
    ("dropout eval inplace", lambda L, F, h: F.dropout(h, 0.5, training=False, inplace=True)),
    ("x[0] = ...", lambda L, F, h: h.__setitem__(0, h[1] * 2) or h),
]


def _second_order(lib, f):
    """d/dw of sum(grad_x(sum((f(x @ w))^2 @ v))^2) and the first gradient, or the exception."""
    x = lib.tensor(_X, requires_grad=True)
    w = lib.tensor(_W, requires_grad=True)
    h = f(lib, lib.nn.functional, x @ w)
    (g,) = lib.autograd.grad(((h * h) @ lib.tensor(_V)).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    return g.detach().numpy(), w.grad.detach().numpy(), x.grad.detach().numpy()


@pytest.mark.parametrize("name,f", _OPS, ids=[c[0] for c in _OPS])
def test_double_backward_through_an_inplace_op_matches_torch(name, f):
    theirs = _second_order(torch, f)
    ours = _second_order(gg, f)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_wgan_gp_penalty_through_inplace_leaky_relu():
    """The discriminator of PyTorch-GAN's wgan_gp.py in small: its gradient penalty reaches the
    parameters as in torch."""
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((3, 6)).astype(np.float32)
    grads = []
    for L in (gg, torch):
        nn = L.nn
        d = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2, inplace=True), nn.Linear(8, 4),
                          nn.LeakyReLU(0.2, inplace=True), nn.Linear(4, 1))
        prng = np.random.default_rng(2)
        with L.no_grad():
            for p in d.parameters():
                p.copy_(L.tensor(prng.standard_normal(tuple(p.shape)).astype(np.float32)))
        x = L.tensor(x0, requires_grad=True)
        (g,) = L.autograd.grad(d(x), x, L.ones(3, 1), create_graph=True)
        ((g.norm(2, dim=1) - 1) ** 2).mean().backward()
        grads.append([None if p.grad is None else p.grad.detach().numpy() for p in d.parameters()])
    assert_parameter_grads_match(*grads, rtol=1e-4, atol=1e-6)


def test_a_write_after_the_inplace_op_still_raises():
    """The exemption is the in-place op's own: a later write of its result, which the op's
    gradient (and so its double backward) reads, raises as in torch."""
    def run(L):
        x = L.tensor(_X, requires_grad=True)
        h = x * 2
        h.sigmoid_()  # SigmoidBackward reads its result
        (g,) = L.autograd.grad((h * h).sum(), x, create_graph=True)
        with L.no_grad():
            h.mul_(2)
        g.sum().backward()

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(torch)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(gg)


_LATER_WRITES = [
    ("sigmoid_ then add_", lambda h: h.sigmoid_().add_(1)),
    ("tanh_ then mul_", lambda h: h.tanh_().mul_(3)),
    ("exp_ then x[0] = 1", lambda h: h.exp_().__setitem__(0, 1.0)),
    ("add_ then sigmoid_", lambda h: h.add_(1).sigmoid_()),
    ("mul_ by 2 then add_", lambda h: h.mul_(2).add_(1)),
]


@pytest.mark.parametrize("name,f", _LATER_WRITES, ids=[c[0] for c in _LATER_WRITES])
def test_a_later_write_of_an_inplace_result_raises_where_torch_does(name, f):
    """An in-place op's gradient may read the version the op overwrote, not a later one: a second
    in-place write of the result that the first op's gradient reads raises at backward."""
    def run(L):
        x = L.tensor(_X, requires_grad=True)
        h = x * 2
        f(h)
        try:
            (h * h).sum().backward()
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e)
            return None
        return x.grad.detach().numpy()

    want, got = run(torch), run(gg)
    assert (got is None) == (want is None), f"torch {'raised' if want is None else 'ran'}"
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-12)
