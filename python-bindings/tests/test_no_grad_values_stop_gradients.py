"""A value computed under no_grad() is a constant to every later backward, as in PyTorch: backward
does not differentiate through the ops that made it, even when they read tensors that require
gradients (export.cpp collect). A computed tensor that requires gradients and is written in place
under no_grad still requires them (alias.cpp), so backward reaches what it was computed from."""
import numpy as np
import pytest

import glassgrad as gg


def _x():
    return gg.tensor([2.0, 3.0], requires_grad=True)


def test_a_product_with_a_value_made_under_no_grad():
    x = _x()
    with gg.no_grad():
        al = x * 2
    (al * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 6.0])  # al, not 2 al (the old result: [8, 12])


def test_a_chain_of_ops_under_no_grad_is_one_constant():
    x = _x()
    with gg.no_grad():
        al = (x * 2).exp()
    (al * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([4.0, 6.0]), rtol=1e-6)


def test_a_target_network_gets_no_gradient_and_the_online_one_the_plain_one():
    net, tgt = gg.nn.Linear(2, 1), gg.nn.Linear(2, 1)
    with gg.no_grad():
        for m in (net, tgt):
            m.weight.copy_(gg.tensor([[0.3, -0.2]]))
            m.bias.copy_(gg.tensor([0.1]))
    s = gg.tensor([[1.0, 2.0]])
    with gg.no_grad():
        target = tgt(s) * 0.9 + 1
    ((net(s) - target) ** 2).sum().backward()
    # loss = (o - t)^2 with o = w.s + b and t = 0.9 o + 1 a constant: d/dw = 2 (o - t) s
    out = 0.3 * 1 - 0.2 * 2 + 0.1
    np.testing.assert_allclose(net.weight.grad.numpy(), [[2 * (out - (0.9 * out + 1)) * 1, 2 * (out - (0.9 * out + 1)) * 2]],
                               rtol=1e-6)
    assert tgt.weight.grad is None and tgt.bias.grad is None


def test_the_same_network_under_no_grad_and_with_gradients():
    """Self-distillation's pattern: one network's output under no_grad is the target of its own."""
    lin = gg.nn.Linear(1, 1, bias=False)
    with gg.no_grad():
        lin.weight.fill_(3.0)
    x = gg.tensor([[2.0]])
    with gg.no_grad():
        target = lin(x)  # 6
    ((lin(x) - 0.5 * target) ** 2).sum().backward()
    assert lin.weight.grad.item() == pytest.approx(2 * (6 - 3) * 2)  # the target is a constant


def test_an_in_place_write_under_no_grad_keeps_requires_grad():
    x = _x()
    y = x * 2
    with gg.no_grad():
        y.add_(1)
    assert y.requires_grad
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 28.0])  # 2 y dy/dx, y = 2x + 1


def test_enable_grad_inside_no_grad_records_again():
    x = _x()
    with gg.no_grad():
        with gg.enable_grad():
            w = x * 4
    w.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def test_an_ema_updated_under_no_grad_is_a_constant():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    ema = gg.zeros(2)
    with gg.no_grad():
        ema.mul_(0.9).add_(x * 0.1)
    ((x - ema) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.array([1.0, 2.0]) * 0.9), rtol=1e-6)


def test_a_product_written_in_place_under_no_grad_passes_gradients_as_pytorch():
    x = _x()
    y = x * 2
    with gg.no_grad():
        y.mul_(3)
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [16.0, 24.0])


def test_against_torch():
    torch = pytest.importorskip("torch")

    def run(L):
        out = []
        x = L.tensor([2.0, 3.0], requires_grad=True)
        with L.no_grad():
            a = (x * 2).sin() + x
        (a * x.exp()).sum().backward()
        out.append(x.grad.numpy().copy())
        x = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
        with L.no_grad():
            m = x.abs().max()
        (x / m).pow(2).sum().backward()
        out.append(x.grad.numpy().copy())
        x = L.tensor([2.0, 3.0], requires_grad=True)
        y = x * x
        with L.no_grad():
            y.sub_(1)
        (y * 3).sum().backward()
        out.append(x.grad.numpy().copy())
        return out

    for a, b in zip(run(torch), run(gg)):
        np.testing.assert_allclose(b, a, rtol=1e-5)


def _written_under_no_grad(L, write, after):
    """x's gradient through y = 2x (x * x for clamp_), written in place under no_grad, then after(y, x)."""
    x = L.tensor([2.0, 3.0, -1.5], requires_grad=True)
    y = x * x if write == "clamp_" else x * 2
    with L.no_grad():
        {"mul_": lambda: y.mul_(3), "zero_": lambda: y.zero_(), "clamp_": lambda: y.clamp_(max=4.0),
         "copy_": lambda: y.copy_(L.ones(3)), "add_": lambda: y.add_(1)}[write]()
    after(y, x).sum().backward()
    return x.grad.tolist(), y.requires_grad


# PyTorch's values: autograd did not record the write, so y's gradient reaches x through y = 2x
# (x * x) as if the write had not happened
_WRITES = {
    "mul_": (lambda y, x: y * x, [16.0, 24.0, -12.0]), "zero_": (lambda y, x: y * x, [4.0, 6.0, -3.0]),
    "clamp_": (lambda y, x: y * 1, [4.0, 6.0, -3.0]), "copy_": (lambda y, x: y * x, [5.0, 7.0, -2.0]),
    "add_": (lambda y, x: y * y, [20.0, 28.0, -8.0]),
}


@pytest.mark.parametrize("write", list(_WRITES))
def test_writes_under_no_grad_pass_the_gradient_unchanged(write):
    after, expected = _WRITES[write]
    assert _written_under_no_grad(gg, write, after) == (expected, True)


@pytest.mark.parametrize("write", list(_WRITES))
def test_writes_under_no_grad_against_torch(write):
    torch = pytest.importorskip("torch")
    after = _WRITES[write][0]
    assert _written_under_no_grad(gg, write, after) == _written_under_no_grad(torch, write, after)


def test_a_write_under_no_grad_keeps_the_values_exactly():
    x = gg.tensor([0.1, -0.0, 3.0], requires_grad=True)
    y = x * 1
    with gg.no_grad():
        y.mul_(gg.tensor([3.0, -1.0, float("inf")]))
    got = y.detach().numpy()
    assert got[0] == np.float32(0.1) * np.float32(3.0) and str(got[1]) == "0.0" and np.isinf(got[2])
