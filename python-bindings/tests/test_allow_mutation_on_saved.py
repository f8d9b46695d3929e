"""autograd.graph.allow_mutation_on_saved_tensors, as PyTorch documents it: inside the context, a
tensor an op recorded inside saved for backward may be written in place, and backward() computes
with the value it had when saved; outside it (or for a graph recorded before it opened) the write
still makes backward raise PyTorch's error; contexts do not nest (docs/autograd.md)."""
import numpy as np
import pytest

import glassgrad as gg

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


@pytest.mark.parametrize("forward, backward", [(False, False), (False, True), (True, False)])
def test_outside_the_context_the_write_is_refused(forward, backward):
    with pytest.raises(RuntimeError, match=f"^{_MODIFIED}"):
        _write_then_backward(forward, backward)


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
