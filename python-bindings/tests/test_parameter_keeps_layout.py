"""nn.Parameter(x.t()) keeps x's storage and strides, as PyTorch's Parameter (data.detach() made
a leaf that requires grad): an optimizer step on it writes x, and it stays a leaf that is not
contiguous. (A dense tensor is still copied into a leaf of its own.)"""
import numpy as np
import pytest

import glassgrad as gg


def test_a_transposed_tensor_is_aliased_with_its_strides():
    x = gg.arange(12.0).reshape(3, 4)
    p = gg.nn.Parameter(x.t())
    assert isinstance(p, gg.nn.Parameter) and p.is_leaf and p.requires_grad and p.grad_fn is None
    assert tuple(p.stride()) == (1, 4) and not p.is_contiguous() and p.shape == (4, 3)
    (p * gg.arange(12.0).reshape(4, 3)).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.arange(12.0).reshape(4, 3))
    gg.optim.SGD([p], lr=0.1).step()
    # the step wrote x through the parameter: x[0, j] = p[j, 0] = j - 0.1 * 3 j
    np.testing.assert_allclose(x[0].numpy(), [0.0, 0.7, 1.4, 2.1], rtol=1e-6)
    assert tuple(p.stride()) == (1, 4)


def test_the_parameter_of_a_view_of_a_tensor_that_requires_grad_is_a_new_leaf():
    w = gg.ones(3, 4, requires_grad=True)
    q = gg.nn.Parameter(w.t())
    assert q.is_leaf and q.grad_fn is None
    (q * 2).sum().backward()
    assert w.grad is None and q.grad.shape == (4, 3)
    assert not gg.nn.Parameter(w.t(), requires_grad=False).requires_grad


def test_a_dense_tensor_is_still_copied():
    x = gg.zeros(2, 3)
    p = gg.nn.Parameter(x)
    with gg.no_grad():
        p.add_(1)
    assert x.sum().item() == 0.0 and p.is_contiguous()


def test_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        x = lib.arange(12.0).reshape(3, 4)
        p = lib.nn.Parameter(x.t())
        (p * lib.arange(12.0).reshape(4, 3)).sum().backward()
        lib.optim.SGD([p], lr=0.1).step()
        assert tuple(p.stride()) == (1, 4)
        want = np.arange(12.0).reshape(3, 4) - 0.1 * np.arange(12.0).reshape(4, 3).T
        np.testing.assert_allclose(np.array(x.tolist()), want, rtol=1e-6)
