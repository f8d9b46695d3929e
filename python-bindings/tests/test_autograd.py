"""glassgrad.autograd (torch.autograd's names): grad, backward(inputs=), Function with custom
gradients, Variable, functional.jacobian/jvp/vjp, anomaly detection, inference_mode."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.autograd as A
from glassgrad import _C

RNG = np.random.default_rng(7)
XN = RNG.standard_normal((3, 4))
WN = RNG.standard_normal((4, 2))


def _leaf(a):
    return gg.tensor(np.array(a, dtype=np.float64), requires_grad=True)


def test_grad_returns_gradients_and_changes_no_grad_field():
    x, w = _leaf(XN), _leaf(WN)
    y = (x @ w).tanh()
    loss = (y * y).sum()
    gx, gw = A.grad(loss, [x, w], retain_graph=True)
    t = np.tanh(XN @ WN)
    dy = 2 * t * (1 - t * t)
    np.testing.assert_allclose(gx.numpy(), dy @ WN.T, rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), XN.T @ dy, rtol=1e-12)
    assert x.grad is None and w.grad is None
    (gy,) = A.grad(loss, y)  # a computed tensor as the input
    np.testing.assert_allclose(gy.numpy(), 2 * t, rtol=1e-12)


def test_grad_outputs_seed_each_output():
    x = _leaf(XN)
    a, b = x * 2, x.sin()
    (g,) = A.grad([a, b], [x], [gg.ones_like(a), gg.tensor(XN)])
    np.testing.assert_allclose(g.numpy(), 2 + np.cos(XN) * XN, rtol=1e-12)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        A.grad(x * 2, [x])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        A.grad(x * 2, [x], gg.ones(2))


def test_grad_of_an_unused_or_non_differentiable_input():
    x, z = _leaf(XN), _leaf(XN)
    loss = (x * 3).sum()
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        A.grad(loss, [z], retain_graph=True)
    assert A.grad(loss, [x, z], allow_unused=True, retain_graph=True)[1] is None
    g = A.grad(loss, [z], materialize_grads=True, retain_graph=True)[0]
    np.testing.assert_array_equal(g.numpy(), np.zeros_like(XN))
    with pytest.raises(RuntimeError, match="does not require grad"):
        A.grad(loss, [gg.tensor(XN)])


def test_grad_frees_the_graph_unless_retained():
    x = _leaf(XN)
    loss = (x.exp() * x).sum()
    A.grad(loss, [x], retain_graph=True)
    (g,) = A.grad(loss, [x])
    np.testing.assert_allclose(g.numpy(), np.exp(XN) * (1 + XN), rtol=1e-12)
    with pytest.raises(Exception, match="retain_graph=True"):
        A.grad(loss, [x])


def test_grad_runs_the_inputs_hooks():
    x = _leaf(XN)
    x.register_hook(lambda g: g * 10)
    (g,) = A.grad((x * 2).sum(), [x])
    np.testing.assert_allclose(g.numpy(), np.full_like(XN, 20.0))
    assert x.grad is None


def test_backward_with_inputs_fills_only_those():
    x, w = _leaf(XN), _leaf(WN)
    (x @ w).sum().backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), np.repeat(XN.sum(0)[:, None], 2, axis=1), rtol=1e-12)
    A.backward([(x * 2).sum(), (x * 3).sum()])
    np.testing.assert_allclose(x.grad.numpy(), np.full_like(XN, 5.0))
    A.backward((x * x).sum(), inputs=x)
    np.testing.assert_allclose(x.grad.numpy(), 5.0 + 2 * XN, rtol=1e-12)


class Legendre3(A.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * (5 * x ** 3 - 3 * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * x ** 2 - 1)


class ScaledProduct(A.Function):
    """forward(a, b, c) -> (a*b*c, a+b) in PyTorch 2's style (setup_context); c is a float."""

    @staticmethod
    def forward(a, b, c):
        return a * b * c, a + b

    @staticmethod
    def setup_context(ctx, inputs, output):
        a, b, c = inputs
        ctx.save_for_backward(a, b)
        ctx.c = c

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        a, b = ctx.saved_tensors
        return g_prod * b * ctx.c + g_sum, g_prod * a * ctx.c + g_sum, None


class GradReverse(A.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g.neg() * ctx.alpha, None


def test_function_values_and_gradient_are_the_users():
    x = _leaf(XN)
    out = Legendre3.apply(x * 2)
    (out.sum() + (x * x).sum()).backward()
    np.testing.assert_allclose(out.detach().numpy(), 0.5 * (5 * (2 * XN) ** 3 - 6 * XN), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * 1.5 * (5 * (2 * XN) ** 2 - 1) + 2 * XN, rtol=1e-12)
    gg.debug.gradcheck(lambda t: Legendre3.apply(t).sum(), [XN])


def test_function_with_setup_context_two_outputs_and_a_float():
    a, b = _leaf(XN), _leaf(XN[::-1].copy())
    prod, total = ScaledProduct.apply(a, b, 3.0)
    (prod.sum() + 2 * total.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), 3 * XN[::-1] + 2, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), 3 * XN + 2, rtol=1e-12)
    a2, b2 = _leaf(XN), _leaf(XN)
    ScaledProduct.apply(a2, b2, 3.0)[0].sum().backward()  # the second output unused: its gradient is zeros
    np.testing.assert_allclose(a2.grad.numpy(), 3 * XN, rtol=1e-12)


def test_gradient_reversal_and_a_broadcast_gradient():
    x = _leaf(XN)
    (GradReverse.apply(x, 0.5) * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full_like(XN, -1.0))

    class AddBias(A.Function):
        @staticmethod
        def forward(ctx, x, bias):
            return x + bias

        @staticmethod
        def backward(ctx, g):
            return g, g  # bias's is summed to its shape, as PyTorch does

    x, bias = _leaf(XN), _leaf(np.zeros(4))
    AddBias.apply(x, bias).sum().backward()
    np.testing.assert_allclose(bias.grad.numpy(), np.full(4, 3.0))


def test_function_errors_name_the_function():
    class WrongCount(A.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="WrongCountBackward returned an incorrect number of gradients"):
        WrongCount.apply(_leaf(XN), _leaf(XN)).sum().backward()

    class WrongShape(A.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum(0)[:2]

    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        WrongShape.apply(_leaf(XN)).sum().backward()
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):  # PyTorch's: a warning, then
        legacy = Legendre3()
    with pytest.raises(RuntimeError, match="static forward"):  # the call raises
        legacy(_leaf(XN))


def test_function_without_inputs_needing_grad_records_nothing():
    out = Legendre3.apply(gg.tensor(XN))
    assert not out.requires_grad
    with gg.no_grad():
        assert not Legendre3.apply(_leaf(XN)).requires_grad


def test_function_in_a_compiled_step_matches_the_plain_loop():
    xs = gg.tensor(RNG.standard_normal((5, 4)).astype(np.float32))
    losses = {}
    for mode in ("plain", "compile"):
        gg.manual_seed(0)
        model = gg.nn.Linear(4, 2)
        opt = gg.optim.SGD(model.parameters(), lr=0.01)

        def step(x):
            loss = Legendre3.apply(model(x)).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        run = gg.compile(step) if mode == "compile" else step
        losses[mode] = [run(xs).item() for _ in range(4)]
    np.testing.assert_allclose(losses["compile"], losses["plain"], rtol=1e-6)
    assert losses["plain"][-1] < losses["plain"][0]


def test_functions_in_a_loop_keep_nothing_alive():
    # The hooks' shared state is emptied once used: a step's gradients and outputs do not stay
    # pinned (a cycle through the runtime that Python's collector cannot break).
    import gc
    x = gg.tensor(RNG.standard_normal((64, 64)), requires_grad=True)
    held = []
    for _ in range(4):
        a, b = ScaledProduct.apply(x, x, 2.0)
        (Legendre3.apply(a) * b).sum().backward()
        x.grad = None
        del a, b
        gc.collect()
        gg.realize()
        held.append(gg.memory_stats()["current"])
    assert held[1] == held[2] == held[3], held


def test_variable_is_a_new_leaf_on_the_tensors_data():
    t = gg.tensor(XN)
    v = A.Variable(t, requires_grad=True)   # PyTorch's: t.detach() that requires grad, t untouched
    assert v is not t and v.requires_grad and v.is_leaf and not t.requires_grad
    np.testing.assert_array_equal(v.detach().numpy(), XN)
    (v * v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 2 * XN)
    assert t.grad is None
    y = v * 3
    assert not A.Variable(y).requires_grad and A.Variable(y).grad_fn is None  # detached, as PyTorch's
    assert isinstance(t, A.Variable) and not isinstance(3.0, A.Variable)
    with pytest.raises(TypeError, match="has to be a tensor"):
        A.Variable([1.0])


def test_functional_jacobian_jvp_vjp():
    x = gg.tensor(np.array([0.1, 0.2, 0.3]))
    J = A.functional.jacobian(lambda t: t.sin() * 2, x)
    np.testing.assert_allclose(J.numpy(), np.diag(2 * np.cos([0.1, 0.2, 0.3])), rtol=1e-12)
    Ja, Jb = A.functional.jacobian(lambda a, b: (a * b).sum(0), (gg.tensor(XN), gg.tensor(XN)))
    assert Ja.shape == (4, 3, 4)
    np.testing.assert_allclose(Ja.numpy()[1, :, 1], XN[:, 1], rtol=1e-12)
    _, jv = A.functional.jvp(lambda t: t ** 2, gg.tensor(np.array([1.0, 2.0])), gg.tensor(np.array([1.0, 3.0])))
    np.testing.assert_allclose(jv.numpy(), [2.0, 12.0])
    _, vj = A.functional.vjp(lambda t: t ** 2, gg.tensor(np.array([1.0, 2.0])), gg.tensor(np.array([1.0, 3.0])))
    np.testing.assert_allclose(vj.numpy(), [2.0, 12.0])
    H = A.functional.hessian(lambda t: (t ** 3).sum() * 2, x)
    np.testing.assert_allclose(H.numpy(), np.diag(12 * np.array([0.1, 0.2, 0.3])), rtol=1e-12)
    _, hv = A.functional.hvp(lambda t: (t.sin() * t).sum(), x, gg.tensor(np.array([1.0, 0.0, 2.0])))
    h = 2 * np.cos([0.1, 0.2, 0.3]) - np.array([0.1, 0.2, 0.3]) * np.sin([0.1, 0.2, 0.3])
    np.testing.assert_allclose(hv.numpy(), h * [1.0, 0.0, 2.0], rtol=1e-12)


def test_detect_anomaly_names_the_nan_gradient():
    q = _leaf([0.0, 1.0])
    with A.detect_anomaly():
        assert A.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match="nan values"):
            (q.sqrt() * 0).sum().backward()
    assert not A.is_anomaly_enabled()
    A.set_detect_anomaly(True)
    try:
        with pytest.raises(RuntimeError, match="nan values"):
            A.grad((q.sqrt() * 0).sum(), [q])
    finally:
        A.set_detect_anomaly(False)
    (q * 2).sum().backward()  # off again: nothing checked


def test_inference_mode_and_bare_decorators():
    x = _leaf(XN)
    with gg.inference_mode():
        assert gg.is_inference_mode_enabled() and not (x * 2).requires_grad
    with gg.inference_mode(False):
        assert (x * 2).requires_grad
    assert not gg.is_inference_mode_enabled()

    @gg.inference_mode
    def infer():
        return (x * 2).requires_grad

    @gg.no_grad
    def evaluate():
        return (x * 2).requires_grad

    @A.enable_grad
    def train():
        return (x * 2).requires_grad
    assert not infer() and not evaluate()
    with gg.no_grad():
        assert train()


def test_a_tensor_computed_without_gradients_is_a_leaf_that_can_require_one():
    # makemore's initialization: W = torch.randn(...) * gain; W.requires_grad = True
    scaled = gg.tensor(WN) * 0.5
    assert scaled.is_leaf
    scaled.requires_grad = True
    assert scaled.is_leaf and scaled.requires_grad
    x = gg.tensor(XN)
    (x @ scaled).sum().backward()
    np.testing.assert_allclose(scaled.grad.numpy(), np.repeat(XN.sum(0)[:, None], 2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(scaled.detach().numpy(), WN * 0.5)  # its value is still the product
    w = _leaf(WN)
    y = w * 2
    assert not y.is_leaf
    y.requires_grad_(True)  # already requires one: nothing changes
    with pytest.raises(ValueError, match="leaf variables"):
        y.requires_grad = False
    with pytest.raises(Exception, match="only Tensors of floating point"):
        (gg.tensor(np.arange(3)) * 2).requires_grad_()


def _penalty_and_grad(wn):
    """A tanh MLP's gradient penalty ||d f / d x||^2 (WGAN-GP's form) and its gradient in w."""
    x, w = gg.tensor(XN, requires_grad=True), gg.tensor(wn, requires_grad=True)
    f = ((x @ w).tanh() * gg.tensor(np.arange(1.0, 3.0))).sum()
    (gx,) = A.grad(f, x, create_graph=True)
    assert gx.requires_grad
    penalty = ((gx * gx).sum(1) - 1.0).pow(2).mean()
    (gw,) = A.grad(penalty, w)
    return penalty.item(), gw.numpy()


def test_second_derivatives_with_create_graph_match_finite_differences():
    x = _leaf(XN)
    (g,) = A.grad((x ** 3).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * XN ** 2, rtol=1e-12)
    (gg2,) = A.grad(g.sum(), x)
    np.testing.assert_allclose(gg2.numpy(), 6 * XN, rtol=1e-12)
    _, gw = _penalty_and_grad(WN)
    h, fd = 1e-6, np.zeros_like(WN)
    for i in np.ndindex(*WN.shape):
        up, down = WN.copy(), WN.copy()
        up[i] += h
        down[i] -= h
        fd[i] = (_penalty_and_grad(up)[0] - _penalty_and_grad(down)[0]) / (2 * h)
    np.testing.assert_allclose(gw, fd, rtol=1e-6, atol=1e-8)


def test_backward_with_create_graph_leaves_differentiable_grads():
    x = _leaf(XN)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (h,) = A.grad(x.grad.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * XN, rtol=1e-12)


def test_second_derivative_through_an_op_without_its_rule_names_it():
    x = _leaf(XN)
    (g,) = A.grad(gg.cumprod(x, dim=1).pow(2).sum(), x, create_graph=True)
    with pytest.raises(_C.UnsupportedError, match="CumProdBackward"):
        A.grad(g.sum(), x)
    # a custom Function's backward made of differentiable ops is differentiated again, as PyTorch's:
    # P3'' = 15 x
    y = _leaf(XN)
    (g3,) = A.grad(Legendre3.apply(y).sum(), y, create_graph=True)
    (h3,) = A.grad(g3.sum(), y)
    np.testing.assert_allclose(h3.numpy(), 15 * np.asarray(XN), rtol=1e-5)


def test_grad_fn_names_the_op_that_computed_a_tensor():
    x = _leaf(XN)
    assert x.grad_fn is None and (gg.tensor(XN) * 2).grad_fn is None
    y = x * x
    assert y.grad_fn.name() == "MulBackward0"
    assert "MulBackward0" in repr(y.grad_fn)
    # PyTorch's names: a scalar operand is no other node (MulScalar is MulBackward0), a write
    # through a view is CopySlices
    assert (x * 2).grad_fn.name() == "MulBackward0"
    z = x * 1
    z[0] = 5.0
    assert z.grad_fn.name() == "torch::autograd::CopySlices"  # PyTorch writes it in C++
