"""Double backward as PyTorch runs it through what glassgrad builds from gradient hooks: a custom
autograd.Function's backward made of differentiable ops, and tensor hooks, run with grad mode on
under autograd.grad(create_graph=True) (what they return is differentiated again);
once_differentiable's stand-in that refuses a second differentiation (PyTorch's DelayedError);
BatchNorm's second derivative where the first gradient's seed is a constant (it reaches x only
through the batch statistics, which no handle holds). Expected values are PyTorch's, or float64
central differences of the first gradient; the torch comparisons are skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.autograd.function import once_differentiable


def _once(lib, decorate):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @decorate
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g
    return Square


def _square(lib):
    return _once(lib, lambda backward: backward)


def _exp_function(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return x.exp() * g
    return Exp


def test_custom_function_double_backward_through_its_backward():
    x = gg.tensor([1.5, 2.0], requires_grad=True)
    (g,) = gg.autograd.grad(_square(gg).apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 4.0])
    assert g.requires_grad and g.grad_fn is not None
    (h,) = gg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [2.0, 2.0])


def test_custom_function_second_derivative_of_a_chain():
    # d/dx exp(x^2) = 2x exp(x^2); its derivative (2 + 4x^2) exp(x^2)
    x0 = np.array([0.5, 1.0])
    x = gg.tensor(x0, dtype=gg.float64, requires_grad=True)
    (g,) = gg.autograd.grad(_exp_function(gg).apply(x * x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x0 * np.exp(x0 ** 2), rtol=1e-12)
    (h,) = gg.autograd.grad(g[0], x)
    np.testing.assert_allclose(h.numpy(), [(2 + 4 * 0.25) * np.exp(0.25), 0.0], rtol=1e-12)


def test_custom_function_backward_create_graph_fills_differentiable_grad():
    x = gg.tensor([1.0, 3.0], requires_grad=True)
    _square(gg).apply(x).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (h,) = gg.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(h.numpy(), [2.0, 2.0])


def test_tensor_hook_is_differentiated_with_create_graph():
    # PyTorch runs hooks under create_graph's grad mode: what they compute is differentiated again
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    y.register_hook(lambda g: g * y)
    (g,) = gg.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 16.0])  # 2x * x^2
    (h,) = gg.autograd.grad(g.sum(), x)
    # g = 2x * y with y = x^2 from the hook: 2y, plus the gradient 2x reaching y, which the hook
    # (on y, so run again) multiplies by y before it reaches x: 2x * y * 2x = 4x^4
    np.testing.assert_allclose(h.numpy(), [6.0, 72.0])


def test_leaf_hook_is_differentiated_with_create_graph():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * x)
    (g,) = gg.autograd.grad((x ** 3).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 24.0])  # 3x^2 * x
    (h,) = gg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [9.0, 72.0])  # PyTorch's values


def test_once_differentiable_with_a_constant_seed_gives_a_constant():
    x = gg.tensor([1.5, 2.0], requires_grad=True)
    (g,) = gg.autograd.grad(_once(gg, once_differentiable).apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [3.0, 4.0])
    assert not g.requires_grad and g.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        gg.autograd.grad(g.sum(), x)


def test_once_differentiable_refuses_a_second_differentiation():
    x = gg.tensor([0.5, 1.0], requires_grad=True)
    y = _once(gg, once_differentiable).apply(x).exp().sum()
    (g,) = gg.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.array([0.5, 1.0]) * np.exp([0.25, 1.0]), rtol=1e-6)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.sum().backward()


def test_once_differentiable_keeps_the_name_and_first_order_result():
    assert _once(gg, once_differentiable).backward.__name__ == "backward"
    x = gg.tensor([1.5, 2.0], requires_grad=True)
    _once(gg, once_differentiable).apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])


def _central(f, x0, eps=1e-6):
    out = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[i] = eps
        out[i] = (f(x0 + e) - f(x0 - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_second_derivative_with_a_constant_first_seed(shape, affine):
    # sum(y * gy) has a constant gradient gy at y: the second derivative reaches x only through
    # the batch statistics BatchNorm2DTrain saved (its mean and var), which no handle holds
    rng = np.random.default_rng(0)
    x0, gy, w2 = rng.standard_normal(shape), rng.standard_normal(shape), rng.standard_normal(shape)
    c = shape[1]

    def first(xv, create_graph):
        x = gg.tensor(xv, requires_grad=True)
        w = gg.tensor(np.linspace(0.5, 1.5, c), requires_grad=True) if affine else None
        b = gg.tensor(np.linspace(-0.2, 0.2, c), requires_grad=True) if affine else None
        y = F.batch_norm(x, None, None, w, b, training=True)
        (g,) = gg.autograd.grad((y * gg.tensor(gy)).sum(), x, create_graph=create_graph)
        return x, g

    x, g = first(x0, True)
    (h,) = gg.autograd.grad((g * gg.tensor(w2)).sum(), x)
    expected = _central(lambda xv: float((first(xv, False)[1].numpy() * w2).sum()), x0)
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_gradgradcheck_batch_norm_training():
    x = gg.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    assert gg.autograd.gradgradcheck(lambda t: F.batch_norm(t, None, None, training=True), (x,))


# --- the same against torch -------------------------------------------------------------------

def _both(fn):
    torch = pytest.importorskip("torch")
    return fn(torch), fn(gg)


def test_torch_custom_function_double_backward_matches():
    def run(lib):
        x = lib.tensor([0.5, 1.0, -0.3], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(_exp_function(lib).apply(x * x).sum() + _square(lib).apply(x).sin().sum(), x,
                                 create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        return g.detach().numpy(), h.numpy()
    (gt, ht), (gg_, hg) = _both(run)
    np.testing.assert_allclose(gg_, gt, rtol=1e-12)
    np.testing.assert_allclose(hg, ht, rtol=1e-12)


def test_torch_once_differentiable_matches():
    def run(lib):
        from importlib import import_module
        once = import_module(lib.__name__ + ".autograd.function").once_differentiable
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        (g,) = lib.autograd.grad(_once(lib, once).apply(x).exp().sum(), x, create_graph=True)
        try:
            g.sum().backward()
            message = None
        except RuntimeError as e:
            message = str(e).splitlines()[0]
        return g.requires_grad, message
    t, g = _both(run)
    assert t == g and t[1] is not None


def test_torch_batch_norm_second_derivative_matches():
    rng = np.random.default_rng(2)
    x0, gy, w2 = (rng.standard_normal((4, 3, 2)) for _ in range(3))

    def run(lib):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(np.linspace(0.5, 1.5, 3), requires_grad=True)
        y = lib.nn.functional.batch_norm(x, None, None, w, None, training=True)
        (g,) = lib.autograd.grad((y * lib.tensor(gy)).sum(), x, create_graph=True)
        hx, hw = lib.autograd.grad((g * lib.tensor(w2)).sum(), (x, w))
        return hx.numpy(), hw.numpy()
    (tx, tw), (gx, gw) = _both(run)
    np.testing.assert_allclose(gx, tx, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gw, tw, rtol=1e-9, atol=1e-12)
