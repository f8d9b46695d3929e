"""A factory given out= and requires_grad=True writes its values into out and makes out a leaf that
requires grad, as PyTorch's factories do (docs/porting.md, "Tensor creation"); an integer out
cannot require grad (PyTorch's RuntimeError)."""
import numpy as np
import pytest

import glassgrad as gg

FACTORIES = {
    "ones": lambda out: gg.ones(2, out=out, requires_grad=True),
    "zeros 0-d": lambda out: gg.zeros((), out=out, requires_grad=True),
    "full": lambda out: gg.full((2,), 1.5, out=out, requires_grad=True),
    "arange": lambda out: gg.arange(3.0, out=out, requires_grad=True),
    "randn": lambda out: gg.randn(2, out=out, requires_grad=True),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_out_becomes_a_leaf_that_requires_grad(name):
    out = gg.empty(3)
    got = FACTORIES[name](out)
    assert got is out and out.requires_grad and out.is_leaf


def test_the_values_are_written_and_take_gradients():
    out = gg.empty(3)
    gg.full((2,), 1.5, out=out, requires_grad=True)
    np.testing.assert_array_equal(out.detach().numpy(), [1.5, 1.5])
    (out * 2).sum().backward()
    np.testing.assert_array_equal(out.grad.numpy(), [2.0, 2.0])


def test_an_integer_out_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        gg.ones(2, out=gg.empty(3, dtype=gg.long), requires_grad=True)


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    out = torch.empty(3)
    assert torch.ones(2, out=out, requires_grad=True) is out and out.requires_grad and out.is_leaf
