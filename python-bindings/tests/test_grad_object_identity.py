"""Tensor.grad's object identity, as PyTorch's: `p.grad is p.grad`, a gradient read before backward()
stays p.grad (accumulated into, in place), `p.grad = g` makes g p.grad, and `p.grad = None` (or
zero_grad()) starts a new object (docs/autograd.md, "The .grad tensor object")."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.optim as optim


def _leaf():
    return gg.tensor([1.0, 2.0, 3.0], requires_grad=True)


def test_reading_grad_twice_gives_one_object():
    p = _leaf()
    (p * 2).sum().backward()
    assert p.grad is p.grad
    assert p._grad is p.grad


def test_a_gradient_read_before_backward_is_accumulated_into_and_stays_grad():
    p = _leaf()
    (p * 2).sum().backward()
    g = p.grad
    (p * 3).sum().backward()
    assert g is p.grad
    np.testing.assert_array_equal(g.numpy(), [5.0, 5.0, 5.0])


def test_grad_set_to_none_gives_a_new_object_and_the_old_one_keeps_its_values():
    p = _leaf()
    (p * 2).sum().backward()
    g = p.grad
    p.grad = None
    (p * 3).sum().backward()
    assert p.grad is not g
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0, 3.0])


def test_an_assigned_gradient_is_grad_and_backward_accumulates_into_it():
    p = _leaf()
    t = gg.ones(3)
    p.grad = t
    assert p.grad is t
    (p * 2).sum().backward()
    assert p.grad is t
    np.testing.assert_array_equal(t.numpy(), [3.0, 3.0, 3.0])


def test_backward_with_inputs_accumulates_into_the_same_object():
    p = _leaf()
    (p * 2).sum().backward(inputs=[p])
    g = p.grad
    (p * 3).sum().backward(inputs=[p])
    assert g is p.grad
    np.testing.assert_array_equal(g.numpy(), [5.0, 5.0, 5.0])
    gg.autograd.backward([(p * 1).sum()], inputs=[p])
    assert g is p.grad
    np.testing.assert_array_equal(g.numpy(), [6.0, 6.0, 6.0])


def test_create_graph_makes_a_new_differentiable_object():
    p = _leaf()
    (p * p).sum().backward(create_graph=True)
    g = p.grad
    (p * p).sum().backward(create_graph=True)
    assert g is not p.grad and p.grad.requires_grad
    np.testing.assert_array_equal(g.detach().numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(p.grad.detach().numpy(), [4.0, 8.0, 12.0])


def test_in_place_updates_keep_the_object():
    p = _leaf()
    (p * 2).sum().backward()
    g = p.grad
    with gg.no_grad():
        p.grad.mul_(2)
    assert g is p.grad
    np.testing.assert_array_equal(g.numpy(), [4.0, 4.0, 4.0])


def test_zero_grad_keeps_the_object_unless_it_sets_none():
    gg.manual_seed(0)
    m = nn.Linear(2, 2)
    opt = optim.SGD(m.parameters(), lr=0.1)
    m(gg.ones(1, 2)).sum().backward()
    w = m.weight.grad
    opt.step()
    assert w is m.weight.grad  # the step reads it, nothing replaces it
    opt.zero_grad(set_to_none=False)
    assert w is m.weight.grad
    np.testing.assert_array_equal(w.numpy(), np.zeros((2, 2)))
    m(gg.ones(1, 2)).sum().backward()
    assert w is m.weight.grad
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2)))
    opt.zero_grad()
    assert m.weight.grad is None
    m(gg.ones(1, 2)).sum().backward()
    assert m.weight.grad is not w


def test_a_retained_gradient_reads_as_one_object():
    x = _leaf()
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward()
    assert y.grad is y.grad


def test_each_leaf_has_its_own_object():
    a, b = _leaf(), _leaf()
    (a * b).sum().backward()
    assert a.grad is not b.grad
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0, 3.0])


def test_torch_gives_the_same_identities():
    torch = pytest.importorskip("torch")

    def identities(lib):
        p = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (p * 2).sum().backward()
        out = [p.grad is p.grad]
        g = p.grad
        (p * 3).sum().backward()
        out += [g is p.grad, g.tolist()]
        p.grad = None
        (p * 3).sum().backward()
        out += [g is p.grad, g.tolist()]
        t = lib.zeros(3)
        p.grad = t
        (p * 2).sum().backward()
        out += [p.grad is t, t.tolist()]
        return out

    assert identities(gg) == identities(torch)
