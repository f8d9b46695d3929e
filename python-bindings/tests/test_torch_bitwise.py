"""bitwise_and, bitwise_or, bitwise_xor, bitwise_not and the &, |, ^, ~ operators of integer
tensors against torch (the tensors tutorial prints torch.bitwise_xor(tensor([1, 5, 11]),
tensor([2, 7, 10]))): every integer dtype, negative values, broadcasting, Python numbers, bool
tensors unchanged, floats refused. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

OPS = {
    "and": lambda fw, a, b: fw.bitwise_and(a, b),
    "or": lambda fw, a, b: fw.bitwise_or(a, b),
    "xor": lambda fw, a, b: fw.bitwise_xor(a, b),
    "&": lambda fw, a, b: a & b,
    "|": lambda fw, a, b: a | b,
    "^": lambda fw, a, b: a ^ b,
    "xor number": lambda fw, a, b: fw.bitwise_xor(a, 6),
    "number and": lambda fw, a, b: 12 & a,
    "not": lambda fw, a, b: fw.bitwise_not(a),
    "~": lambda fw, a, b: ~a,
}


def _operands(dtype):
    rng = np.random.default_rng(0)
    lo = 0 if dtype in ("uint8", "bool") else -100
    hi = 2 if dtype == "bool" else 120
    a = rng.integers(lo, hi, (3, 4)).astype(dtype)
    b = rng.integers(lo, hi, (4,)).astype(dtype)  # broadcast along the rows
    return a, b


# a bool tensor with a Python int promotes to int64 in both: the int64 cases cover it
CASES = [(op, dt) for dt in ("int64", "int32", "int16", "int8", "uint8", "bool") for op in OPS
         if not (dt == "bool" and op in ("xor number", "number and"))]


@pytest.mark.parametrize("op,dtype", CASES)
def test_bitwise_matches_torch(op, dtype):
    a, b = _operands(dtype)
    ours = OPS[op](gg, gg.tensor(a), gg.tensor(b))
    theirs = OPS[op](torch, torch.tensor(a), torch.tensor(b))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_the_tutorial_line_and_mixed_integer_dtypes():
    assert gg.bitwise_xor(gg.tensor([1, 5, 11]), gg.tensor([2, 7, 10])).tolist() == [3, 2, 1]
    a, b = np.array([300, -7], np.int64), np.array([5, 9], np.int16)
    ours = gg.bitwise_or(gg.tensor(a), gg.tensor(b))
    theirs = torch.bitwise_or(torch.tensor(a), torch.tensor(b))
    assert ours.dtype == "int64" and ours.tolist() == theirs.tolist()


def test_floats_are_refused_as_torch_refuses_them():
    with pytest.raises(gg.DTypeError, match="not implemented for 'Float'"):
        gg.bitwise_and(gg.ones(2), gg.ones(2))
    with pytest.raises(gg.DTypeError, match=r"~ \(operator\.invert\) is only implemented on integer and Boolean"):
        ~gg.ones(2)  # the operator's TypeError, as torch's ~
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        torch.bitwise_and(torch.ones(2), torch.ones(2))
