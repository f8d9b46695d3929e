"""torch.autograd.graph (Node, GradientEdge, get_gradient_edge, increment_version),
autograd.grad(is_grads_batched=True), autograd.functional.jacobian / hessian's strategy checks
and the autograd.grad_mode module path. Expected values are worked out by hand or with NumPy
(PyTorch's documented behaviour); the last test replays the same calls on PyTorch."""
import re

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.autograd import graph


def test_nodes_are_instances_of_node():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    assert isinstance(y.grad_fn, graph.Node)
    assert isinstance(y.grad_fn.next_functions[0][0], graph.Node)
    leaf_node = (x * x).grad_fn.next_functions[0][0]
    assert type(leaf_node).__name__ == "AccumulateGrad" and isinstance(leaf_node, graph.Node)
    assert not isinstance(x, graph.Node) and not isinstance(3, graph.Node)


def test_gradient_edges_stand_for_their_tensors():
    x = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * x
    y = (3 * a).sum()
    ex, ea = graph.get_gradient_edge(x), graph.get_gradient_edge(a)
    assert type(ex.node).__name__ == "AccumulateGrad" and ex.output_nr == 0 and ex.node.variable is x
    assert type(ea.node).__name__ == "MulBackward0" and ea.output_nr == 0 and ex.ownership_token is None
    (ga,) = gg.autograd.grad(y, ea, retain_graph=True)
    assert ga.tolist() == [3.0, 3.0, 3.0]
    gx, ga2 = gg.autograd.grad(y, [ex, a], retain_graph=True)
    assert gx.tolist() == [6.0, 12.0, 18.0] and ga2.tolist() == [3.0, 3.0, 3.0]
    gg.autograd.backward(y, inputs=[ex])
    assert x.grad.tolist() == [6.0, 12.0, 18.0]
    with pytest.raises(RuntimeError, match="does not require gradients"):
        graph.get_gradient_edge(gg.ones(2))


def test_increment_version_makes_a_saved_value_stale():
    x = gg.ones(3, requires_grad=True)
    a = x * 1
    y = a * a  # saves a
    graph.increment_version(a)
    assert a._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 1; expected version 0"):
        y.sum().backward()
    b = gg.ones(2, requires_grad=True) * 2
    c = gg.ones(2, requires_grad=True) * 3
    graph.increment_version([b, c])
    assert (b._version, c._version) == (1, 1)


def test_batched_grad_outputs():
    x = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = x ** 2
    (jac,) = gg.autograd.grad(out, x, gg.eye(3), is_grads_batched=True)
    np.testing.assert_allclose(jac.numpy(), np.diag([2.0, 4.0, 6.0]))
    z = gg.tensor([1.0], requires_grad=True)
    out = x ** 2
    jac, unused = gg.autograd.grad(out, (x, z), gg.eye(3), is_grads_batched=True, allow_unused=True,
                                   retain_graph=True)
    assert unused is None
    # materialized: zeros of the input's own shape, as PyTorch's
    _, zeros = gg.autograd.grad(out, (x, z), gg.eye(3), is_grads_batched=True, materialize_grads=True)
    assert zeros.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        gg.autograd.grad(out, x, gg.eye(3), is_grads_batched=True)  # the last call freed it
    w = gg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = gg.tensor([1.0, -1.0], requires_grad=True)
    y = w @ v
    gw, gv = gg.autograd.grad(y, (w, v), gg.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), is_grads_batched=True)
    assert tuple(gw.shape) == (3, 2, 2) and tuple(gv.shape) == (3, 2)
    np.testing.assert_allclose(gv.numpy(), [[1.0, 2.0], [6.0, 8.0], [4.0, 6.0]])
    np.testing.assert_allclose(gw.numpy()[1], [[0.0, 0.0], [2.0, -2.0]])
    with pytest.raises(RuntimeError, match="same leading batch dimension"):
        gg.autograd.grad(w @ v, (w,), gg.tensor(1.0), is_grads_batched=True)


def test_batched_grad_outputs_of_the_wrong_entry_shape_raise_pytorchs_error():
    x = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    words = ("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
             "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
             "output, but a mismatch was detected: grad_output[0] has a shape of ")
    for seed in (gg.ones(3), gg.ones(2, 4)):  # entries of shape [] and [4] for an output of shape [3]
        with pytest.raises(RuntimeError, match=f"^{re.escape(words)}"):
            gg.autograd.grad(x ** 2, x, seed, is_grads_batched=True)


def test_jacobian_strategies():
    def f(x):
        return x ** 2

    x = gg.tensor([1.0, 2.0])
    fwd = gg.autograd.functional.jacobian(f, x, vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(fwd.numpy(), np.diag([2.0, 4.0]))
    h = gg.autograd.functional.hessian(lambda t: (t ** 3).sum(), x, vectorize=True,
                                       outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0]))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        gg.autograd.functional.jacobian(f, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and `strategy=\"forward-mode\"`"):
        gg.autograd.functional.jacobian(f, x, vectorize=True, strategy="forward-mode", create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        gg.autograd.functional.jacobian(f, x, vectorize=True, strict=True)
    with pytest.raises(AssertionError, match="Expected strategy to be either"):
        gg.autograd.functional.jacobian(f, x, strategy="sideways")
    with pytest.raises(AssertionError, match="Expected strategy to be either"):
        gg.autograd.functional.hessian(lambda t: t.sum(), x, outer_jacobian_strategy="sideways")


def test_grad_mode_module_path():
    from glassgrad.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
    assert no_grad is gg.no_grad and enable_grad is gg.enable_grad and set_grad_enabled is gg.set_grad_enabled
    assert inference_mode is gg.inference_mode


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, gg):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        a = x.sin()
        y = (a * x).sum()
        ga, gx = lib.autograd.grad(y, [lib.autograd.graph.get_gradient_edge(a), x], retain_graph=True)
        w = lib.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=lib.float64, requires_grad=True)
        out = (w @ x[:2]).tanh()
        (batched,) = lib.autograd.grad(out, w, lib.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]], dtype=lib.float64),
                                       is_grads_batched=True)
        jac = lib.autograd.functional.jacobian(lambda t: t.exp() * t, x.detach(), vectorize=True,
                                               strategy="forward-mode")
        results.append([t.detach().numpy() for t in (ga, gx, batched, jac)])
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert set(graph.__all__) <= set(torch.autograd.graph.__all__)


def test_accumulate_grad_variable_with_a_dead_proxy_alive():
    import weakref

    class Holder:
        pass

    obj = Holder()
    proxy = weakref.proxy(obj)
    del obj  # a dead proxy stays in the collector's objects; isinstance(proxy, ...) raises ReferenceError
    x = gg.ones(2, requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    assert node.variable is x
    assert graph.get_gradient_edge(x).node.variable is x
    del proxy


def _multi_grad_script(lib):
    a = lib.rand(2, 3, requires_grad=True)
    b = lib.rand(2, 3, requires_grad=True)
    c, d = a * b, a * b
    log, first = [], []
    handle = lib.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda gs: log.append([g is not None
                                                                                            for g in gs]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    handle.remove()
    c.sum().backward(retain_graph=True)
    with lib.autograd.graph.register_multi_grad_hook((a, b), lambda g: first.append(list(g.shape)), mode="any"):
        (c + d).sum().backward(retain_graph=True)
        (c + d).sum().backward()
    return log, first


def test_multi_grad_hook_documented_example():
    log, first = _multi_grad_script(gg)
    # PyTorch's documentation: [True, True, True, False] then [True, False, True, False]; none once removed
    assert log == [[True, True, True, False], [True, False, True, False]]
    assert first == [[2, 3], [2, 3]]  # "any": once per backward


def test_multi_grad_hook_values_grad_calls_and_errors():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    handle = graph.register_multi_grad_hook((x, y), lambda gs: seen.append([g.tolist() for g in gs]))
    (y * y).sum().backward()
    assert seen == [[[18.0, 36.0], [6.0, 12.0]]]
    handle.remove()
    z = x * 2
    graph.register_multi_grad_hook((z,), lambda gs: seen.append([g.tolist() for g in gs]))
    gg.autograd.grad((z * z).sum(), x)
    assert seen[-1] == [[4.0, 8.0]]
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got some"):
        graph.register_multi_grad_hook((x,), print, mode="some")
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        graph.register_multi_grad_hook((gg.ones(1),), print)


def test_multi_grad_hook_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _multi_grad_script(gg) == _multi_grad_script(torch)
