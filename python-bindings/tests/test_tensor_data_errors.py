"""glassgrad.tensor on data PyTorch's reader refuses: rows of different lengths, strings, bytes,
None, generators, sets, dicts, Python ints beyond int64 give PyTorch's exception types and first
lines (its reader's order: the shape from the first items, then the dtype, then each item), and
ints beyond int64 beside floats are floats, as in PyTorch. The expected sentences are PyTorch
2.14's; the last tests compare with torch when it is installed."""
import numpy as np
import pytest

import glassgrad as gg

pytestmark = pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")

# (data, dtype name or None, PyTorch's exception type, its message)
REFUSED = [
    ([[1, 2], [3, 4, 5]], None, ValueError, "expected sequence of length 2 at dim 1 (got 3)"),
    ([[1, 2, 3], [4, 5]], None, ValueError, "expected sequence of length 3 at dim 1 (got 2)"),
    ([[[1, 2], [3, 4]], [[1, 2], [3]]], None, ValueError, "expected sequence of length 2 at dim 2 (got 1)"),
    (((1, 2), (3,)), None, ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1], []], None, ValueError, "expected sequence of length 1 at dim 1 (got 0)"),
    ([[1, 2], [3]], "float32", ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ([np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])], None, ValueError,
     "expected sequence of length 2 at dim 1 (got 3)"),
    ([[1, 2], 3], None, TypeError, "not a sequence"),
    ([1, [2, 3]], None, TypeError, "'list' object cannot be interpreted as an integer"),
    ([[1, 2], [3, [4]]], None, TypeError, "'list' object cannot be interpreted as an integer"),
    ([1, [2]], "float32", TypeError, "must be real number, not list"),
    ([1, [2]], "bool", TypeError, "'list' object cannot be interpreted as an integer"),
    ([None], "float32", TypeError, "must be real number, not NoneType"),
    ([None], "int64", TypeError, "'NoneType' object cannot be interpreted as an integer"),
    (["a"], None, ValueError, "too many dimensions 'str'"),
    (["a"], "float32", ValueError, "too many dimensions 'str'"),
    ("a", None, TypeError, "new(): invalid data type 'str'"),
    (b"ab", None, TypeError, "new(): invalid data type 'bytes'"),
    ([b"ab"], None, TypeError, "new(): invalid data type 'bytes'"),
    ([1, "a"], None, TypeError, "new(): invalid data type 'str'"),
    ([[1, 2], "ab"], None, TypeError, "new(): invalid data type 'str'"),
    (None, None, RuntimeError, "Could not infer dtype of NoneType"),
    ([True, None], None, RuntimeError, "Could not infer dtype of NoneType"),
    ({1: 2}, None, RuntimeError, "Could not infer dtype of dict"),
    ({1, 2}, None, RuntimeError, "Could not infer dtype of set"),
    ([[1, 2], {3, 4}], None, RuntimeError, "Could not infer dtype of set"),
    ([1, 2 ** 63], None, ValueError, "Overflow when unpacking long long"),
    ([2 ** 70, True], None, ValueError, "Overflow when unpacking long long"),
    ([2 ** 1100], None, ValueError, "Overflow when unpacking long long"),
    ([1, 2 ** 63], "uint8", ValueError, "Overflow when unpacking long long"),
    ([2 ** 63], "int64", ValueError, "Overflow when unpacking long long"),
    ([1.5, 2 ** 1100], None, OverflowError, "int too large to convert to float"),
    ([2 ** 1100], "float32", OverflowError, "int too large to convert to float"),
]


def _ids(cases):
    return [f"{type(c[0]).__name__}{i}-{c[1]}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("data,dtype,kind,sentence", REFUSED, ids=_ids(REFUSED))
def test_refused_data_gives_pytorchs_error(data, dtype, kind, sentence):
    with pytest.raises(kind) as info:
        gg.tensor(data, dtype=None if dtype is None else getattr(gg, dtype))
    first, *rest = str(info.value).splitlines()
    assert first == sentence
    assert any("glassgrad.tensor" in line for line in rest) and any("fix:" in line for line in rest)


def test_generator_is_refused_with_the_fix():
    with pytest.raises(RuntimeError) as info:
        gg.tensor(x for x in range(3))
    assert str(info.value).splitlines()[0] == "Could not infer dtype of generator"
    assert "list(values)" in str(info.value)


def test_as_tensor_reads_the_same():
    with pytest.raises(ValueError, match=r"^expected sequence of length 2 at dim 1 \(got 1\)"):
        gg.as_tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="^too many dimensions 'str'"):
        gg.as_tensor(["a"])


def test_the_offending_item_is_named():
    with pytest.raises(ValueError) as info:
        gg.tensor([[1, 2], [3, 4], [5, 6, 7]])
    assert "the item at [2] has 3 items" in str(info.value)


@pytest.mark.parametrize("data,expected", [([1.5, 2 ** 70], [1.5, 2.0 ** 70]), ([2 ** 70, 1.0], [2.0 ** 70, 1.0]),
                                           ([[1.0], [2 ** 64]], [[1.0], [2.0 ** 64]])])
def test_ints_beyond_int64_beside_floats_are_floats(data, expected):
    t = gg.tensor(data)
    assert t.dtype == gg.float32
    np.testing.assert_array_equal(t.numpy(), np.array(expected, dtype=np.float32))


def test_readable_data_is_unchanged():
    assert gg.tensor([[1, 2], (3, 4)]).tolist() == [[1, 2], [3, 4]]
    assert gg.tensor([range(2), (3, 4)]).tolist() == [[0, 1], [3, 4]]
    assert gg.tensor([[1, 2], bytearray(b"ab")]).tolist() == [[1, 2], [97, 98]]
    assert gg.tensor([[], []]).shape == (2, 0)
    empty = gg.tensor([[], [1]])  # PyTorch stores no element, so it checks none
    assert empty.shape == (2, 0) and empty.dtype == gg.float32
    assert gg.tensor([2 ** 63 - 1, -2 ** 63]).tolist() == [2 ** 63 - 1, -2 ** 63]


torch_cases = REFUSED + [([[], [1]], None, None, None), ([1.5, 2 ** 70], None, None, None)]


@pytest.mark.parametrize("data,dtype,kind,sentence", torch_cases, ids=_ids(torch_cases))
def test_as_torch(data, dtype, kind, sentence):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            t = lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))
        except Exception as e:  # the first exception type PyTorch's is, and the first line
            kinds = [k for k in (OverflowError, TypeError, ValueError, RuntimeError) if isinstance(e, k)]
            return "raised", kinds[:1] if lib is torch else kinds, str(e).splitlines()[0]
        return str(t.dtype).split(".")[-1], tuple(t.shape), t.tolist()
    mine, theirs = outcome(gg), outcome(torch)
    if theirs[0] == "raised":
        assert mine[0] == "raised" and theirs[1][0] in mine[1] and mine[2] == theirs[2]
    else:
        assert mine == theirs
