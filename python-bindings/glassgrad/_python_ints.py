"""The range of Python ints a tensor op takes as a number (docs/porting.md, "Python numbers beside
tensors"): PyTorch converts such an int to a 64-bit scalar, accepting [-2**63, 2**64) (from 2**63
it wraps, as uint64 read as int64) and raising OverflowError outside it, whatever the tensor's
dtype (a float tensor too: x + 2**70 is refused, x + float(2**70) is not)."""
import numpy as np

_LOW = -(1 << 63)
_HIGH = 1 << 64


def check_int(value, where: str = "") -> None:
    """Raises PyTorch's OverflowError for a Python int outside [-2**63, 2**64); anything else
    (a float, a bool, a NumPy scalar, a tensor) passes. A plain range test: it runs for every
    number that meets a tensor."""
    if type(value) is int and not _LOW <= value < _HIGH:
        _refuse(value, where)


def check_ints(values, where: str = "") -> None:
    """check_int for each of values."""
    for v in values:
        if type(v) is int and not _LOW <= v < _HIGH:
            _refuse(v, where)


def wrapped(value: int) -> int:
    """An int of [2**63, 2**64) as the int64 PyTorch reads it (value - 2**64); others unchanged."""
    return value - _HIGH if value >= -_LOW else value


# The runtime reads an op's number attribute as a double, exact for ints of [-2**53, 2**53]
_EXACT_IN_DOUBLE = 1 << 53


def attribute_exact(value, dtype) -> bool:
    """Whether a number can be the attribute (a double) of a scalar op computing in dtype and
    give PyTorch's exact result: any number for a floating or bool dtype, an int of [-2**53, 2**53]
    for an integer one. A larger int meets an integer tensor as a 0-d tensor of its dtype instead,
    so that int64's 2**62 - (2**61 + 3) is exact (docs/porting.md, "Python numbers beside
    tensors")."""
    if dtype.is_floating_point or not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        return True
    return bool(-_EXACT_IN_DOUBLE <= value <= _EXACT_IN_DOUBLE)


def int64_wrapped(value: int) -> int:
    """value modulo 2**64 as an int64 (a product of two int64 numbers, as PyTorch's
    x.add(n, alpha=k) multiplies them in int64: 2**62 * 2 is -2**63)."""
    return (value + (1 << 63)) % _HIGH - (1 << 63)


def _refuse(value: int, where: str):
    sentence = "int too big to convert" if value > 0 else "can't convert negative int to unsigned"
    used = f" in {where}" if where else ""
    raise OverflowError(f"{sentence}\n  cause: the Python int {value} used with a tensor{used} is outside "
                        f"[-2**63, 2**64), the range of a tensor op's number\n  fix: pass it as a float, "
                        f"float(value), or keep it within the range")
