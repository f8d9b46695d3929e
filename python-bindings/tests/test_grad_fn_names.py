"""Tensor.grad_fn names as PyTorch's backward nodes for views and matrix products: view, reshape
and flatten of a contiguous tensor give ViewBackward0, a product of two matrices MmBackward0, a
batch of matrices times a matrix UnsafeViewBackward0 (the view matmul returns)."""
import pytest

import glassgrad as gg


@pytest.mark.parametrize("name,fn,want", [
    ("view", lambda x: x.view(6), "ViewBackward0"),
    ("reshape", lambda x: x.reshape(3, 2), "ViewBackward0"),
    ("flatten", lambda x: x.flatten(), "ViewBackward0"),
    ("x @ matrix", lambda x: x @ gg.ones(3, 2), "MmBackward0"),
    ("torch.mm", lambda x: gg.mm(x, gg.ones(3, 2)), "MmBackward0"),
    ("batch @ matrix", lambda x: gg.ones(4, 2, 3) @ x.t(), "UnsafeViewBackward0"),
    ("x * 2", lambda x: x * 2, "MulBackward0"),
    ("sum", lambda x: x.sum(), "SumBackward0"),
])
def test_grad_fn_names_are_pytorchs(name, fn, want):
    x = gg.ones(2, 3, requires_grad=True)
    assert fn(x).grad_fn.name() == want
