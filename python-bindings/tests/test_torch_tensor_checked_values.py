"""torch.tensor(data, dtype=<integer type>) converts Python numbers as PyTorch's checked conversion
does: a value the type cannot hold raises RuntimeError ("value cannot be converted to type uint8
without overflow"), a negative integer wraps into an unsigned type, a float truncates; NumPy
arrays convert unchecked (they wrap), as in PyTorch. Compared with torch; skipped without it."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

CASES = [([300], "uint8"), ([-1], "uint8"), ([200], "int8"), (300, "uint8"), ([1.5, 2.7], "int64"), ([300.0], "uint8"),
         ([2 ** 40], "int32"), ([[1, 300]], "uint8"), ([True, 2], "bool"), ([-129], "int8"), ([255], "uint8"),
         ([-1.5], "uint8"), ([float("nan")], "int64"), ([2 ** 70], "int64"), ([1, 2], "int16"), ([], "uint8"),
         ([-32768, 32767], "int16"), ([3.99, -3.99], "int32")]


def _outcome(lib, data, dtype):
    try:
        return lib.tensor(data, dtype=getattr(lib, dtype)).tolist()
    except (RuntimeError, ValueError) as e:  # beyond int64 both say "Overflow when unpacking long long"
        first = str(e).splitlines()[0]
        return "refused: " + ("Overflow when unpacking long long" if first.startswith("Overflow") else
                              "without overflow" if "without overflow" in first else first)


@pytest.mark.parametrize("data,dtype", CASES, ids=[f"{d}-{t}" for d, t in CASES])
def test_python_numbers_convert_checked_as_torch(data, dtype):
    assert _outcome(gg, data, dtype) == _outcome(torch, data, dtype)


def test_numpy_arrays_wrap_as_torch():
    a = np.array([300, -1])
    assert gg.tensor(a, dtype=gg.uint8).tolist() == torch.tensor(a, dtype=torch.uint8).tolist() == [44, 255]
