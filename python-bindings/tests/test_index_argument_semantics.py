"""Index arguments as PyTorch reads them: take_along_dim(dim=...) counts a negative index from
the end of dim (gather does not); index_select refuses an index of more than one dim with
PyTorch's IndexError; masked_scatter refuses, when the mask is known, a source with fewer elements
than the mask has True values. Expected values are PyTorch 2's."""
import numpy as np
import pytest

import glassgrad as gg

X = gg.arange(20.0).reshape(4, 5)


def test_take_along_dim_counts_negative_indices_from_the_end():
    assert gg.take_along_dim(X, gg.tensor([[-1, -5]]), dim=1).tolist() == [[4.0, 0.0], [9.0, 5.0], [14.0, 10.0],
                                                                           [19.0, 15.0]]
    assert gg.take_along_dim(X, gg.tensor([[-2], [0], [-3], [4]]), dim=1).tolist() == [[3.0], [5.0], [12.0], [19.0]]
    assert X.take_along_dim(gg.tensor([[-1, 0, -4, 3, 2]]), dim=0).tolist() == [[15.0, 1.0, 2.0, 18.0, 14.0]]


def test_take_along_dim_negative_index_gradient():
    x = gg.arange(6.0).reshape(2, 3).requires_grad_(True)
    gg.take_along_dim(x, gg.tensor([[-1], [-3]]), dim=1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


def test_index_select_of_a_matrix_index_is_an_index_error():
    with pytest.raises(IndexError, match=r"index_select\(\): Index is supposed to be a vector"):
        X.index_select(1, gg.tensor([[1, 0]]))
    assert X.index_select(1, gg.tensor(2)).tolist() == [[2.0], [7.0], [12.0], [17.0]]


def test_masked_scatter_needs_a_source_element_per_true_value():
    mask = gg.tensor([True, False, True])
    assert gg.zeros(2, 3).masked_scatter(mask, gg.arange(6.0)).tolist() == [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]]
    assert gg.zeros(2, 3).masked_scatter(mask, gg.arange(4.0)).tolist() == [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]]
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        gg.zeros(2, 3).masked_scatter(mask, gg.arange(3.0))


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    for dim in (0, 1, 2, -1):
        size = x.shape[dim]
        shape = [1, 1, 1]
        shape[dim] = 6
        idx = rng.integers(-size, size, shape)
        want = torch.take_along_dim(torch.tensor(x), torch.tensor(idx), dim=dim).numpy()
        np.testing.assert_array_equal(gg.take_along_dim(gg.tensor(x), gg.tensor(idx), dim=dim).numpy(), want)
