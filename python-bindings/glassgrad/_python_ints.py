"""The range of Python ints a tensor op takes as a number (docs/porting.md, "Python numbers beside
tensors"): PyTorch converts such an int to a 64-bit scalar, accepting [-2**63, 2**64) (from 2**63
it wraps, as uint64 read as int64) and raising OverflowError outside it, whatever the tensor's
dtype (a float tensor too: x + 2**70 is refused, x + float(2**70) is not)."""

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


def _refuse(value: int, where: str):
    sentence = "int too big to convert" if value > 0 else "can't convert negative int to unsigned"
    used = f" in {where}" if where else ""
    raise OverflowError(f"{sentence}\n  cause: the Python int {value} used with a tensor{used} is outside "
                        f"[-2**63, 2**64), the range of a tensor op's number\n  fix: pass it as a float, "
                        f"float(value), or keep it within the range")
