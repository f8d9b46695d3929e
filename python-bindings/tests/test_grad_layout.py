"""PyTorch's layout contract for the gradient backward() makes for a leaf: the leaf's strides where
the leaf is dense (a transpose, a permutation, channels_last), row-major where it has gaps or
overlaps (a slice with a step, an expand); later backwards accumulate into it in place, keeping
the object and its strides (docs/autograd.md, "The .grad tensor object")."""
import warnings

import numpy as np
import pytest

import glassgrad as gg


def _grad_of(leaf, scale=2.0):
    (leaf * scale).sum().backward()
    return leaf.grad


@pytest.mark.parametrize("make, strides", [
    (lambda lib: lib.ones(3, 4).t(), (1, 4)),
    (lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1), (1, 12, 4)),
    (lambda lib: lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last), (60, 1, 15, 3)),
])
def test_a_dense_leaf_gets_a_gradient_of_its_strides(make, strides):
    leaf = make(gg).requires_grad_()
    g = _grad_of(leaf)
    assert g.stride() == strides == leaf.stride()
    np.testing.assert_array_equal(g.numpy(), np.full(tuple(leaf.shape), 2.0))


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(4, 6)[:, ::2],
    lambda lib: lib.ones(3, 1).expand(3, 4),
])
def test_a_leaf_with_gaps_or_overlaps_gets_a_row_major_gradient(make):
    leaf = make(gg).detach().requires_grad_()
    g = _grad_of(leaf)
    assert g.is_contiguous()
    np.testing.assert_array_equal(g.numpy(), np.full(tuple(leaf.shape), 2.0))


def test_accumulation_keeps_the_object_and_its_strides():
    leaf = gg.ones(3, 4).t().requires_grad_()
    g = _grad_of(leaf)
    _grad_of(leaf, 3.0)
    assert leaf.grad is g and g.stride() == (1, 4)
    np.testing.assert_array_equal(g.numpy(), np.full((4, 3), 5.0))
    leaf.grad = None
    g2 = _grad_of(leaf)
    assert g2 is not g and g2.stride() == (1, 4)
    np.testing.assert_array_equal(g.numpy(), np.full((4, 3), 5.0))


def test_backward_with_inputs_keeps_the_strides_too():
    leaf = gg.ones(3, 4).t().requires_grad_()
    (leaf * 2).sum().backward(inputs=[leaf])
    g = leaf.grad
    (leaf * 3).sum().backward(inputs=[leaf])
    assert leaf.grad is g and g.stride() == (1, 4)
    np.testing.assert_array_equal(g.numpy(), np.full((4, 3), 5.0))


def test_create_graph_with_inputs_gives_a_differentiable_gradient_of_the_leafs_strides():
    leaf = gg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t().requires_grad_()
    (leaf * leaf).sum().backward(create_graph=True, inputs=[leaf])
    assert leaf.grad.stride() == (1, 3) and leaf.grad.requires_grad
    np.testing.assert_array_equal(leaf.grad.detach().numpy(), [[2.0, 8.0], [4.0, 10.0], [6.0, 12.0]])
    (gx,) = gg.autograd.grad(leaf.grad.sum(), leaf)  # d/dx sum(2x) = 2
    np.testing.assert_array_equal(gx.numpy(), np.full((3, 2), 2.0))


@pytest.mark.parametrize("make", [lambda: gg.ones(3, 4).t(),
                                  lambda: gg.ones(2, 3, 4, 5).to(memory_format=gg.channels_last)])
def test_create_graph_without_inputs_gives_the_leafs_strides(make):
    leaf = make().requires_grad_()
    with warnings.catch_warnings():  # the reference cycle's warning, once per process
        warnings.simplefilter("ignore")
        (leaf * leaf * leaf).sum().backward(create_graph=True)
    g = leaf.grad
    assert g.stride() == leaf.stride() and g.requires_grad and leaf.grad is g
    np.testing.assert_array_equal(g.detach().numpy(), np.full(tuple(leaf.shape), 3.0))
    (gx,) = gg.autograd.grad(g.sum(), leaf, retain_graph=True)  # d/dx sum(3x^2) = 6x
    np.testing.assert_array_equal(gx.numpy(), np.full(tuple(leaf.shape), 6.0))


def test_a_second_create_graph_backward_makes_a_new_gradient_of_the_leafs_strides():
    leaf = gg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (leaf * leaf).sum().backward(create_graph=True)
        first = leaf.grad
        (leaf * leaf * leaf).sum().backward(create_graph=True)
    g = leaf.grad
    assert g is not first and g.stride() == (1, 3) and g.requires_grad
    x = leaf.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), 2 * x + 3 * x * x)
    np.testing.assert_allclose(first.detach().numpy(), 2 * x)  # out of place, as PyTorch's
    (gx,) = gg.autograd.grad(g.sum(), leaf)  # d/dx sum(2x + 3x^2) = 2 + 6x
    np.testing.assert_allclose(gx.numpy(), 2 + 6 * x)


def test_an_optimizer_steps_a_transposed_leaf_with_its_gradient():
    w = gg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).t().requires_grad_()
    opt = gg.optim.SGD([w], lr=0.5)
    x = gg.tensor([1.0, -1.0, 2.0])
    (w @ x).sum().backward()
    w.grad.mul_(2)  # through the strided gradient
    opt.step()
    # d/dw sum(w @ x) = x in each row, doubled, times lr
    np.testing.assert_allclose(w.detach().numpy(), [[0.0, 4.0, 3.0], [1.0, 5.0, 4.0]])


def test_torch_gives_the_same_strides():
    torch = pytest.importorskip("torch")

    def strides(lib):
        leaves = [lib.ones(3, 4).t(), lib.ones(2, 3, 4).permute(2, 0, 1), lib.ones(4, 6)[:, ::2]]
        out = []
        for leaf in leaves:
            leaf = leaf.detach().requires_grad_()
            out.append(_grad_of(leaf).stride())
            out.append(_grad_of(leaf).stride())
        return out

    assert strides(gg) == strides(torch)
