"""Element types and PyTorch's type promotion.

A dtype is a `str` subclass ("float32" == glassgrad.float32), so the names the C++ runtime takes
pass through unchanged (the runtime, NumPy, dict keys and comparisons read the str value), and it
has torch.dtype's attributes (is_floating_point, is_signed, itemsize). It prints as torch.dtype
prints, with glassgrad's module name: str, repr and f-strings give "glassgrad.float32" (PyTorch's
"torch.float32"). Library code that needs the bare name passes the dtype itself or plain(dt);
str(dt) is the printed name.

Promotion follows PyTorch's documented rules (torch.result_type, "Type promotion" in PyTorch's
tensor attributes page):

- categories: bool < integral < floating;
- promote_types(a, b): the smallest type of the higher category that holds both (uint8 with int8
  gives int16; float16 with bfloat16 float32; any integral with any floating the floating one);
- result_type of the operands of one call: tensors with at least one dimension decide first;
  zero-dimensional tensors only when their category is higher, and Python numbers only when
  theirs is higher still (a Python float as the default float type, float32; a Python int as
  int64, a Python bool as bool): int64_tensor * 2.5 is float32, float16_tensor * 2.5 float16,
  int8_tensor + 300 int8;
- true division and the floating functions (sin, exp, sqrt, ...) of integral or bool operands
  give the default float type (float32).
"""
from __future__ import annotations

import numbers
from typing import Dict, List, Optional

import numpy as np

from . import _C
from ._args import InvalidArgumentTypeError


class dtype(str):  # torch.dtype's spelling
    """An element type: glassgrad.float32, glassgrad.int64, ... (PyTorch's torch.dtype)."""

    __slots__ = ()
    __module__ = "glassgrad"  # type() shows its public name, as torch.Size / torch.dtype do

    @property
    def is_floating_point(self) -> bool:
        return _CATEGORY[self] == 2  # a str subclass: it finds its own name's entry

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return self not in ("bool", "uint8")

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]

    def to_real(self) -> "dtype":
        return self

    def __repr__(self) -> str:
        return "glassgrad." + str.__str__(self)

    __str__ = __repr__  # torch.dtype's str is its repr

    def __format__(self, spec: str) -> str:
        return format(self.__repr__(), spec)

    def __reduce__(self):
        return (_by_name, (str.__str__(self),))


def plain(dt) -> str:
    """The bare name of a dtype ("float32"), a plain str: what the runtime and NumPy take.
    Anything else as str() gives it."""
    return str.__str__(dt) if isinstance(dt, str) else str(dt)


# Every type PyTorch scripts name, in promotion order within each category.
_ORDER = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
_CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
             "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2}
_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
DTYPES: Dict[str, dtype] = {n: dtype(n) for n in _ORDER}
# The floating types' names (dtype.is_floating_point), for a test on a handle's dtype string.
FLOATING: frozenset = frozenset(n for n in _ORDER if _CATEGORY[n] == 2)

# The types the runtime holds (the C++ DType enum): all of them. int8, int16, int32, float16 and
# bfloat16 are storage types: ops compute them in int64 or float32 and give the result back in the
# dtype PyTorch's promotion says (docs/dtypes.md).
RUNTIME = frozenset(_ORDER)

# PyTorch's other spellings (torch.float is float32, torch.long int64, ...), and NumPy's.
ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
           "short": "int16", "uint8": "uint8", "bool_": "bool", "bool8": "bool", "float_": "float64"}
# Tensor.type() strings: 'torch.FloatTensor' is glassgrad.FloatTensor here.
TENSOR_TYPE_NAMES = {"bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
                     "int32": "IntTensor", "int64": "LongTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
                     "float32": "FloatTensor", "float64": "DoubleTensor"}

# The default floating type (torch.get_default_dtype): what Python floats, factories without a
# dtype and layers' parameters get. Read as _dtypes.DEFAULT_FLOAT at each use: set_default_dtype
# rebinds it.
DEFAULT_FLOAT = DTYPES["float32"]


def get_default_dtype() -> "dtype":
    """The default floating type (torch.get_default_dtype): float32 unless set_default_dtype changed it."""
    return DEFAULT_FLOAT


def set_default_dtype(d) -> None:
    """torch.set_default_dtype: the floating type of Python floats, of factories without a dtype
    (zeros, randn, arange with float bounds, ...) and of layers' parameters from now on. A
    floating type only (float32, float64, float16, bfloat16)."""
    global DEFAULT_FLOAT
    dt = to_dtype(d, "set_default_dtype")
    if not dt.is_floating_point:
        raise InvalidArgumentTypeError(f"only floating-point types are supported as the default type, got {dt}\n"
                                       "  fix: glassgrad.set_default_dtype(glassgrad.float64)")
    DEFAULT_FLOAT = dt


def _by_name(name: str) -> dtype:
    return DTYPES[name]


def _parse(value):
    """The canonical name of a dtype given as a glassgrad/torch-style name, a NumPy dtype or type,
    a Python type (float, int, bool), or a torch.dtype; None when it names none."""
    if isinstance(value, dtype):
        return str.__str__(value)
    if value is float:
        return "float64"  # Python floats are doubles: torch.tensor(..., dtype=float) is float64
    if value is int:
        return "int64"
    if value is bool:
        return "bool"
    if isinstance(value, str):
        if value in DTYPES:  # a runtime name ("float32"): what the lookups below give it
            return value
        name = value.split(".")[-1] if value.startswith(("torch.", "glassgrad.")) else value
        for tensor_type, stored in ((v, k) for k, v in TENSOR_TYPE_NAMES.items()):
            if name == tensor_type:
                return stored
        name = ALIASES.get(name, name)
        return name if name in DTYPES else None
    if type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        return _parse(str(value))
    try:
        name = np.dtype(value).name
    except TypeError:
        return None
    return name if name in DTYPES else None


def to_dtype(value, where: str = "") -> dtype:
    """A dtype from any of the spellings _parse takes; DTypeError naming what glassgrad holds."""
    name = _parse(value)
    if name is None or name not in RUNTIME:
        what = f"'{value}'" if name is None else f"{name} (glassgrad does not store it yet)"
        held = ", ".join(n for n in _ORDER if n in RUNTIME)
        raise _C.DTypeError(f"{where + ': ' if where else ''}unsupported dtype {what}\n  glassgrad holds {held}\n"
                            f"  fix: dtype=glassgrad.float32 (data) or dtype=glassgrad.int64 (labels)")
    return DTYPES[name]


def category(dt) -> int:
    """0 bool, 1 integral, 2 floating."""
    return _CATEGORY[dt if isinstance(dt, str) else _parse(dt)]


def promote_types(type1, type2) -> dtype:
    """The smallest dtype of the higher category that holds both (torch.promote_types)."""
    a, b = plain(_checked(type1, "promote_types")), plain(_checked(type2, "promote_types"))
    if a == b:
        return DTYPES[a]
    ca, cb = _CATEGORY[a], _CATEGORY[b]
    if ca != cb:
        return DTYPES[a if ca > cb else b]
    if ca == 2:
        if {a, b} == {"float16", "bfloat16"}:
            return DTYPES["float32"]
        return DTYPES[max(a, b, key=_ITEMSIZE.get)]
    if ca == 1:
        if "uint8" in (a, b):  # uint8 with a signed type needs the next signed size up
            other = b if a == "uint8" else a
            return DTYPES["int16" if other == "int8" else other]
        return DTYPES[max(a, b, key=_ITEMSIZE.get)]
    return DTYPES[a]


def can_cast(from_, to) -> bool:
    """Whether a cast keeps the category or goes up (torch.can_cast): float -> int and int ->
    bool are refused, anything -> its own or a higher category allowed."""
    return _CATEGORY[_checked(from_, "can_cast")] <= _CATEGORY[_checked(to, "can_cast")]


def _checked(value, where: str) -> dtype:
    from ._args import InvalidArgumentTypeError  # that module's class: a TypeError, as PyTorch's parser raises
    try:
        name = None if hasattr(value, "_h") else _parse(value)  # a tensor is no dtype (x.dtype is)
    except (TypeError, ValueError):
        name = None
    if name is None:
        raise InvalidArgumentTypeError(f"{where}(): expected a dtype such as glassgrad.float32, got "
                                       f"{type(value).__name__} {value!r}\n  fix: pass x.dtype for a tensor x")
    return DTYPES[name]


def scalar_dtype(value) -> dtype:
    """The dtype a Python number takes part in promotion as. A NumPy scalar counts as the Python
    number of its kind (np.float64 as a float, np.int32 as an int), and np.bool_ as a float:
    PyTorch 2.14 reads it through float() (int64_tensor + np.bool_(True) is float32, as is
    torch.full((2,), np.bool_(True)))."""
    if isinstance(value, bool):
        return DTYPES["bool"]
    if isinstance(value, np.bool_):
        return DEFAULT_FLOAT
    if isinstance(value, (numbers.Integral, np.integer)):
        return DTYPES["int64"]
    if isinstance(value, (numbers.Real, np.floating)):
        return DEFAULT_FLOAT
    raise InvalidArgumentTypeError(f"expected a tensor or a number, got {type(value).__name__}")


def data_dtype(data) -> Optional[dtype]:
    """The dtype torch.tensor infers from a list or tuple: its elements' types promoted together
    (promote_types), where a Python float is the default float type, an int int64, a bool bool,
    and a NumPy scalar, a NumPy array or a tensor its own dtype ([np.float64(1.5), 2] is
    float64, [np.int32(1), 2] int64, [np.float16(1), 2.5] float32). None when the data holds
    no element (the caller's default float) or one glassgrad holds no dtype for (complex: the
    caller's conversion says so)."""
    found: Optional[str] = None
    for kind in set(map(type, data)):  # one pass in C; the nested sequences are walked per kind
        here: List[Optional[str]]
        if kind in (list, tuple):
            # an empty row is of the default float type ([[], [1]], PyTorch's [2, 0] float32 tensor)
            parts = [data_dtype(x) if x else DEFAULT_FLOAT for x in data if type(x) is kind]
            here = [plain(p) for p in parts if p is not None]
        elif kind is float or kind is int or kind is bool:
            here = [plain(DEFAULT_FLOAT) if kind is float else "int64" if kind is int else "bool"]
        elif issubclass(kind, np.generic):
            here = [_NUMPY_NAMES.get(np.dtype(kind).name)]
        elif issubclass(kind, np.ndarray):
            here = list({_NUMPY_NAMES.get(x.dtype.name) for x in data if type(x) is kind})
        elif hasattr(kind, "_h") and hasattr(kind, "ndim"):  # a glassgrad.Tensor
            here = list({plain(getattr(x, "dtype")) for x in data if type(x) is kind})
        else:
            return None
        for name in here:
            if name is None:
                return None
            found = name if found is None else plain(promote_types(found, name))
    return DTYPES[found] if found is not None else None


_NUMPY_NAMES = {"bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32",
                "int64": "int64", "float16": "float16", "float32": "float32", "float64": "float64"}


def _combine(higher, lower):
    """PyTorch's combine_categories: the higher-priority group's type, unless the lower group's
    category is higher (then both promote)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _CATEGORY[higher] == 2:
        return higher
    if higher == "bool" or _CATEGORY[lower] == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> dtype:
    """The dtype of an operation on these operands (tensors and Python numbers), by PyTorch's
    priority of dimensioned tensors over zero-dimensional ones over numbers
    (torch.result_type(tensor, other))."""
    groups: List[Optional[str]] = [None, None, None]  # dimensioned tensors, 0-d tensors, numbers
    for x in operands:
        if hasattr(x, "_h") and hasattr(x, "ndim"):
            g, dt = (0 if x.ndim else 1), x.dtype
        else:
            g, dt = 2, scalar_dtype(x)
        groups[g] = dt if groups[g] is None else promote_types(groups[g], dt)
    return DTYPES[_combine(groups[0], _combine(groups[1], groups[2]))]


def floating(dt) -> dtype:
    """dt if it is a floating type, else the default float type (true division, sin, exp, ...)."""
    name = dt if isinstance(dt, str) else _parse(dt)
    return DTYPES[name] if _CATEGORY[name] == 2 else DEFAULT_FLOAT


__all__ = ["dtype", "DTYPES", "plain", "promote_types", "can_cast", "result_type", "to_dtype", "floating"]
