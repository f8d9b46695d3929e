"""A .grad assigned a view of other memory, as PyTorch's: `p.grad = flat[0:n].view_as(p)` (a flat
gradient buffer) or a transposed tensor stays p.grad with its strides, backward() accumulates
into its memory in place, and writes through it or its base are p's gradient for the optimizer
(docs/autograd.md, "The .grad tensor object")."""
import numpy as np
import pytest

import glassgrad as gg


def _params_on_a_flat_buffer(lib):
    q = lib.ones(3, 4).requires_grad_()
    w = lib.ones(2).requires_grad_()
    flat = lib.zeros(14)
    q.grad = flat[0:12].view(3, 4)
    w.grad = flat[12:14]
    return q, w, flat


def _loss(q, w):
    return (q * 2).sum() + (w * 3).sum()


def test_backward_accumulates_into_the_flat_buffer():
    q, w, flat = _params_on_a_flat_buffer(gg)
    view = q.grad
    _loss(q, w).backward()
    np.testing.assert_array_equal(flat.numpy(), [2.0] * 12 + [3.0] * 2)
    _loss(q, w).backward()
    np.testing.assert_array_equal(flat.numpy(), [4.0] * 12 + [6.0] * 2)
    assert q.grad is view
    np.testing.assert_array_equal(q.grad.numpy(), np.full((3, 4), 4.0))


def test_writes_through_the_buffer_are_the_gradient():
    q, w, flat = _params_on_a_flat_buffer(gg)
    _loss(q, w).backward()
    flat.mul_(0.5)  # as a gradient-scaling step over the buffer would
    np.testing.assert_array_equal(w.grad.numpy(), [1.5, 1.5])
    opt = gg.optim.SGD([q, w], lr=1.0)
    opt.step()  # reads the halved gradient
    np.testing.assert_array_equal(w.detach().numpy(), [-0.5, -0.5])
    np.testing.assert_array_equal(q.detach().numpy(), np.zeros((3, 4)))
    flat.zero_()
    _loss(q, w).backward()  # adds to the zeros
    np.testing.assert_array_equal(flat.numpy(), [2.0] * 12 + [3.0] * 2)


def test_an_optimizer_reads_a_buffer_written_since_the_backward():
    q, w, flat = _params_on_a_flat_buffer(gg)
    opt = gg.optim.SGD([q, w], lr=1.0)
    _loss(q, w).backward()
    flat.mul_(0.5)  # no .grad read before the step
    opt.step()
    np.testing.assert_array_equal(w.detach().numpy(), [-0.5, -0.5])


def test_zero_grad_keeps_or_ends_the_link():
    q, w, flat = _params_on_a_flat_buffer(gg)
    opt = gg.optim.SGD([q, w], lr=0.1)
    _loss(q, w).backward()
    opt.zero_grad(set_to_none=False)  # zeroes the buffer in place
    np.testing.assert_array_equal(flat.numpy(), np.zeros(14))
    _loss(q, w).backward()
    np.testing.assert_array_equal(flat.numpy(), [2.0] * 12 + [3.0] * 2)
    opt.zero_grad()  # set to None: the next gradient is a tensor of its own
    assert q.grad is None
    _loss(q, w).backward()
    np.testing.assert_array_equal(flat.numpy(), [2.0] * 12 + [3.0] * 2)
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])


def test_a_transposed_gradient_keeps_its_object_and_strides():
    q = gg.randn(3, 4).requires_grad_()
    g = gg.zeros(4, 3).t()
    q.grad = g
    assert q.grad is g
    (q * 2).sum().backward()
    assert q.grad is g and g.stride() == (1, 3)
    np.testing.assert_array_equal(g.numpy(), np.full((3, 4), 2.0))
    q.grad = None
    (q * 2).sum().backward()
    np.testing.assert_array_equal(g.numpy(), np.full((3, 4), 2.0))  # unlinked: the old one keeps its values
    np.testing.assert_array_equal(q.grad.numpy(), np.full((3, 4), 2.0))


def test_a_post_accumulate_hook_reads_the_view():
    q, w, flat = _params_on_a_flat_buffer(gg)
    seen = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.numpy().copy()))
    _loss(q, w).backward()
    np.testing.assert_array_equal(seen[0], [3.0, 3.0])
    np.testing.assert_array_equal(flat.numpy()[12:], [3.0, 3.0])


def test_torch_gives_the_same_buffer():
    torch = pytest.importorskip("torch")

    def run(lib):
        q, w, flat = _params_on_a_flat_buffer(lib)
        _loss(q, w).backward()
        flat.mul_(0.5)
        _loss(q, w).backward()
        return flat.detach().numpy().copy(), q.grad.stride()

    ours, theirs = run(gg), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
