"""Indexing with bools and 0-d integer tensors as PyTorch documents it, checked against NumPy
without torch: a bool is an index tensor on its new axis (NumPy's rule too: x[True, ..., True]
has one new axis, x[[0, 2], True] broadcasts the list with it); a 0-d integer tensor reads as
the integer it holds (x[t, ::2, [0, 2]] is NumPy's x[1, ::2, [0, 2]]), in reads, writes (a dtype
converted as through a view) and gradients. (NumPy counts an integer beside index arrays as one
of them, so the reference applies the integers first, as selects: X[1][::2, [0, 2]].)"""
import numpy as np
import pytest

import glassgrad as gg

X = np.arange(120.0).reshape(4, 5, 6)
BOOL_KEYS = [(True, Ellipsis, True), (True, True, Ellipsis), ([0, 2, -1], True, Ellipsis),
             (True, Ellipsis, [[0, 1], [2, 3]]), (False, 1), (True, 1, [0, 4]), (None, True, slice(1, 3))]
ZERO_D_KEYS = [(1, slice(None, None, 2), [0, 2, -1]), (1, slice(1, 4), [[0, 1], [2, 3]]), ([0, 3], 2, [1, 5]),
               ([0, 2], slice(None), -1), (slice(None), [0, 1], 2)]


def _view_and_rest(a: np.ndarray, key):
    """PyTorch's reading of key on a: the integers applied first (a view), then the rest."""
    if any(isinstance(k, bool) for k in key):
        return a, key
    sel = tuple(k if isinstance(k, int) else slice(None) for k in key)
    return a[sel], tuple(k for k in key if not isinstance(k, int))


def _tensor_key(key):
    return tuple(gg.tensor(k) if isinstance(k, int) and not isinstance(k, bool) else k for k in key)


@pytest.mark.parametrize("key", BOOL_KEYS)
def test_bools_index_as_numpy(key):
    got = gg.tensor(X)[key]
    np.testing.assert_array_equal(got.numpy(), X[key])


@pytest.mark.parametrize("key", ZERO_D_KEYS)
def test_zero_dim_integer_tensors_read_as_integers(key):
    got = gg.tensor(X)[_tensor_key(key)]
    view, rest = _view_and_rest(X, key)
    np.testing.assert_array_equal(got.numpy(), view[rest])


@pytest.mark.parametrize("key", ZERO_D_KEYS + BOOL_KEYS)
def test_writes_land_where_reads_come_from(key):
    want = X.copy()
    view, rest = _view_and_rest(want, key)
    n = view[rest].size
    view[rest] = np.arange(1000.0, 1000.0 + n).reshape(view[rest].shape)
    x = gg.tensor(X)
    tkey = _tensor_key(key)
    x[tkey] = gg.arange(1000.0, 1000.0 + n, dtype=gg.float64).reshape(*x[tkey].shape)
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("key", [(1, slice(1, 4)), (slice(None), 2, -1), (3,)])
def test_zero_dim_selects_write_a_converted_value(key):
    x = gg.tensor(X.astype(np.float32))
    x[_tensor_key(key)] = gg.tensor(2.5, dtype=gg.float64)
    want = X.astype(np.float32)
    view, rest = _view_and_rest(want, key)
    view[rest] = 2.5
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("key", ZERO_D_KEYS + BOOL_KEYS)
def test_gradient_reaches_the_elements_read(key):
    x = gg.tensor(X, requires_grad=True)
    y = x[_tensor_key(key)]
    w = np.random.default_rng(0).standard_normal(tuple(y.shape))
    (y * gg.tensor(w)).sum().backward()
    want = np.zeros_like(X)
    view, rest = _view_and_rest(want, key)
    np.add.at(view, rest, w)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-15)


def test_masked_write_of_one_value():
    x = gg.tensor(X.astype(np.float32))
    mask = np.array([True, False, True, False, True])
    x[:, gg.tensor(mask)] = gg.tensor(-1.0, dtype=gg.float64)  # one value: converted, as a fill
    want = X.astype(np.float32)
    want[:, mask] = -1.0
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(gg.GlassgradError, match="boolean masks"):
        x[gg.tensor([1, 0, 1, 0], dtype=gg.uint8)] = 1


@pytest.mark.parametrize("key", [(1,), (1, slice(None, None, 2)), (Ellipsis, 2), (-1, None, 3)])
def test_zero_dim_selects_alone_are_views(key):
    # PyTorch reads x[t] (t 0-d integer, no other index tensor) as x[int(t)]: a view, so an in-place
    # write through the result lands in x, as for a loop `for i in idx: x[i].zero_()`
    x = gg.tensor(X.astype(np.float32))
    x[_tensor_key(key)].fill_(-1.0)
    want = X.astype(np.float32)
    want[key] = -1.0
    np.testing.assert_array_equal(x.numpy(), want)


def test_zero_dim_selects_of_every_integer_dtype():
    x = gg.tensor(X)
    for dtype in (gg.int8, gg.int16, gg.int32, gg.int64):
        np.testing.assert_array_equal(x[gg.tensor(2, dtype=dtype)].numpy(), X[2])
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        x[gg.tensor(4)]


@pytest.mark.parametrize("index", [gg.tensor([1.0]), gg.tensor([1], dtype=gg.int16), gg.tensor([1], dtype=gg.int8),
                                   gg.tensor(1.0)])
def test_index_tensors_of_other_dtypes_raise_index_error(index):
    # PyTorch's IndexError: index tensors are int64 or int32 (positions) or bool or uint8 (masks)
    x = gg.tensor(X)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[index]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[0, index]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[index] = 1.0


@pytest.mark.parametrize("make_key", [lambda lib: lib.tensor(1), lambda lib: (lib.tensor(-1), slice(None, None, 2)),
                                      lambda lib: (Ellipsis, lib.tensor(0, dtype=lib.int16), None),
                                      lambda lib: lib.tensor([1.0]), lambda lib: (0, lib.tensor([1], dtype=lib.int8))])
def test_zero_dim_views_and_index_dtypes_as_torch(make_key):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, gg):
        x = lib.tensor(X.astype(np.float32))
        try:
            x[make_key(lib)].fill_(-1.0)
            results.append(x.numpy())
        except IndexError as e:
            results.append(str(e).splitlines()[0])
    if isinstance(results[0], str):
        assert results[1] == results[0]
    else:
        np.testing.assert_array_equal(results[1], results[0])
