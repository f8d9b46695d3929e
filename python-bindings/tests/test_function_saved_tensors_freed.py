"""A custom autograd.Function's saved tensors are freed, as PyTorch's, once a backward() or
autograd.grad() without retain_graph=True has run its backward: ctx.saved_tensors (out.grad_fn's)
then raises PyTorch's RuntimeError; with retain_graph=True, or create_graph=True, they stay
(docs/autograd.md, "Custom Functions")."""
import numpy as np
import pytest

import glassgrad as gg

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they have "
          "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
          "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
          "if you need to access saved tensors after calling backward.")


def _square(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x
    return Square


def _leaf(lib):
    return lib.tensor([1.0, 2.0], requires_grad=True)


def _raises_freed(read):
    with pytest.raises(RuntimeError) as e:
        read()
    assert str(e.value).splitlines()[0] == _FREED


def test_saved_tensors_are_readable_before_backward_and_with_retain_graph():
    x = _leaf(gg)
    y = _square(gg).apply(x)
    assert y.grad_fn.saved_tensors[0] is x
    y.sum().backward(retain_graph=True)
    assert y.grad_fn.saved_tensors[0] is x
    y.sum().backward()
    _raises_freed(lambda: y.grad_fn.saved_tensors)
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


def test_backward_without_retain_graph_frees_them():
    x = _leaf(gg)
    y = _square(gg).apply(x)
    (y * 3).sum().backward()
    _raises_freed(lambda: y.grad_fn.saved_tensors)
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
        _raises_freed(lambda: y.grad_fn.saved_variables)


def test_autograd_grad_frees_them_unless_it_keeps_the_graph():
    x = _leaf(gg)
    y = _square(gg).apply(x)
    gg.autograd.grad(y.sum(), x, create_graph=True)
    assert len(y.grad_fn.saved_tensors) == 1
    gg.autograd.grad(y.sum(), x)
    _raises_freed(lambda: y.grad_fn.saved_tensors)


def test_a_backward_that_does_not_reach_the_function_frees_nothing():
    x = _leaf(gg)
    y = _square(gg).apply(x)
    z = x * 5
    z.sum().backward()
    assert len(y.grad_fn.saved_tensors) == 1


def test_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib):
        rows = []
        for keep in (None, False, True):
            x = _leaf(lib)
            y = _square(lib).apply(x)
            y.sum().backward(retain_graph=keep)
            try:
                rows.append(len(y.grad_fn.saved_tensors))
            except RuntimeError as e:
                rows.append(str(e).splitlines()[0])
        return rows

    assert outcome(gg) == outcome(torch)
