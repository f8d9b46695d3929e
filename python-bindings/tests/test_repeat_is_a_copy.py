"""Tensor.repeat makes a new tensor, as PyTorch's: a write into the result changes that element
only, never the input nor the other tiles (eriklindernoren/PyTorch-GAN's stargan.py edits
`labels = label.repeat(c_dim, 1)` element by element to build its target domains)."""
import numpy as np
import pytest

import glassgrad.torch as gtorch

CASES = [((5,), (5, 1)), ((5,), (3,)), ((2, 3), (1, 1)), ((2, 3), (2, 2)), ((2, 1, 3), (1, 4, 1)), ((3,), (2, 1, 1))]


def _edit(torch, shape, reps):
    """repeat of arange(shape), then the stargan-style edits; returns (result, input) as arrays."""
    x = torch.arange(float(np.prod(shape))).reshape(shape)
    y = x.repeat(*reps)
    y[(0,) * y.ndim] = 1 - y[(0,) * y.ndim]
    y[(-1,) * y.ndim] = 7.0
    return y.numpy(), x.numpy()


@pytest.mark.parametrize("shape, reps", CASES)
def test_writes_into_a_repeat_reach_one_element_only(shape, reps):
    y, x = _edit(gtorch, shape, reps)
    expected = np.tile(np.arange(float(np.prod(shape))).reshape(shape), reps)
    expected[(0,) * expected.ndim] = 1 - expected[(0,) * expected.ndim]
    expected[(-1,) * expected.ndim] = 7.0
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(x, np.arange(float(np.prod(shape))).reshape(shape))
    torch = pytest.importorskip("torch")
    ty, tx = _edit(torch, shape, reps)
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(x, tx)


def test_repeat_of_ones_is_a_new_tensor():
    x = gtorch.ones(2, 2)
    assert x.repeat(1, 1) is not x
