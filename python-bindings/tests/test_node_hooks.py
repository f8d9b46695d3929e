"""grad_fn.register_prehook / grad_fn.register_hook as PyTorch's Node hooks: a prehook sees (and may
replace) the gradient reaching the node, a post hook sees the node's own input gradients (one per
next_functions entry, None where the entry is None) and the gradient reaching it, and may replace
the input gradients; the order is the documented one (the output's tensor hooks, the node's
prehooks, its post hooks, then the inputs' hooks); a wrong number of returned values raises
PyTorch's RuntimeError. Expected values are PyTorch's."""
import pytest

import glassgrad as gg


def _x(lib=gg):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _post_hook_of_mul(lib):
    a, b = _x(lib), _x(lib)
    c = a * b
    seen = []
    c.grad_fn.register_hook(lambda gi, go: seen.append(([t.tolist() for t in gi], [t.tolist() for t in go])))
    (c * 2).sum().backward()
    return seen, a.grad.tolist(), b.grad.tolist()


def test_post_hook_sees_the_nodes_input_gradients():
    assert _post_hook_of_mul(gg) == ([([[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]], [[2.0, 2.0, 2.0]])],
                                     [2.0, 4.0, 6.0], [2.0, 4.0, 6.0])


def _two_paths(lib):
    a = _x(lib)
    b = (a + 1) * a
    seen = []
    b.grad_fn.register_hook(lambda gi, go: seen.append([t.tolist() for t in gi]))
    b.sum().backward()
    return seen, a.grad.tolist()


def test_post_hook_input_gradients_are_the_nodes_own():
    # MulBackward0's own: (g * a, g * (a + 1)), not a's total gradient
    assert _two_paths(gg) == ([[[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]], [3.0, 5.0, 7.0])


def _replaced(lib):
    a = _x(lib)
    b = a.relu()
    c = b * 3
    c.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    c.sum().backward()
    d, e = _x(lib), _x(lib)
    f = d * e
    f.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[1]))
    (f * 2).sum().backward()
    return a.grad.tolist(), d.grad.tolist(), e.grad.tolist()


def test_post_hook_replaces_input_gradients():
    assert _replaced(gg) == ([4.0, 4.0, 4.0], [20.0, 40.0, 60.0], [2.0, 4.0, 6.0])


def _prehook(lib):
    a = _x(lib)
    b = a * 2
    seen = []
    b.grad_fn.register_prehook(lambda go: seen.append([t.tolist() for t in go]) or (go[0] * 3,))
    b.sum().backward()
    c = _x(lib)
    d = c * 2
    d.grad_fn.register_prehook(lambda go: (go[0] * 5,)).remove()
    d.sum().backward()
    return seen, a.grad.tolist(), c.grad.tolist()


def test_prehook_sees_and_replaces_the_gradient_reaching_the_node():
    assert _prehook(gg) == ([[[1.0, 1.0, 1.0]]], [6.0, 6.0, 6.0], [2.0, 2.0, 2.0])


def _order(lib):
    a = _x(lib)
    b = a.exp()
    calls = []
    a.register_hook(lambda g: calls.append("input tensor hook"))
    b.grad_fn.register_hook(lambda gi, go: calls.append("post hook"))
    b.grad_fn.register_prehook(lambda go: calls.append("prehook"))
    b.register_hook(lambda g: calls.append("output tensor hook"))
    b.sum().backward()
    return calls


def test_documented_order():
    assert _order(gg) == ["output tensor hook", "prehook", "post hook", "input tensor hook"]


@pytest.mark.parametrize("kind", ["prehook", "hook"])
def test_wrong_number_of_values(kind):
    a = _x()
    b = a * 2
    if kind == "prehook":
        b.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        expected = "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"
    else:
        b.grad_fn.register_hook(lambda gi, go: (gi[0],))  # MulBackward0 of x * 2 lists (x's, None)
        expected = "hook '<lambda>' has returned an incorrect number of values (got 1, but expected 2)"
    with pytest.raises(RuntimeError) as e:
        b.sum().backward()
    assert str(e.value).splitlines()[0] == expected


def test_hooks_run_under_autograd_grad():
    a = _x()
    b = a * 2
    seen = []
    b.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
    assert gg.autograd.grad(b.sum(), a)[0].tolist() == [2.0, 2.0, 2.0] and seen == [2]


@pytest.mark.parametrize("f", [_post_hook_of_mul, _two_paths, _replaced, _prehook, _order])
def test_as_torch(f):
    torch = pytest.importorskip("torch")
    assert f(gg) == f(torch)
