"""Differences from PyTorch a sweep of tensor semantics found (round 10), mended: unique and
unique_consecutive with dim over empty inputs (PyTorch's RuntimeError when an axis other than dim
is empty, empty results when dim itself is, IndexError for a 0-d input); arange's int64 count
from truncated bounds; eye in bfloat16; tril_indices/triu_indices of other dtypes than int64 and
int32 refused; linspace and logspace reading start and end through the result dtype's checked
conversion (integers truncated and wrapped), and refusing bool for two or more values. Each case
is compared with PyTorch itself. Torch-guarded: CI has no torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad as gg  # noqa: E402


def _same(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _outcome(call):
    try:
        return call(), None
    except Exception as e:  # the comparison below reads its type
        return None, e


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 3), (3, 2), ()])
def test_unique_with_dim_over_empty_and_0d_inputs(name, shape):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 2
    for dim in range(-len(shape), len(shape)) if shape else [0]:
        def call(m):
            return getattr(m, name)(m.tensor(data), dim=dim, return_inverse=True, return_counts=True)
        theirs, their_error = _outcome(lambda: call(torch))
        ours, our_error = _outcome(lambda: call(gg))
        if their_error is not None:
            assert isinstance(our_error, type(their_error)), (shape, dim, our_error, their_error)
        else:
            assert our_error is None, (shape, dim, our_error)
            _same(ours, theirs)


def _compare(call):
    theirs, their_error = _outcome(lambda: call(torch))
    ours, our_error = _outcome(lambda: call(gg))
    if their_error is not None:
        assert isinstance(our_error, type(their_error)), (our_error, their_error)
    else:
        assert our_error is None, our_error
        _same(ours, theirs)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float32"])
@pytest.mark.parametrize("bounds", [(0.5, 4.5, 1.5), (-2.5, 4.7, 2), (0, 5, 1.9), (5, 0, -1.5), (1, 4, 0.5),
                                    (0.5, 3.9), (0, 3.5, 1), (7, 2, -2)])
def test_arange_of_an_integer_dtype_with_fractional_bounds(dtype, bounds):
    _compare(lambda m: m.arange(*bounds, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("size", [(3,), (2, 4), (0,)])
def test_eye_in_bfloat16(size):
    _compare(lambda m: m.eye(*size, dtype=m.bfloat16).float())
    assert gg.eye(*size, dtype=gg.bfloat16).dtype == gg.bfloat16


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float32", "bool"])
def test_triangle_indices_dtypes(name, dtype):
    _compare(lambda m: getattr(m, name)(3, 4, 1, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("args", [(-3, 3, 4, "uint8"), (-100, 100, 5, "uint8"), (-200, 3, 4, "uint8"),
                                  (0, 300, 2, "uint8"), (-3.5, 3, 4, "uint8"), (-129, 3, 4, "int8"),
                                  (0.5, 10.7, 4, "int64"), (0.5, 2.5, 5, "int32"), (0, 70000, 3, "float16"),
                                  (0, 1e39, 3, "float32"), (0, 10, 0, "bool"), (0, 10, 1, "bool"),
                                  (-1, 2.5, 1, "bool"), (0, 10, 2, "bool"), (0, 1, 3, "bool")])
def test_linspace_and_logspace_read_their_ends_in_the_result_dtype(name, args):
    *ends, steps, dtype = args
    _compare(lambda m: getattr(m, name)(*ends, steps, dtype=getattr(m, dtype)))
