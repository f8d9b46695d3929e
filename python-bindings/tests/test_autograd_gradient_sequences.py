"""The gradients given to Tensor.backward, autograd.backward and autograd.grad read as PyTorch reads
them: a Tensor or None, else a sequence iterated (a number is Python's TypeError "'float' object is
not iterable", an entry that is no Tensor "gradients can be either Tensors or None"), entries past
the outputs dropped, too few refused (docs/autograd.md, "grad")."""
import numpy as np
import pytest

import glassgrad as gg


def _leaf_and_loss():
    x = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x, (x * 2).sum()


@pytest.mark.parametrize("number", [2.0, 2, True, np.float32(2.0)])
def test_backward_of_a_number_is_python_type_error(number):
    x, loss = _leaf_and_loss()
    with pytest.raises(TypeError) as e:
        loss.backward(number)
    assert str(e.value).splitlines()[0].endswith(f"{type(number).__name__}' object is not iterable")
    assert "fix:" in str(e.value)
    assert x.grad is None


@pytest.mark.parametrize("call", ["backward", "grad"])
def test_autograd_functions_refuse_a_number(call):
    x, loss = _leaf_and_loss()
    with pytest.raises(TypeError, match="'float' object is not iterable"):
        if call == "grad":
            gg.autograd.grad(loss, x, 2.0)
        else:
            gg.autograd.backward(loss, 2.0)


@pytest.mark.parametrize("seq", [[2.0], np.array([2.0]), "x"])
def test_an_entry_that_is_no_tensor_is_torchs_type_error(seq):
    _, loss = _leaf_and_loss()
    with pytest.raises(TypeError) as e:
        loss.backward(seq)
    assert str(e.value).splitlines()[0].startswith("gradients can be either Tensors or None, but got ")


def test_backward_takes_a_sequence_of_one_gradient():
    x, loss = _leaf_and_loss()
    loss.backward([gg.tensor(3.0)], retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])
    loss.backward((None,))
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 8.0, 8.0])


def test_gradients_past_the_outputs_are_dropped():
    x, _ = _leaf_and_loss()
    (g,) = gg.autograd.grad([x * 2], [x], grad_outputs=[gg.ones(3), gg.ones(3) * 5])
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    (x * 3).sum().backward([gg.tensor(1.0), gg.tensor(7.0)])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    gg.autograd.backward([(x * 2).sum()], [gg.tensor(1.0), gg.tensor(9.0)])
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0, 5.0])


def test_too_few_gradients_stay_refused():
    x, loss = _leaf_and_loss()
    with pytest.raises(RuntimeError) as e:
        loss.backward([])
    assert str(e.value).splitlines()[0] == "got 1 tensors and 0 gradients"
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        gg.autograd.grad([x * 2, x * 3], [x], grad_outputs=[gg.ones(3)])
