"""saved_tensors_hooks: the gradient reads what unpack_hook returns, as PyTorch's (an unpack hook
returning x * 2 changes the gradient). Expected values written from PyTorch 2 for
a = [1, 2, 3], b = [0.5, -1, 2] and the backward of (y * [1, 2, 3]).sum()."""
import numpy as np
import pytest

import glassgrad as gg

_OPS = {
    "mul": (lambda L, a, b: a * b, [1.0, -4.0, 12.0], [2.0, 8.0, 18.0]),
    "div": (lambda L, a, b: a / b, [1.0, -1.0, 0.75], [-2.0, -2.0, -1.125]),
    "exp": (lambda L, a, b: a.exp() + b, None, [1.0, 2.0, 3.0]),
    "mm": (lambda L, a, b: (a[:, None] @ b[None, :]).sum(1), [3.0, 6.0, 9.0], [28.0, 28.0, 28.0]),
    "broadcast mul": (lambda L, a, b: a * b[:1], [1.0, 2.0, 3.0], [28.0, 0.0, 0.0]),
    "sin": (lambda L, a, b: a.sin() + b, None, [1.0, 2.0, 3.0]),
    "tanh": (lambda L, a, b: a.tanh() + b, None, [1.0, 2.0, 3.0]),
    "sqrt": (lambda L, a, b: a.sqrt() + b, [0.25, 0.353553, 0.433013], [1.0, 2.0, 3.0]),
}


def _grads(lib, f, unpack=lambda x: x * 2, pack=lambda x: x, backward=None):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = f(lib, a, b)
    loss = (y * lib.tensor([1.0, 2.0, 3.0])).sum()
    if backward is None:
        loss.backward()
        return a.grad.numpy(), b.grad.numpy()
    return backward(loss, a, b)


@pytest.mark.parametrize("name", [n for n in _OPS if _OPS[n][1] is not None])
def test_unpacked_values_make_the_gradient(name):
    f, want_a, want_b = _OPS[name]
    got_a, got_b = _grads(gg, f)
    np.testing.assert_allclose(got_a, want_a, rtol=1e-5)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-5)


def test_exp_reads_its_unpacked_result():
    # exp saves its result: d/da = g * 2 * exp(a)
    got_a, _ = _grads(gg, _OPS["exp"][0])
    np.testing.assert_allclose(got_a, 2 * np.exp([1.0, 2.0, 3.0]) * [1, 2, 3], rtol=1e-5)


@pytest.mark.parametrize("name", list(_OPS))
def test_unchanged_values_keep_the_plain_gradient(name):
    f = _OPS[name][0]
    plain = [gg.tensor([1.0, 2.0, 3.0], requires_grad=True), gg.tensor([0.5, -1.0, 2.0], requires_grad=True)]
    (f(gg, *plain) * gg.tensor([1.0, 2.0, 3.0])).sum().backward()
    for unpack, pack in ((lambda x: x, lambda x: x), (lambda x: x, lambda x: x.detach().clone())):
        for got, want in zip(_grads(gg, f, unpack, pack), plain):
            np.testing.assert_allclose(got, want.grad.numpy(), rtol=1e-6)


def test_autograd_grad_and_retain_graph_read_the_unpacked_values_each_time():
    def twice(loss, a, b):
        first = gg.autograd.grad(loss, [a], retain_graph=True)[0].numpy()
        second = gg.autograd.grad(loss, [a])[0].numpy()
        return first, second
    first, second = _grads(gg, _OPS["mul"][0], backward=twice)
    np.testing.assert_allclose(first, [1.0, -4.0, 12.0])
    np.testing.assert_allclose(second, [1.0, -4.0, 12.0])


@pytest.mark.parametrize("name", list(_OPS))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    f = _OPS[name][0]
    for got, want in zip(_grads(gg, f), _grads(torch, f)):
        np.testing.assert_allclose(got, want, rtol=1e-5)
