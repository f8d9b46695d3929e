"""torch.tensor's reading of nested Python data, for the data NumPy does not read as a rectangular
array of numbers (rows of different lengths, strings, None, a generator, a Python int beyond
int64): PyTorch's error for it, the one its reader meets first, or the float values of ints
beyond int64 beside floats ([1.5, 2**70] is a float32 tensor). Only glassgrad.tensor's failure
paths come here; data NumPy reads is never walked (docs/porting.md, "Creating tensors from data").

PyTorch reads data in three passes, and so does this module: the shape, from the chain of first
items (a str is a sequence of strs, so ["a"] never ends: "too many dimensions 'str'"); the dtype,
from every item unless a dtype is given (a str or bytes item is a TypeError, anything else that
is neither a number nor a sequence a RuntimeError); then every item against that shape (a row of
another length is a ValueError naming its length and dim, a number where a row belongs and a row
where a number belongs are TypeErrors), each number unpacked for the dtype (an int outside int64
for an integer dtype: "Overflow when unpacking long long"). A glassgrad tensor in the data is one
number, as the tensor reader of _tensor._leaf_tensors_as_numbers takes it."""
from __future__ import annotations

from collections.abc import Sequence
from typing import List, Optional

import numpy as np

from . import _C, _args

_MAX_DIMS = 64  # PyTorch's limit on a tensor's dims, which ends the walk down a chain of strs
_LONG = (-(1 << 63), 1 << 63)
_FLOAT_KIND = {"float16": "f", "bfloat16": "f", "float32": "f", "float64": "f", "bool": "b"}
_ORDER = "bifc"  # bool < integer < floating < complex, as the dtypes of an inferred list promote


def numbers_of(data, want: Optional[str], arr: np.ndarray) -> np.ndarray:
    """arr, NumPy's reading of data (of dtype object, str or bytes): PyTorch's error when its
    reader refuses data; else arr as float64 when its numbers are floating (the ints beyond int64
    NumPy keeps as objects beside floats), else arr for the caller's own checks."""
    kind = refuse(data, want)
    if kind == "f" and arr.dtype.kind == "O":
        return arr.astype(np.float64)
    return arr


def ragged(data, want: Optional[str]) -> Optional[np.ndarray]:
    """For data whose rows NumPy could not read together: PyTorch's error for them, or its empty
    array when a size read from the first items is 0 (PyTorch's [[], [1]] is a [2, 0] tensor:
    it stores no element, so it checks none); None when PyTorch's reader finds nothing wrong."""
    kind = refuse(data, want)
    sizes = _sizes(data)
    if all(sizes):
        return None
    return np.zeros(sizes, dtype={"b": np.bool_, "i": np.int64}.get(kind or "f", np.float64))


def refuse(data, want: Optional[str]) -> Optional[str]:
    """Raises the error PyTorch's reader gives for data, if any (want: the dtype asked for, None
    to infer it as PyTorch does); returns the kind of number the data's items become ('b', 'i',
    'f' or 'c'; None for empty data)."""
    if isinstance(data, (str, bytes)):
        raise _args.InvalidArgumentTypeError(
            f"new(): invalid data type '{type_name(data)}'\n  glassgrad.tensor: the data is the {type_name(data)} "
            f"{_shown(data)}; a tensor holds numbers\n  fix: convert it first, e.g. float(s), or "
            f"list(s.encode()) for a string's bytes")
    sizes = _sizes(data)
    kind = _infer(data, []) if want is None else _FLOAT_KIND.get(want, "i")
    if all(sizes):  # data without elements stores none (PyTorch's [[], [1]] is a [2, 0] tensor)
        _store(data, sizes, [], kind or "f")
    return kind


def type_name(x) -> str:
    """The name PyTorch's messages give x's type (CPython's tp_name): 'list', 'numpy.float32'."""
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _shown(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(path: List[int]) -> str:
    return "the data itself" if not path else "the item at " + "".join(f"[{i}]" for i in path)


def _is_tensor(x) -> bool:
    return hasattr(type(x), "_h") and hasattr(type(x), "ndim")  # a glassgrad.Tensor (_tensor imports this module)


def _is_sequence(x) -> bool:
    """Whether PyTorch's reader takes x as a sequence of items (a list, tuple, range, str, bytes,
    bytearray, NumPy array); a tensor is one number, as in _tensor's reading."""
    return (isinstance(x, Sequence) or isinstance(x, np.ndarray)) and not _is_tensor(x)


def _sizes(data) -> List[int]:
    """The shape PyTorch reads from data's chain of first items (stopping at an empty one)."""
    sizes: List[int] = []
    seq = data
    while _is_sequence(seq):
        if isinstance(seq, np.ndarray) and seq.ndim == 0:
            raise _args.InvalidArgumentTypeError(
                f"len() of unsized object\n  glassgrad.tensor: a 0-d NumPy array inside a list ({_shown(seq)}) has "
                f"no length, as PyTorch reads it\n  fix: its number instead, arr.item(), or np.stack(arrays) first")
        sizes.append(len(seq))
        if len(sizes) > _MAX_DIMS:
            raise _C.InvalidArgumentError(
                f"too many dimensions '{type_name(seq)}'\n  glassgrad.tensor: the data's first items nest more than "
                f"{_MAX_DIMS} deep{' (a str is a sequence of strs, so strings never end)' if isinstance(seq, str) else ''}"
                f"; a tensor holds numbers\n  fix: convert strings to numbers first (float(s), or a label's index "
                f"in a vocabulary)")
        if not sizes[-1]:
            break
        seq = seq[0]
    return sizes


def _infer(x, path: List[int]) -> Optional[str]:
    """The kind of number x's items promote to, raising PyTorch's error for an item that is
    neither a number nor a sequence (None: no item)."""
    if isinstance(x, (str, bytes)):
        raise _args.InvalidArgumentTypeError(
            f"new(): invalid data type '{type_name(x)}'\n  glassgrad.tensor: {_where(path)} is the "
            f"{type_name(x)} {_shown(x)}; a tensor holds numbers\n  fix: convert such items to numbers first "
            f"(float(s), or a label's index in a vocabulary)")
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, (int, float, complex, np.number)) or _is_tensor(x):
        kind = getattr(x, "dtype", None)
        if kind is not None and not isinstance(kind, np.dtype):  # a tensor: its dtype's kind
            return "b" if str(kind).endswith("bool") else "f" if x.is_floating_point() else "i"
        return np.dtype(kind).kind.replace("u", "i") if kind is not None else _python_kind(x)
    if isinstance(x, np.ndarray):
        return {"u": "i"}.get(x.dtype.kind, x.dtype.kind)
    if not _is_sequence(x):
        raise _C.InvalidArgumentError(
            f"Could not infer dtype of {type_name(x)}\n  glassgrad.tensor: {_where(path)} is {_shown(x)}, neither "
            f"a number nor a sequence of numbers\n  fix: " + (
                "glassgrad.tensor(list(values)) for a generator or another iterable"
                if hasattr(x, "__iter__") and not isinstance(x, dict) else
                "replace it by a number first (float('nan') for a missing value)"))
    found: Optional[str] = None if len(x) else "f"  # an empty sequence is of the default float type
    for i, item in enumerate(x):
        kind = _infer(item, path + [i])
        if kind is not None:
            found = kind if found is None else max(found, kind, key=_ORDER.index)
    return found


def _python_kind(x) -> str:
    return "c" if isinstance(x, complex) else "f" if isinstance(x, float) else "i"


def _store(x, sizes: List[int], path: List[int], kind: str) -> None:
    """Checks each item of x against sizes (from depth len(path)) and each number for kind, in
    PyTorch's order."""
    dim = len(path)
    if dim == len(sizes):
        _number(x, path, kind, sizes)
        return
    if _is_tensor(x) or not hasattr(x, "__iter__"):
        raise _args.InvalidArgumentTypeError(
            f"not a sequence\n  glassgrad.tensor: {_where(path)} is {_shown(x)}, where the shape {sizes} read from "
            f"the first items wants a sequence of {sizes[dim]}\n  fix: give every row the same nesting and length")
    items = list(x)
    if len(items) != sizes[dim]:
        raise _C.InvalidArgumentError(
            f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(items)})\n  glassgrad.tensor: "
            f"{_where(path)} has {len(items)} items where the shape {sizes} read from the first items wants "
            f"{sizes[dim]} (a tensor's rows are all one length)\n  fix: pad the rows to one length, or keep them "
            f"as a list of tensors (glassgrad.nn.utils.rnn.pad_sequence pads them)")
    for i, item in enumerate(items):
        _store(item, sizes, path + [i], kind)


def _fits_float(x: int) -> bool:
    try:
        float(x)
    except OverflowError:
        return False
    return True


def _number(x, path: List[int], kind: str, sizes: List[int]) -> None:
    """Raises PyTorch's error when x does not unpack as a number of kind ('f' as a float, 'i' and
    'b' as an int, a float taken for either)."""
    if _is_tensor(x) or kind == "c":
        return
    if kind == "f":
        if isinstance(x, int) and not isinstance(x, bool) and not _fits_float(x):
            raise OverflowError(f"int too large to convert to float\n  glassgrad.tensor: {_where(path)} is an int "
                                f"of {x.bit_length()} bits, beyond float64's range\n  fix: a smaller value, or "
                                f"float('inf')")
        if hasattr(x, "__float__") or hasattr(x, "__index__"):
            return
        raise _args.InvalidArgumentTypeError(
            f"must be real number, not {type_name(x)}\n  glassgrad.tensor: {_where(path)} is {_shown(x)}, where the "
            f"shape {sizes} read from the first items wants a number\n  fix: give every row the same nesting")
    if isinstance(x, float) or (kind == "b" and isinstance(x, (complex, np.number))):
        return
    if not hasattr(x, "__index__"):
        raise _args.InvalidArgumentTypeError(
            f"'{type_name(x)}' object cannot be interpreted as an integer\n  glassgrad.tensor: {_where(path)} is "
            f"{_shown(x)}, where the shape {sizes} read from the first items wants an integer\n  fix: give every "
            f"row the same nesting, and integers for an integer dtype (float items: dtype=glassgrad.float32)")
    if kind == "i" and not _LONG[0] <= int(x.__index__()) < _LONG[1]:
        raise _C.InvalidArgumentError(
            f"Overflow when unpacking long long\n  glassgrad.tensor: {_where(path)} is the Python int {x}, which "
            f"does not fit int64, the type PyTorch reads an integer's item through\n  fix: a float for a value "
            f"this large (float({x})), or dtype=glassgrad.float64")
