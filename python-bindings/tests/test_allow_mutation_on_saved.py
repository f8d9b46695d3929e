"""autograd.graph.allow_mutation_on_saved_tensors, as PyTorch documents it: inside the context, a
tensor an op recorded inside saved for backward may be written in place, and backward() computes
with the value it had when saved; outside it (or for a graph recorded before it opened) the write
still makes backward raise PyTorch's error, and a backward after the context closed that reads what
was saved inside raises its AssertionError; a custom Function's saved tensors follow the same rules;
contexts do not nest (docs/autograd.md)."""
import re

import numpy as np
import pytest

import glassgrad as gg

_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which the graph was "
            "originally recorded.")
_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _documented_example(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.sum().backward()
    return ctx, a.grad.tolist(), b.tolist()


def test_the_documented_example():
    ctx, grad, b = _documented_example(gg)
    assert grad == [[2.0] * 3] * 2  # d(b**2)/db at the saved b = 1
    np.testing.assert_allclose(b, np.full((2, 3), np.sin(1.0)), rtol=1e-6)
    assert type(ctx).__name__ == "_AllowMutationOnSavedContext"


def test_a_computed_value_written_twice_and_a_mul():
    with gg.autograd.graph.allow_mutation_on_saved_tensors():
        w = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = w * 1
        y = (x * w).sum()  # saves x and w
        print(x.tolist())  # computed before the writes
        x.mul_(10)
        x.add_(1)
        y.backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(x.detach().numpy(), [11.0, 21.0, 31.0])


def _write_then_backward(open_for_forward: bool, open_for_backward: bool):
    mutation = gg.autograd.graph.allow_mutation_on_saved_tensors
    a = gg.ones(3, requires_grad=True)
    if open_for_forward:
        with mutation():
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
    else:
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
    if open_for_backward:
        with mutation():
            out.backward()
    else:
        out.backward()


@pytest.mark.parametrize("forward, backward", [(False, False), (False, True)])
def test_outside_the_context_the_write_is_refused(forward, backward):
    with pytest.raises(RuntimeError, match=f"^{_MODIFIED}"):
        _write_then_backward(forward, backward)


@pytest.mark.parametrize("backward", [False, True])
def test_a_graph_recorded_inside_differentiated_after_it_closed_raises(backward):
    # PyTorch's AssertionError, written or not, and in another context too
    with pytest.raises(AssertionError, match=f"^{re.escape(_OUTSIDE)}"):
        _write_then_backward(True, backward)


def _recorded_inside(lib, op):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = op(x.clone()).sum()
    return x, out


def test_backward_after_the_context_closed_raises_where_a_node_saved_a_tensor():
    x, out = _recorded_inside(gg, lambda y: y * y)
    with pytest.raises(AssertionError, match=f"^{re.escape(_OUTSIDE)}"):
        out.backward()
    x, out = _recorded_inside(gg, lambda y: y.exp())
    with pytest.raises(AssertionError, match=f"^{re.escape(_OUTSIDE)}"):
        gg.autograd.grad(out, x)


def test_after_the_context_closed_nodes_that_save_nothing_differentiate():
    x, out = _recorded_inside(gg, lambda y: y * 2 + 1)
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    # a graph recorded before a context opened is none of its business
    x = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = (x * x).sum()
    with gg.autograd.graph.allow_mutation_on_saved_tensors():
        pass
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def _times_saved(lib, save_output: bool):
    class TimesSaved(lib.autograd.Function):
        """forward x * 3; backward g * (the saved input, or the saved output)"""
        @staticmethod
        def forward(ctx, x):
            y = x * 3
            ctx.save_for_backward(y if save_output else x)
            return y

        @staticmethod
        def backward(ctx, g):
            (s,) = ctx.saved_tensors
            return g * s
    return TimesSaved


def _function_written_inside(lib, save_output: bool):
    fn = _times_saved(lib, save_output)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.clone()
        out = fn.apply(y)
        loss = out.sum()
        written = out if save_output else y
        written.mul_(10)
        written.add_(1)
        loss.backward()
    return x.grad.tolist(), written.tolist()


def test_a_custom_functions_saved_tensors_written_inside_read_as_saved():
    assert _function_written_inside(gg, False) == ([1.0, 2.0], [11.0, 21.0])
    assert _function_written_inside(gg, True) == ([3.0, 6.0], [31.0, 61.0])


def test_a_custom_functions_saved_tensors_read_after_the_context_closed_raise():
    fn = _times_saved(gg, False)
    with gg.autograd.graph.allow_mutation_on_saved_tensors():
        x = gg.tensor([1.0, 2.0], requires_grad=True)
        out = fn.apply(x.clone())
    with pytest.raises(AssertionError, match=f"^{re.escape(_OUTSIDE)}"):
        out.sum().backward()


def test_a_custom_function_outside_the_context_still_refuses_the_write():
    fn = _times_saved(gg, False)
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    out = fn.apply(y)
    y.mul_(10)
    with pytest.raises(RuntimeError, match=f"^{_MODIFIED}"):
        out.sum().backward()


def test_the_context_cases_as_torch():
    torch = pytest.importorskip("torch")
    for save_output in (False, True):
        assert _function_written_inside(gg, save_output) == _function_written_inside(torch, save_output)
    for lib in (gg, torch):
        _, out = _recorded_inside(lib, lambda y: y * y)
        with pytest.raises(AssertionError, match=f"^{re.escape(_OUTSIDE)}"):
            out.backward()


def test_contexts_do_not_nest_and_close_on_errors():
    mutation = gg.autograd.graph.allow_mutation_on_saved_tensors
    with mutation():
        with pytest.raises(RuntimeError, match="^allow_mutation_on_saved_tensors contexts cannot be nested"):
            with mutation():
                pass
    with pytest.raises(KeyError):
        with mutation():
            raise KeyError("x")
    with mutation():  # closed by the error: it opens again
        pass


def test_as_torch():
    torch = pytest.importorskip("torch")
    for got, want in zip(_documented_example(gg)[1:], _documented_example(torch)[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
