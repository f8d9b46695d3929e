"""Assigning Tensor.grad as PyTorch's setter checks it: None clears it; a tensor must have the
tensor's dtype, device and shape (RuntimeError otherwise, PyTorch's messages), and may not be the
tensor itself; anything else is a TypeError."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("dtype,wrong", [(gg.float32, gg.float64), (gg.float32, gg.int64),
                                         (gg.float64, gg.float32), (gg.float32, gg.float16)])
def test_a_gradient_of_another_dtype_is_refused(dtype, wrong):
    a = gg.zeros(3, dtype=dtype, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"(?s)attempting to assign a gradient with dtype '{wrong}' to a tensor "
                                           f"with dtype '{dtype}'. Please ensure that the gradient and the tensor "
                                           "have the same dtype.*fix: x.grad = g.to\\(x.dtype\\)"):
        a.grad = gg.ones(3, dtype=wrong)
    assert a.grad is None
    a.grad = gg.ones(3, dtype=wrong).to(dtype)
    assert a.grad.dtype == dtype and a.grad.tolist() == [1.0, 1.0, 1.0]


def test_dtype_is_checked_before_shape_as_torch():
    a = gg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="same dtype"):
        a.grad = gg.ones(4, dtype=gg.float64)
    with pytest.raises(RuntimeError, match="same size"):
        a.grad = gg.ones(4)


def test_a_tensor_cannot_be_its_own_grad():
    a = gg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        a.grad = a
    a.grad = a.detach().clone()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]


def test_grad_of_the_same_dtype_and_shape_replaces_and_none_clears():
    a = gg.zeros(2, 2, requires_grad=True)
    a.grad = gg.ones(2, 2)
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    a.grad = None
    assert a.grad is None
