"""A second backward through a graph without retain_graph=True, as PyTorch's autograd decides it:
it raises "Trying to backward through the graph a second time" exactly where a node saved tensors
for its gradient (derivatives.yaml). x * 2 and x / 2 save their Python number as a wrapped 0-d
tensor (mul/div of two tensors), so they raise; x + 1, x - 1, sum, mean, views save no tensor,
so a second backward through them accumulates again."""
import numpy as np
import pytest

import glassgrad as gg

_TWICE = "Trying to backward through the graph a second time"


@pytest.mark.parametrize("name,fn", [
    ("x * 2", lambda x: (x * 2).sum()),
    ("2 * x", lambda x: (2 * x).sum()),
    ("x / 2", lambda x: (x / 2).sum()),
    ("x.mul(0.5)", lambda x: x.mul(0.5).sum()),
    ("x.sum() * 3", lambda x: x.sum() * 3),
    ("x * x", lambda x: (x * x).sum()),
    ("x.exp()", lambda x: x.exp().sum()),
    ("relu", lambda x: gg.relu(x).sum()),
    ("x ** 2", lambda x: (x ** 2).sum()),
])
def test_ops_that_save_tensors_refuse_a_second_backward(name, fn):
    x = gg.ones(3, requires_grad=True)
    y = fn(x)
    y.backward()
    with pytest.raises(RuntimeError, match=_TWICE):
        y.backward()


@pytest.mark.parametrize("name,fn,per_backward", [
    ("x + 1", lambda x: (x + 1).sum(), [1.0, 1.0, 1.0]),
    ("x - 1", lambda x: (x - 1).sum(), [1.0, 1.0, 1.0]),
    ("sum", lambda x: x.sum(), [1.0, 1.0, 1.0]),
    ("-x", lambda x: (-x).sum(), [-1.0, -1.0, -1.0]),
    ("reshape", lambda x: x.reshape(3, 1).sum(), [1.0, 1.0, 1.0]),
])
def test_ops_that_save_no_tensor_backward_twice_and_accumulate(name, fn, per_backward):
    x = gg.ones(3, requires_grad=True)
    y = fn(x)
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.array(per_backward, np.float32))


def test_retain_graph_allows_the_second_backward_through_a_scaled_tensor():
    x = gg.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0, 4.0])


def test_a_fresh_graph_each_step_backwards_as_often_as_needed():
    x = gg.ones(3, requires_grad=True)
    for _ in range(3):
        (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])
