"""Two of PyTorch's indexing rules: a list key holding a sequence, a tensor, a slice, None or
Ellipsis is read as the tuple of its items (x[[rows, cols]] is x[rows, cols], with a deprecation
warning), and index tensors are bounds-checked only when the result has elements (PyTorch's
kernel checks them as it reads them)."""
import numpy as np
import pytest

import glassgrad as gg

X = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("key, expected", [
    ([[0, 1], [1, 2]], X[(0, 1), (1, 2)]),
    ([[0, 1]], X[[0, 1]]),
    ([0, slice(None)], X[0, :]),
    ([slice(None), 0], X[:, 0]),
    ([None, 0], X[None, 0]),
    ([Ellipsis, 1], X[..., 1]),
    ([[0], 1], X[[0], 1]),
    ([(0, 1)], X[[0, 1]]),
    ([[0, 1], slice(1, 3), [2, 3]], X[[0, 1], 1:3, [2, 3]]),
    ([range(2)], X[[0, 1]]),
    ([[True, False]], X[np.array([True, False])]),
])
def test_a_list_of_sequences_is_a_tuple_key(key, expected):
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
        got = gg.tensor(X)[key]
    np.testing.assert_array_equal(got.numpy(), expected)


def test_a_list_holding_a_tensor_is_a_tuple_key():
    with pytest.warns(UserWarning):
        got = gg.tensor(X)[[gg.tensor(1), 0]]
    assert got.tolist() == X[1, 0].tolist()


@pytest.mark.parametrize("key, expected_shape", [([0, 1], (2, 3, 4)), ([1], (1, 3, 4)), (list(range(2)) * 20, (40, 3, 4))])
def test_a_list_of_numbers_stays_one_index(key, expected_shape):
    assert tuple(gg.tensor(X)[key].shape) == expected_shape


def test_setitem_reads_the_list_as_a_tuple_too():
    x = gg.tensor(X)
    with pytest.warns(UserWarning):
        x[[[0, 1], [1, 2]]] = -1.0
    want = X.copy()
    want[(0, 1), (1, 2)] = -1.0
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("shape, key, expected_shape", [
    ((3, 0), lambda: gg.tensor([5]), (1, 0)),
    ((0, 3), lambda: (slice(None), gg.tensor([7])), (0, 1)),
    ((2, 3), lambda: (gg.tensor([[5]]), gg.zeros(0, 1, dtype=gg.int64)), (0, 1)),
    ((0, 3), lambda: (gg.tensor([5]), gg.tensor([], dtype=gg.int64)), (0,)),
    ((2, 3), lambda: (slice(0, 0), gg.tensor([-9])), (0, 1)),
])
def test_an_out_of_range_index_into_an_empty_result_reads_nothing(shape, key, expected_shape):
    x = gg.zeros(*shape)
    assert tuple(x[key()].shape) == expected_shape
    x[key()] = 1.0  # nothing written, nothing raised
    assert x.sum().item() == 0.0


@pytest.mark.parametrize("shape, key", [
    ((0, 3), lambda: gg.tensor([5])),
    ((2, 3), lambda: (slice(None), gg.tensor([3]))),
    ((3, 2), lambda: [7]),
])
def test_an_out_of_range_index_with_elements_to_read_raises(shape, key):
    with pytest.raises(IndexError, match="out of bounds"):
        gg.zeros(*shape)[key()]
    with pytest.raises(IndexError, match="out of bounds"):
        gg.zeros(*shape)[key()] = 1.0


def test_against_torch():
    torch = pytest.importorskip("torch")
    keys = [[[0, 1], [1, 2]], [0, slice(None)], [None, 0], [[0], 1], [[0, 1], slice(1, 3), [2, 3]], [[]], [[], []]]
    for key in keys:
        with pytest.warns(UserWarning):
            want = torch.tensor(X)[key]
        with pytest.warns(UserWarning):
            got = gg.tensor(X)[key]
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for shape, key in [((3, 0), [5]), ((0, 3), (slice(None), [7])), ((2, 3), (slice(0, 0), [-9]))]:
        tk = tuple(torch.tensor(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else \
            torch.tensor(key)
        gk = tuple(gg.tensor(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else gg.tensor(key)
        assert tuple(torch.zeros(*shape)[tk].shape) == tuple(gg.zeros(*shape)[gk].shape)
