"""torch.tensor, torch.as_tensor and torch.from_numpy of a NumPy array with a negative stride
or a byte order other than the machine's raise PyTorch's ValueError, its sentence first, and of
an array of objects, strings, dates or long doubles PyTorch's TypeError (_numpy_arrays.py); other strides, 0-d and empty arrays, subclasses and copies convert; from_numpy
of something else is PyTorch's TypeError 'expected np.ndarray (got list)'. The sentences are
PyTorch 2.14's; the last test compares with torch when it is installed."""
import sys

import numpy as np
import pytest

import glassgrad as gg

NEGATIVE = ("At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) ")
BYTE_ORDER = ("given numpy array has byte order different from the native byte order. Conversion between byte "
              "orders is currently not supported.")
FOREIGN = ">" if sys.byteorder == "little" else "<"
A = np.arange(6.0, dtype=np.float32).reshape(2, 3)
MAKERS = {"tensor": gg.tensor, "as_tensor": gg.as_tensor, "from_numpy": gg.from_numpy}


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("view", [A[::-1], A[:, ::-1], np.flip(A), A[::-2, ::-1], np.arange(4)[::-1]],
                         ids=["rows", "columns", "flip", "both", "int64"])
def test_a_negative_stride_is_refused(maker, view):
    with pytest.raises(ValueError) as info:
        MAKERS[maker](view)
    first, *rest = str(info.value).splitlines()
    assert first == NEGATIVE
    assert any("a.copy()" in line for line in rest)


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("dtype", ["f4", "f8", "i8", "i4", "f2"])
def test_a_foreign_byte_order_is_refused(maker, dtype):
    with pytest.raises(ValueError) as info:
        MAKERS[maker](np.arange(3, dtype=FOREIGN + dtype))
    assert str(info.value).splitlines()[0] == BYTE_ORDER


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("array", [A[::-1].copy(), A[:, ::2], np.asfortranarray(A), A.T, np.array(3.0),
                                   np.zeros((0, 3), np.float32), np.arange(3, dtype="=i8"),
                                   np.broadcast_to(np.arange(3.0), (2, 3))],
                         ids=["copy", "step", "fortran", "transposed", "0-d", "empty", "native", "broadcast"])
def test_other_arrays_convert(maker, array):
    t = MAKERS[maker](array)
    assert tuple(t.shape) == array.shape
    np.testing.assert_array_equal(t.numpy(), array)


def test_glassgrads_own_calls_convert_reversed_arrays():
    batch = gg.utils.data.default_collate([np.arange(3.0)[::-1], np.arange(3.0)[::-1]])
    assert batch.tolist() == [[2.0, 1.0, 0.0], [2.0, 1.0, 0.0]]


REFUSED_TYPES = [(np.array([1, "a"], dtype=object), "object_"), (np.array([], dtype=object), "object_"),
                 (np.array(["1.5"]), "str_"), (np.array([b"a"]), "bytes_"), (np.ones(2, np.longdouble), "longdouble"),
                 (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64"),
                 (np.array([1], dtype="timedelta64[s]"), "timedelta64"), (np.zeros(1, dtype=[("a", "f4")]), "void")]


@pytest.mark.parametrize("maker", sorted(MAKERS) + ["tensor-float32"])
@pytest.mark.parametrize("array,name", REFUSED_TYPES, ids=[n for _, n in REFUSED_TYPES])
def test_a_type_pytorch_holds_no_dtype_for_is_refused(maker, array, name):
    make = (lambda a: gg.tensor(a, dtype=gg.float32)) if maker == "tensor-float32" else MAKERS[maker]
    with pytest.raises(TypeError) as info:
        make(array)
    first, *rest = str(info.value).splitlines()
    assert first == (f"can't convert np.ndarray of type numpy.{name}. The only supported types are: float64, float32, "
                     "float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
    assert any("fix:" in line for line in rest)


@pytest.mark.parametrize("value,name", [([1, 2], "list"), (np.float32(1), "numpy.float32"), (3, "int")])
def test_from_numpy_of_something_else(value, name):
    with pytest.raises(TypeError) as info:
        gg.from_numpy(value)
    assert str(info.value).splitlines()[0] == f"expected np.ndarray (got {name})"


def test_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib, make, array):
        try:
            return getattr(lib, make)(array).tolist()
        except (ValueError, TypeError) as e:
            return e
    for make in MAKERS:
        for array in (A[::-1], np.arange(3, dtype=FOREIGN + "f4"), A[:, ::2]) + tuple(a for a, _ in REFUSED_TYPES):
            mine, theirs = outcome(gg, make, array), outcome(torch, make, array)
            if isinstance(theirs, Exception):
                assert isinstance(mine, type(theirs)) and str(mine).splitlines()[0] == str(theirs).splitlines()[0]
            else:
                assert mine == theirs
