"""Autograd semantics as PyTorch documents and runs them (round 4): a view made under no_grad() of
a tensor that requires grad, backward's gradient= of another shape, .data set to an integer
tensor, an inference tensor's _version, grad_fn names of no-op views, Node.metadata and
functional_call's strict error. Expected values and texts are PyTorch's; the torch comparisons
at the end are skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg


def test_view_made_under_no_grad_reports_requires_grad():
    a = gg.ones(3, requires_grad=True)
    with gg.no_grad():
        v, w, u = a[:2], a.view(3), a + 0
    assert v.requires_grad and w.requires_grad and not u.requires_grad
    assert v.grad_fn is None and v.is_leaf
    c = gg.ones(3, requires_grad=True) * 2
    with gg.no_grad():
        parts = c.unbind(0)
    assert all(p.requires_grad for p in parts)
    with gg.no_grad():
        d = a.detach()[:2]
    assert not d.requires_grad
    with gg.inference_mode():
        i = a[0]
    assert i.requires_grad and not i.is_inference()
    plain = gg.ones(3)
    with gg.no_grad():
        assert not plain[:2].requires_grad


def test_backward_gradient_of_another_shape():
    x = gg.ones(3, requires_grad=True)
    for shape in [(2,), (1,), (), (3, 1)]:
        with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of .*Size\("
                                               + repr(list(shape)).replace("[", r"\[").replace("]", r"\]")):
            (x * 2).backward(gg.ones(shape))
    (x * 2).backward(gg.ones(3, dtype=gg.float64))  # another dtype is converted, as PyTorch does
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_data_set_to_an_integer_tensor_on_a_tensor_requiring_grad():
    p = gg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be floating point "
                                           "or complex dtype"):
        p.data = gg.zeros(3, dtype=gg.int64)
    q = gg.ones(3)
    q.data = gg.zeros(3, dtype=gg.int64)
    assert q.dtype == gg.int64


def test_inference_tensor_has_no_version_counter():
    with gg.inference_mode():
        t = gg.ones(3)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter."):
        t._version
    n = gg.ones(3)
    n.add_(1)
    assert n._version == 1


def test_no_op_views_grad_fn_names():
    x = gg.ones(3, requires_grad=True)
    assert x.squeeze().grad_fn.name() == "SqueezeBackward0"
    assert x.squeeze(0).grad_fn.name() == "SqueezeBackward1"
    assert x.t().grad_fn.name() == "TBackward0"
    assert x.flatten() is x  # PyTorch's flatten of nothing to merge returns the tensor itself
    m = gg.ones(2, 3, requires_grad=True)
    assert m.flatten(0, 0) is m and m.flatten(1) is m
    plain = gg.ones(3)
    assert plain.squeeze() is plain
    s = x.squeeze()
    s.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_node_metadata_is_the_nodes_own_dict():
    x = gg.ones(2, requires_grad=True)
    y = x.exp() * 2
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}
    assert y.grad_fn.next_functions[0][0].metadata == {}
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    acc.metadata["leaf"] = True
    assert y.grad_fn.next_functions[0][0].next_functions[0][0].metadata == {"leaf": True}
    assert (x * 3).grad_fn.metadata == {}


def test_forward_ad_primal_of_an_untracked_computation_requires_no_grad():
    import glassgrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(gg.tensor([1.0, 2.0]), gg.tensor([1.0, 0.5]))
        primal, tangent = fwAD.unpack_dual((d * d).sum())
        assert not primal.requires_grad and primal.grad_fn is None
        np.testing.assert_allclose([primal.item(), tangent.item()], [5.0, 4.0])
        w = gg.tensor([1.0, 2.0], requires_grad=True)  # reverse mode tracks w: the primal keeps its graph
        tracked, _ = fwAD.unpack_dual((fwAD.make_dual(w, gg.ones(2)) * 3).sum())
        assert tracked.requires_grad


@pytest.mark.parametrize("write", ["mul_", "add_then_use", "no_grad", "setitem"])
def test_retain_grad_stays_with_a_tensor_written_in_place(write):
    # PyTorch moves the retains_grad hook to the tensor's new version
    x = gg.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    if write == "mul_":
        y.mul_(3)
    elif write == "add_then_use":
        y.add_(1)
    elif write == "no_grad":
        with gg.no_grad():
            y.mul_(3)
    else:
        y[0] = 7.0
    assert y.retains_grad
    loss = (y * 5).sum() if write == "add_then_use" else y.sum()
    loss.backward()
    expected_y = {"add_then_use": [5.0] * 3}.get(write, [1.0] * 3)
    expected_x = {"mul_": [6.0] * 3, "add_then_use": [10.0] * 3, "no_grad": [2.0] * 3, "setitem": [0.0, 2.0, 2.0]}
    np.testing.assert_allclose(y.grad.numpy(), expected_y)
    np.testing.assert_allclose(x.grad.numpy(), expected_x[write])


def test_retain_grad_of_a_view_whose_base_is_written():
    x = gg.ones(3, requires_grad=True)
    y = x * 2
    v = y[:2]
    v.retain_grad()
    y.mul_(3)
    (v * 1).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 0.0])


def test_functional_call_strict_error_text():
    m = gg.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for Linear:\n\tUnexpected key\(s\): "
                                           r"'foo'.\n\tMissing key\(s\): 'bias'."):
        gg.func.functional_call(m, {"weight": gg.ones(2, 2), "foo": gg.ones(1)}, (gg.ones(1, 2),), strict=True)


# --- the same against torch -------------------------------------------------------------------

def _both(fn):
    torch = pytest.importorskip("torch")
    return fn(torch), fn(gg)


def test_torch_no_grad_view_and_node_names_match():
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            v = a[:2]
        x = lib.ones(3, requires_grad=True)
        return (v.requires_grad, v.grad_fn is None, v.is_leaf, x.squeeze().grad_fn.name(), x.t().grad_fn.name(),
                x.flatten() is x)
    t, g = _both(run)
    assert t == g


def test_torch_error_texts_match():
    def run(lib):
        out = []
        x = lib.ones(3, requires_grad=True)
        try:
            (x * 2).backward(lib.ones(2))
        except RuntimeError as e:
            out.append(str(e).split(" has a shape of ")[0])
        p = lib.ones(3, requires_grad=True)
        try:
            p.data = lib.zeros(3, dtype=lib.int64)
        except RuntimeError as e:
            out.append(str(e).splitlines()[0])
        with lib.inference_mode():
            t = lib.ones(3)
        try:
            t._version
        except RuntimeError as e:
            out.append(str(e).splitlines()[0])
        return out
    t, g = _both(run)
    assert t == g and len(t) == 3


def test_torch_func_error_texts_match():
    def run(lib):
        from importlib import import_module
        func = import_module(lib.__name__ + ".func")
        calls = [lambda: func.vmap(lib.sin, in_dims=1)(lib.ones(3)),
                 lambda: func.grad(lambda x: x * 2)(lib.ones(3)),
                 lambda: func.grad(lambda x: x.sum())(lib.arange(3)),
                 lambda: func.jvp(lib.sin, (lib.ones(3),), (lib.ones(2),))]
        out = []
        for call in calls:
            try:
                call()
            except (RuntimeError, ValueError) as e:
                text = str(e).splitlines()[0]
                out.append((type(e).__name__, text.split("): ", 1)[-1] if text.startswith("vmap(") else text))
        return out
    t, g = _both(run)
    assert [(k, s.replace("vmap: ", "")) for k, s in g] == t


def test_backward_of_a_non_scalar_without_gradient():
    x = gg.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x.sum(0).backward()
    assert str(info.value).splitlines()[0] == "grad can be implicitly created only for scalar outputs"
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        gg.ones(3).backward()  # no gradient to take: PyTorch says so first
    (x.sum(0, keepdim=True).sum(1, keepdim=True)).backward()  # one element of any shape is a scalar
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)))
