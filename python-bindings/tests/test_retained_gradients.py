"""retain_grad() on a computed tensor as PyTorch's: every backward() or autograd.grad() whose walk
computes the tensor's gradient stores it, after the tensor's hooks (create_graph=True too, where
the stored gradient is differentiable), and a second backward replaces .grad by a new tensor
holding the sum; the object read before keeps its values (docs/gradient-hooks.md)."""
import numpy as np
import pytest

import glassgrad as gg


def _leaf():
    return gg.tensor([1.0, 2.0, 3.0], requires_grad=True)


def test_a_second_backward_makes_a_new_tensor_holding_the_sum():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    first = y.grad
    z.backward()
    assert y.grad is not first
    np.testing.assert_array_equal(first.numpy(), [4.0, 8.0, 12.0])
    np.testing.assert_array_equal(y.grad.numpy(), [8.0, 16.0, 24.0])
    assert y.grad is y.grad


def test_clearing_between_backwards_starts_again():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    z = (y * y).sum()
    z.backward(retain_graph=True)
    y.grad = None
    z.backward()
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 8.0, 12.0])
    assert [s.tolist() for s in seen] == [[4.0, 8.0, 12.0]] * 2


def test_backward_with_create_graph_stores_a_differentiable_gradient():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward(create_graph=True)
    assert y.grad is not None and y.grad.requires_grad
    np.testing.assert_array_equal(y.grad.detach().numpy(), [4.0, 8.0, 12.0])
    # d/dx sum(y.grad) = d/dx sum(2 * 2x) = 4
    (gx,) = gg.autograd.grad(y.grad.sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [4.0, 4.0, 4.0])


def test_create_graph_accumulates_out_of_place_and_keeps_the_hook_result():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    z = (y * y).sum()
    z.backward(create_graph=True)
    first = y.grad
    z.backward(create_graph=True)
    np.testing.assert_array_equal(first.detach().numpy(), [40.0, 80.0, 120.0])
    np.testing.assert_array_equal(y.grad.detach().numpy(), [80.0, 160.0, 240.0])
    assert y.grad.requires_grad


def test_autograd_grad_stores_the_retained_gradient():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    (gx,) = gg.autograd.grad((y * y).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [8.0, 16.0, 24.0])
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 8.0, 12.0])
    assert x.grad is None


def test_autograd_grad_of_the_retained_tensor_itself():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    (gy,) = gg.autograd.grad((y * y).sum(), y)
    np.testing.assert_array_equal(gy.numpy(), [4.0, 8.0, 12.0])
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 8.0, 12.0])


def test_backward_inputs_off_the_retained_path_leaves_it_alone():
    x, w = _leaf(), _leaf()
    y = x * 2
    y.retain_grad()
    z = (y * y * w).sum()
    z.backward(inputs=[w], retain_graph=True)
    assert y.grad is None
    z.backward(inputs=[x])
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 16.0, 36.0])  # 2 * y * w
    assert w.grad is not None and x.grad is not None


def test_backward_inputs_naming_the_retained_tensor_stores_once():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward(inputs=[y])
    np.testing.assert_array_equal(y.grad.numpy(), [4.0, 8.0, 12.0])
    assert x.grad is None


def test_torch_gives_the_same_retained_gradients():
    torch = pytest.importorskip("torch")

    def run(lib):
        out = []
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([1.0, -1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 3)
        z = (y * y * w).sum()
        z.backward(retain_graph=True)
        out.append(y.grad.detach().numpy().copy())
        lib.autograd.grad(z, x, retain_graph=True)
        out.append(y.grad.detach().numpy().copy())
        y.grad = None
        z.backward(inputs=[w], retain_graph=True)
        out.append(y.grad)
        z.backward(inputs=[y], retain_graph=True)
        out.append(y.grad.detach().numpy().copy())
        z.backward(create_graph=True)
        out.append((y.grad.detach().numpy().copy(), y.grad.requires_grad))
        return out

    ours, theirs = run(gg), run(torch)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_array_equal(a, b)
    assert ours[2] is None and theirs[2] is None
    np.testing.assert_array_equal(ours[3], theirs[3])
    np.testing.assert_array_equal(ours[4][0], theirs[4][0])
    assert ours[4][1] == theirs[4][1]
