"""nn.init.orthogonal_, sparse_ and dirac_: the properties PyTorch's documentation states
(orthogonal rows or columns times gain, ceil(sparsity * rows) zeros in every column, a convolution
that is the identity), and dirac_'s values and every function's errors against PyTorch's."""
import math

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4), (6, 2, 3, 3), (2, 5, 3)])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain(shape):
    gg.manual_seed(0)
    w = nn.init.orthogonal_(gg.zeros(*shape, dtype="float64"), gain=1.5)
    m = w.numpy().reshape(shape[0], -1)
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, 1.5 ** 2 * np.eye(small), atol=1e-12)
    gg.manual_seed(0)
    again = nn.init.orthogonal_(gg.zeros(*shape, dtype="float64"), gain=1.5)
    np.testing.assert_array_equal(again.numpy(), w.numpy())  # the generator's draws, repeatable


def test_orthogonal_keeps_the_parameter_and_refuses_vectors():
    layer = nn.Linear(4, 3)
    before = layer.weight
    assert nn.init.orthogonal_(layer.weight, nn.init.calculate_gain("relu")) is before
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(gg.zeros(5))


def test_sparse_zeroes_the_same_count_in_every_column_as_torch():
    torch = pytest.importorskip("torch")
    for sparsity in (0.1, 0.5, 0.9):
        w = nn.init.sparse_(gg.zeros(10, 7), sparsity, std=0.5).numpy()
        t = torch.nn.init.sparse_(torch.zeros(10, 7), sparsity, std=0.5).numpy()
        assert list((w == 0).sum(0)) == list((t == 0).sum(0)) == [math.ceil(sparsity * 10)] * 7
    with pytest.raises(ValueError, match="2 dimensions"):
        nn.init.sparse_(gg.zeros(2, 3, 4), 0.5)


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((3, 3, 5, 5), 1), ((6, 3, 3, 3), 2), ((4, 6, 1, 3, 3), 1), ((8, 2, 5, 4), 4)])
def test_dirac_equals_torchs_and_is_the_identity_convolution(shape, groups):
    torch = pytest.importorskip("torch")
    w = nn.init.dirac_(gg.zeros(*shape), groups)
    np.testing.assert_array_equal(w.numpy(), torch.nn.init.dirac_(torch.zeros(*shape), groups).numpy())
    if len(shape) == 4 and groups == 1 and shape[0] == shape[1]:
        x = gg.randn(1, shape[1], 6, 6)
        np.testing.assert_allclose(gg.nn.functional.conv2d(x, w, padding=shape[2] // 2).numpy(), x.numpy())
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.init.dirac_(gg.zeros(5, 2, 3, 3), groups=2)
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        nn.init.dirac_(gg.zeros(3, 3))
