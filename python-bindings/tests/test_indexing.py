"""Tensor indexing and the gather/scatter family against NumPy: which elements x[key] reads for
every kind of key (and where the advanced axes go), the gradients those reads route back, the
functions' results and their bounds errors. (test_torch_differential_tensor.py compares the
same against PyTorch.)"""
import numpy as np
import pytest

import glassgrad as gg

X = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)

# Keys NumPy and glassgrad read alike (NumPy treats an integer next to an array as an advanced
# index, PyTorch as a view first: keys mixing them are in TORCH_ONLY_KEYS).
KEYS = [
    0, -1, (1, 2), (1, 2, 3), slice(1, 3), (slice(None), 2), (Ellipsis, 1), (None, 0), (0, None, slice(1, 4)),
    (slice(None, None, 2), slice(1, None, 3)), (slice(None, None, -1),), (slice(3, 0, -2), Ellipsis, slice(None, None, -1)),
    (Ellipsis,), (Ellipsis, None), [0, 2, 2], ([0, 3], [1, 4]), (slice(None), [4, 0, 0]),
    (slice(None), [[0, 1], [2, 3]], slice(1, 3)), ([1, 2], slice(None), [0, 5]), (np.array([[0], [3]]), [1, 2, 4]),
    (slice(None), slice(None), [-1, -6]), ([True, False, True, False],), (slice(None), np.ones((5, 6), bool)),
    (X[..., 0] > 50,), (slice(1, 3), [0, 1], slice(None, None, -1)), (None, [0, 1], None),
]


def _id(k):
    return repr(k).replace(" ", "")[:60]


@pytest.mark.parametrize("key", KEYS, ids=[_id(k) for k in KEYS])
def test_getitem_reads_what_numpy_reads(key):
    got = gg.tensor(X)[key]
    want = X[key]
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("key", KEYS, ids=[_id(k) for k in KEYS])
def test_getitem_gradient_routes_back_to_the_read_elements(key):
    x = gg.tensor(X, requires_grad=True)
    y = x[key]
    w = np.random.default_rng(0).standard_normal(y.shape)
    (y * gg.tensor(w)).sum().backward()
    want = np.zeros_like(X)
    np.add.at(want, key, w)  # repeated elements add up
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_tensor_indices_and_integers_follow_pytorch_order():
    # PyTorch applies x[0] before indexing the rest; NumPy would move the broadcast axis first.
    x = gg.tensor(X)
    idx = gg.tensor(np.array([0, 1, 1, 2, 0]))
    assert tuple(x[0, :, idx].shape) == (5, 5)
    np.testing.assert_array_equal(x[0, :, idx].numpy(), X[0][:, [0, 1, 1, 2, 0]])
    assert tuple(x[idx[:2], 1].shape) == (2, 6)
    np.testing.assert_array_equal(x[idx[:2], 1].numpy(), X[:, 1][[0, 1]])


def test_basic_indexing_is_a_view_and_advanced_a_copy():
    x = gg.tensor(X)
    assert x[1:3, ::2]._h.op in ("", "Slice")  # a slice of a computed tensor: a view, no node
    assert x[[0, 1]]._h.op == "Index"


def test_index_out_of_bounds_names_the_value_and_the_dimension():
    x = gg.tensor(X)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        x[4]
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for dimension 1 with size 5"):
        x[:, [0, 7]].numpy()
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match=r"shape of the mask \[3\] at index 0 does not match"):
        x[np.array([True, False, True])]


def test_gather_and_take_along_dim():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    idx = rng.integers(0, 4, (3, 6))
    got = gg.gather(gg.tensor(x), 1, gg.tensor(idx))
    np.testing.assert_array_equal(got.numpy(), np.take_along_axis(x, idx, 1))
    np.testing.assert_array_equal(gg.tensor(x).take_along_dim(gg.tensor(idx[:1]), dim=1).numpy(),
                                  np.take_along_axis(x, np.broadcast_to(idx[:1], (3, 6)), 1))
    np.testing.assert_array_equal(gg.take_along_dim(gg.tensor(x), gg.tensor(np.array([11, 0]))).numpy(),
                                  x.reshape(-1)[[11, 0]])


def test_gather_gradient_adds_repeated_indices():
    x = gg.tensor(np.ones((2, 3)), requires_grad=True)
    idx = gg.tensor(np.array([[0, 0, 2], [1, 1, 1]]))
    x.gather(1, idx).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 0, 1], [0, 3, 0]])


def test_gather_out_of_bounds_is_an_index_error_naming_position():
    # a pending index (computed when the result is): the kernel checks it and names the position
    with pytest.raises(IndexError, match=r"Gather: index 5 is out of bounds for dimension 0 with size 3") as e:
        gg.gather(gg.zeros(3), 0, gg.tensor(np.array([0, 5])) * 1).numpy()
    assert "at [1] of the index" in str(e.value)
    with pytest.raises(IndexError, match="negative index"):
        gg.index_select(gg.zeros(3), 0, gg.tensor(np.array([-1])) * 1).numpy()
    # a known index raises at the call (test_torch_index_bounds_at_call.py)
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for dimension 0 with size 3"):
        gg.gather(gg.zeros(3), 0, gg.tensor(np.array([0, 5])))


def test_scatter_family():
    x = np.zeros((3, 5))
    idx = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    src = np.arange(10.0).reshape(2, 5)
    want = x.copy()
    for i in range(2):
        for j in range(5):
            want[idx[i, j], j] = src[i, j]
    np.testing.assert_array_equal(gg.scatter(gg.tensor(x), 0, gg.tensor(idx), gg.tensor(src)).numpy(), want)
    add = x.copy()
    np.add.at(add, (idx, np.arange(5)[None, :]), src)
    np.testing.assert_array_equal(gg.tensor(x).scatter_add(0, gg.tensor(idx), gg.tensor(src)).numpy(), add)
    np.testing.assert_array_equal(gg.tensor(x).scatter(0, gg.tensor(idx), value=7.0).numpy(),
                                  _scatter_value(x, idx, 7.0))
    prod = np.full((3, 5), 2.0)
    for i in range(2):
        for j in range(5):
            prod[idx[i, j], j] *= src[i, j]
    got = gg.tensor(np.full((3, 5), 2.0)).scatter(0, gg.tensor(idx), gg.tensor(src), reduce="multiply")
    np.testing.assert_array_equal(got.numpy(), prod)


def _scatter_value(x, idx, v):
    out = x.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[idx[i, j], j] = v
    return out


def test_index_add_select_fill_put():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3))
    idx = np.array([3, 0, 3])
    src = rng.standard_normal((3, 3))
    want = x.copy()
    np.add.at(want, idx, 2.0 * src)
    np.testing.assert_allclose(gg.tensor(x).index_add(0, gg.tensor(idx), gg.tensor(src), alpha=2).numpy(), want)
    np.testing.assert_array_equal(gg.index_select(gg.tensor(x), 1, gg.tensor(np.array([2, 2, 0]))).numpy(),
                                  x[:, [2, 2, 0]])
    filled = x.copy()
    filled[:, [0, 2]] = -1
    np.testing.assert_array_equal(gg.tensor(x).index_fill(1, gg.tensor(np.array([0, -1])), -1).numpy(), filled)
    put = x.copy()
    np.add.at(put, ([0, 0, 1], [1, 1, 2]), [1.0, 2.0, 3.0])
    got = gg.tensor(x).index_put((gg.tensor(np.array([0, 0, 1])), gg.tensor(np.array([1, 1, 2]))),
                                 gg.tensor(np.array([1.0, 2.0, 3.0])), accumulate=True)
    np.testing.assert_allclose(got.numpy(), put)


def test_masked_fill_and_masked_select():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    m = x > 0
    np.testing.assert_array_equal(gg.tensor(x).masked_fill(gg.tensor(m), 0.5).numpy(), np.where(m, 0.5, x))
    np.testing.assert_array_equal(gg.masked_select(gg.tensor(x), gg.tensor(m[0])).numpy(),
                                  np.broadcast_to(x, (3, 4))[np.broadcast_to(m[0], (3, 4))])
    with pytest.raises(TypeError, match="the mask must be a bool tensor"):
        gg.tensor(x).masked_fill(gg.tensor(m.astype(np.int64)), 0.0)


def test_masked_fill_gradient_skips_the_filled_elements():
    x = gg.tensor(np.ones(4), requires_grad=True)
    x.masked_fill(gg.tensor(np.array([True, False, False, True])), 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 1, 0])


def test_a_range_indexes_as_its_list_and_a_bad_key_is_an_index_error():
    # x_[range(n), y] = v (pytorch/examples' mnist_forward_forward): a range is a list of integers to PyTorch.
    x = gg.tensor(X.copy())
    np.testing.assert_array_equal(x[range(1, 3), 2].numpy(), X[[1, 2], 2])
    x[range(4), [0, 1, 2, 3]] = 100.0
    want = X.copy()
    want[range(4), [0, 1, 2, 3]] = 100.0
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(IndexError, match="an index must be an int"):
        x[1.5]


def test_an_out_of_range_index_list_or_computed_cpu_tensor_raises_when_indexing():
    # as PyTorch on the CPU: at x[idx], not later when the result is read
    x = gg.randn(3, 4)
    for key in ([0, -4], gg.tensor([5]), (slice(None), gg.tensor([1, 4])), np.array([3])):
        with pytest.raises(IndexError, match="out of bounds"):
            x[key]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x[[0, -4]] = 1.0
    assert x[gg.tensor([-3, 2]), [0, -1]].shape == (2,)


def test_an_out_of_range_index_list_or_tensor_begins_with_pytorchs_words():
    # PyTorch's first line, "index 9 is out of bounds for dimension 0 with size 6", for an int, a
    # list and a tensor alike (a course notebook indexing data smaller than it assumed)
    x = gg.zeros(6, 2)
    for key in (9, [1, 9], gg.tensor([1, 9]), (slice(None), [0, 2])):
        with pytest.raises(IndexError) as e:
            x[key]
        dim, size = (1, 2) if isinstance(key, tuple) else (0, 6)
        assert str(e.value).split("\n")[0].startswith(
            f"index {2 if dim else 9} is out of bounds for dimension {dim} with size {size}"), str(e.value)


def test_index_tensors_that_do_not_broadcast_raise_index_error_naming_their_shapes():
    # PyTorch: IndexError "shape mismatch: indexing tensors could not be broadcast together with
    # shapes [32], [19930]" (a notebook's probs[torch.arange(32), Y] with Y of the whole data set),
    # for reads and writes alike; shapes that broadcast index as NumPy does.
    x = gg.tensor(X.copy())
    msg = r"shape mismatch: indexing tensors could not be broadcast together with shapes \[3\], \[2\]"
    with pytest.raises(IndexError, match=msg):
        x[gg.arange(3), gg.tensor([1, 2])]
    with pytest.raises(IndexError, match=msg):
        x[gg.arange(3), gg.tensor([1, 2])] = 1.0
    with pytest.raises(IndexError, match=r"shapes \[2\], \[3\], \[4\]"):
        x[[0, 1], [0, 1, 2], [0, 1, 2, 3]]
    rows, cols = np.array([[0], [3]]), np.array([1, 2, 4])
    np.testing.assert_array_equal(x[gg.tensor(rows), gg.tensor(cols)].numpy(), X[rows, cols])


@pytest.mark.parametrize("key", [0, 3, slice(0, 1)])
def test_indexing_a_0d_tensor_raises_pytorchs_index_error_with_the_fix(key):
    """loss.data[0] (the PyTorch 0.3 idiom for a loss's number) on a 0-d tensor: PyTorch's
    IndexError headline, and glassgrad's line saying what reads the number now."""
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError) as theirs:
        torch.tensor(1.5)[key]
    with pytest.raises(IndexError) as ours:
        gg.tensor(1.5)[key]
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    assert "fix: x.item()" in str(ours.value)
    with pytest.raises(IndexError) as written:
        gg.tensor(1.5)[key] = 2.0
    assert str(written.value).splitlines()[0] == str(theirs.value).splitlines()[0]
