"""Tensor._grad: PyTorch's second name for .grad, the same getter and setter (A3C scripts copy a
worker's gradients onto the shared model with `global_param._grad = local_param.grad`)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.optim as optim


def test_grad_and_underscore_grad_read_and_write_the_same_gradient():
    a = gg.ones(3, requires_grad=True)
    assert a._grad is None
    (a * gg.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(a._grad.numpy(), [1.0, 2.0, 3.0])
    a._grad = gg.full((3,), 5.0)
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 5.0, 5.0])
    a._grad = None
    assert a.grad is None


def test_underscore_grad_checks_what_it_is_given_as_grad_does():
    a = gg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        a._grad = 0.0
    with pytest.raises(RuntimeError, match=r"gradient of size '\[3\]' to a tensor of size '\[2\]'"):
        a._grad = gg.zeros(3)


def test_a_workers_gradients_copied_onto_the_shared_model_drive_its_optimizer():
    gg.manual_seed(0)
    shared, local = nn.Linear(2, 1), nn.Linear(2, 1)
    local.load_state_dict(shared.state_dict())
    before = shared.weight.detach().clone()
    opt = optim.SGD(shared.parameters(), lr=0.5)
    local(gg.tensor([[1.0, 2.0]])).sum().backward()
    for g, p in zip(shared.parameters(), local.parameters()):
        g._grad = p.grad
    opt.step()
    # SGD: w - lr * x for the weight of a sum of one output
    np.testing.assert_allclose(shared.weight.detach().numpy(), before.numpy() - 0.5 * np.array([[1.0, 2.0]]),
                               rtol=1e-6)
