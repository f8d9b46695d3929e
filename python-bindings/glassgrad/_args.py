"""Checking the arguments users pass to layers, functions and optimizers, in one place: a value
glassgrad does not accept raises InvalidArgumentError (a GlassgradError and a ValueError) naming
the call, the argument, what was given and what is supported, instead of a TypeError from deep
inside, or a float silently truncated to an int (Linear(3.7, 2) is refused, not Linear(3, 2)).
A value of the wrong type raises InvalidArgumentTypeError, which is also a TypeError (what
PyTorch raises there).

    k = _args.int_pair(kernel_size, "kernel_size", "Conv2D(1, 16, 0)", minimum=1)
"""
from __future__ import annotations

import collections.abc
import contextlib
import math
import numbers
import operator
from typing import Iterable, Optional, Sequence, Tuple

from . import _C


class InvalidArgumentTypeError(_C.InvalidArgumentError, TypeError):
    """An argument of the wrong type (a str for an int, a float for a count, a list for a
    tensor, something else for an optimizer), where PyTorch raises TypeError: an
    InvalidArgumentError (so a GlassgradError and a ValueError) and a TypeError, so that code
    written for either library's exception catches it."""


InvalidArgumentTypeError.__module__ = "glassgrad"


class OutOfRangeError(_C.GlassgradIndexError, RuntimeError):
    """A count or extent out of range where PyTorch raises RuntimeError (topk's k larger than the
    dim, narrow's start + length past its end): a GlassgradIndexError (an IndexError, as
    glassgrad's own docs name it) and the RuntimeError code written for PyTorch catches."""


OutOfRangeError.__module__ = "glassgrad"


class UnsupportedDTypeError(_C.DTypeError, _C.UnsupportedError):
    """A dtype an op has no kernel for where PyTorch raises NotImplementedError ('"bitwise_and_cpu"
    not implemented for 'Float'', negating or subtracting bools): a DTypeError (a TypeError, as
    glassgrad's own docs name it) and the NotImplementedError code written for PyTorch catches."""


UnsupportedDTypeError.__module__ = "glassgrad"


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "absent"


# The default of a dim that PyTorch's overloads take or leave out, never take as None (prod's,
# median's, max's: prod(x) and prod(x, 1), while prod(x, dim=None) and prod(x, keepdim=True) are its
# TypeError): it tells an explicit None from no argument.
ABSENT: _Absent = _Absent()


def whole_input_dim(dim, keepdim, where: str) -> bool:
    """Whether dim (ABSENT's parameter) asks for the reduction of every element: True when it was
    left out, False for a given dim; None, or keepdim=True without a dim, is PyTorch's TypeError."""
    if dim is ABSENT:
        if keepdim:
            raise InvalidArgumentTypeError(f"{where}() received an invalid combination of arguments: keepdim=True "
                                           f"without dim\n  fix: {where}(x, dim, keepdim=True), or {where}(x) for "
                                           f"every element")
        return True
    if dim is None:
        raise InvalidArgumentTypeError(f"{where}(): argument 'dim' must be int, not NoneType\n  fix: leave dim out "
                                       f"to reduce every element ({where}(x)), or pass an int")
    return False


def floating_input(input, kernel: str) -> None:
    """PyTorch's NotImplementedError ('"softplus_cpu" not implemented for 'Long'') for a float-only
    composite given an integer or bool tensor (its ops would compute it in floats)."""
    if not input.is_floating_point():
        from ._inplace import _type_name
        raise UnsupportedDTypeError(f'"{kernel}" not implemented for \'{_type_name(input.dtype)}\'\n'
                                    f"  fix: input.float()")


def absent_dim(where: str, shape, dim: int, fix: str) -> None:
    """PyTorch's IndexError for an op that reads dim `dim` of an input that has fewer ('Dimension
    out of range (expected to be in range of [-1, 0], but got 1)'; 'Dimension specified as 1 but
    tensor has no dimensions' for a 0-d one), as F.unfold and F.batch_norm in training raise it."""
    n = len(shape)
    cause = (f"Dimension specified as {dim} but tensor has no dimensions" if n == 0 else
             f"Dimension out of range (expected to be in range of [-{n}, {n - 1}], but got {dim})")
    raise _C.GlassgradIndexError(f"{cause}\n  {where}: input {list(shape)} has no dim {dim}\n  fix: {fix}")


def raise_unsupported_dtype(error: Exception, op: str = "", inputs=(), attrs=None) -> None:
    """A float-only op's shape rule refusing an integer or bool input ('expected a float32 or
    float64 tensor, got int64 ...') is PyTorch's NotImplementedError ('"elu_cpu" not implemented for
    'Long''): raised again as an UnsupportedDTypeError (still a DTypeError), PyTorch's sentence
    first where _kernel_names knows op's kernel, the rule's words after it.
    Any other error: returns, for the caller to re-raise it."""
    text = str(error)
    if "expected a float32 or float64 tensor, got " in text:
        from ._kernel_names import sentence
        said = sentence(op, inputs, attrs) if op else None
        raise UnsupportedDTypeError(f"{said}\n  cause: {text}" if said else text) from None  # text ends with its fix


def fail(where: str, name: str, want: str, value, fix: str = "", type_error: bool = False) -> None:
    """Raises InvalidArgumentError (InvalidArgumentTypeError with type_error=True):
    '<where>: <name> must be <want>, got <value>' and the fix."""
    got = f"{value!r}" + ("" if isinstance(value, (int, float, str, bool, type(None))) else f" ({type(value).__name__})")
    error = InvalidArgumentTypeError if type_error else _C.InvalidArgumentError
    raise error(f"{where}: {name} must be {want}, got {got}" + (f"\n  fix: {fix}" if fix else ""))


@contextlib.contextmanager
def pytorch_says(sentence: str):
    """An argument error raised inside starts with PyTorch's own sentence for that check (a script's
    `pytest.raises(ValueError, match=...)` or `except ValueError as e: if "..." in str(e)` finds it),
    followed by glassgrad's line naming the argument and its fix. The error's type is unchanged."""
    try:
        yield
    except _C.InvalidArgumentError as e:
        where, _, ours = str(e).partition(": ")
        raise type(e)(f"{where}: {sentence}\n  cause: {ours}") from None


def integer_as_pytorch(value, name: str, where: str, minimum: int, below: str, wrong_type: str = "",
                       fix: str = "") -> int:
    """integer()'s check whose error starts with PyTorch's sentence for it (pytorch_says): `below`
    for an int under minimum, `wrong_type` (where PyTorch has one) for a value that is no int."""
    with pytorch_says(wrong_type) if wrong_type else contextlib.nullcontext():
        v = integer(value, name, where, fix=fix)
    with pytorch_says(below):
        return integer(v, name, where, minimum, fix)


def weight_sizes(where: str, shape: Sequence[int], **sizes: int) -> None:
    """PyTorch's check of a layer's sizes (ints, already checked as such): 0 is allowed (an empty
    weight, as PyTorch makes it), a negative one fails where PyTorch makes the weight of `shape`,
    with its RuntimeError sentence first ('Trying to create tensor with negative dimension -1:
    [3, -1]', the weight's first negative dimension), then the arguments `sizes` that are negative
    and the fix (an InvalidArgumentError: a RuntimeError and a ValueError)."""
    dims = [int(d) for d in shape]
    negative = next((d for d in dims if d < 0), None)
    if negative is None:
        return
    bad = ", ".join(f"{k}={v}" for k, v in sizes.items() if v < 0)
    raise _C.InvalidArgumentError(
        f"{where}: Trying to create tensor with negative dimension {negative}: {dims}\n  cause: {bad}: the "
        f"layer's weight would have a negative size\n  fix: sizes are ints >= 0 ({', '.join(sizes)})")


def real_as_given(value, name: str, where: str, **bounds):
    """real()'s check, keeping a Python int or float as given: an optimizer's hyperparameters
    stay what the script passed (SGD's momentum=0 prints as 0 in PyTorch's param_groups and repr);
    other numbers (NumPy scalars, one-element tensors) become floats."""
    v = real(value, name, where, **bounds)
    return value if type(value) is int or type(value) is float else v


def sequence_as_given(values, check):
    """An optimizer's sequence hyperparameter (betas, etas, step_sizes) checked element by element:
    the caller's own list or tuple where check(v) keeps every element as given (PyTorch's groups hold
    what the script passed, a list stays a list), else one of its kind with the checked values."""
    kept = [check(v) for v in values]
    if all(k is v for k, v in zip(kept, values)):
        return values
    return list(kept) if isinstance(values, list) else tuple(kept)


def no_strided_same(where: str, padding, stride) -> None:
    """padding='same' with a stride other than 1 is refused at construction, as PyTorch's
    ValueError (the output could not keep the input's size)."""
    strides = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,)
    if padding == "same" and any(s != 1 for s in strides):
        raise _C.InvalidArgumentError(f"{where}: padding='same' is not supported for strided convolutions (stride="
                                      f"{stride})\n  fix: padding=kernel_size // 2 with that stride, or stride=1")


class AssertedArgumentError(_C.InvalidArgumentError, AssertionError):
    """A constructor argument PyTorch checks with an assert (MultiheadAttention's embed_dim,
    Hardtanh's bounds): an AssertionError there, glassgrad's argument errors are ValueErrors; this
    is both."""


class AssertedShapeError(_C.ShapeError, AssertionError):
    """A shape PyTorch checks with an assert (Embedding's _weight and from_pretrained table): an
    AssertionError there, glassgrad's shape errors are ValueErrors and RuntimeErrors; this is all
    of them."""


def _is_int(value) -> bool:
    # type() is int first: a plain int skips the numbers.Integral ABC check (bool is not int's type).
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


def _at_least(want: str, minimum: Optional[int]) -> str:
    """What an int argument must be, for the message: 'an int >= 1'."""
    return want + (f" >= {minimum}" if minimum is not None else "")


def tensor_index(value) -> Optional[int]:
    """The int a 0-d integer tensor holds, else None: PyTorch's argument parser takes one where an
    int is expected (x.topk(k), torch.eye(n), x.sum(dim) with k, n, dim 0-d integer tensors)."""
    if hasattr(value, "_h") and getattr(value, "ndim", None) == 0:
        try:
            return operator.index(value)
        except TypeError:  # a float or bool tensor: not an int
            return None
    return None


def element_index(value) -> Optional[int]:
    """The int a one-element integer tensor holds, whatever its dims (tensor(2), tensor([2]),
    tensor([[2]])), else None: PyTorch's parser reads one where a SymInt or an element of an int
    list is expected (torch.eye(n), x.topk(k), F.pad(x, [n, n]), F.interpolate(x, size=[n, n]),
    kernel sizes and paddings), a plain int (a dim, linspace's steps) only from a 0-d one
    (tensor_index)."""
    if hasattr(value, "_h") and getattr(value, "ndim", 0) > 0:
        if value.numel() != 1:
            return None
        value = value.reshape(())
    return tensor_index(value)


def dim_list(dim, where: str):
    """dim where PyTorch's parser takes an int list that may be one int (`int[1]? dim`: sum, mean,
    amax, std, logsumexp, vector_norm, ...): a one-element integer or bool tensor, alone or as an
    element of the tuple, reads as its int (x.sum(torch.tensor([0])) is x.sum(0)); any other tensor
    is PyTorch's TypeError. None, ints and tuples of ints come back as they are."""
    if hasattr(dim, "_h"):
        held = element_index(dim)
        if held is None:
            raise InvalidArgumentTypeError(
                f"{where}(): argument 'dim' must be tuple of ints, not Tensor (a {dim.dtype} tensor of shape "
                f"{list(dim.shape)})\n  fix: pass the axes as ints: dim=tuple(dims.tolist())")
        return held
    if isinstance(dim, (tuple, list)) and any(hasattr(d, "_h") for d in dim):
        return tuple(_held_or_given(d) for d in dim)
    return dim


def _held_or_given(value):
    held = element_index(value)
    return value if held is None else held


def tensor_number(value, name: str, where: str):
    """`value`, or the number a 0-d tensor holds (a bool one as 0 or 1), where PyTorch's argument
    parser takes a Number (norm's and dist's p): it refuses, with a TypeError, a tensor with
    dimensions or one that requires grad (dist(x, y, tensor([1.])): "must be Number, not Tensor")."""
    if not hasattr(value, "_h"):
        return value
    if value.ndim != 0 or value.requires_grad:
        fail(where, name, "a Number (a 0-d tensor that does not require grad), as PyTorch", value,
             f"{where}(..., {name}=float(p)) or p.item()", type_error=True)
    v = value.item()
    return int(v) if isinstance(v, bool) else v


def integer(value, name: str, where: str, minimum: Optional[int] = None, fix: str = "",
            symint: bool = False) -> int:
    """An int (Python or NumPy, or a 0-d integer tensor; not a bool, not a float) >= minimum; with
    symint, where PyTorch takes a SymInt or an int list's element, any one-element integer tensor
    (element_index)."""
    if type(value) is int:  # the common case, without the ABC checks of _is_int
        v = value
    elif _is_int(value):
        v = int(value)
    elif (held := (element_index if symint else tensor_index)(value)) is not None:
        v = held
    else:
        fail(where, name, _at_least("an int", minimum), value, fix, type_error=True)
    if minimum is not None and v < minimum:
        fail(where, name, _at_least("an int", minimum), value, fix)
    return v


def _list_int(value) -> Optional[int]:
    """An int list's element as PyTorch's parser reads it: an int (not a bool) or a one-element
    integer tensor; else None."""
    return int(value) if _is_int(value) else element_index(value)


def as_tuple(value, n: int) -> tuple:
    """value as PyTorch's layers keep a size argument they hand to their op (_ntuple(n)(value): an
    iterable as a tuple, anything else repeated n times), unchecked: the op checks it at the call."""
    return tuple(value) if isinstance(value, collections.abc.Iterable) else (value,) * n


def int_pair(value, name: str, where: str, minimum: Optional[int] = None) -> Tuple[int, int]:
    """An int or a pair of ints (each >= minimum), as PyTorch's 2-d layers take kernel sizes,
    strides, paddings and dilations."""
    want = "an int or a pair of ints"  # worded with the minimum only when a check fails
    if type(value) is int:  # the common cases, without the ABC checks below
        pair = (value, value)
    elif type(value) is tuple and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        pair = value
    elif _is_int(value):
        pair = (int(value), int(value))
    elif isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_int(v) for v in value):
        pair = (int(value[0]), int(value[1]))
    elif (held := element_index(value)) is not None:  # an int list's elements: one-element integer tensors
        pair = (held, held)
    elif isinstance(value, (tuple, list)) and len(value) == 2 and \
            (first := _list_int(value[0])) is not None and (second := _list_int(value[1])) is not None:
        pair = (first, second)
    else:
        fail(where, name, _at_least(want, minimum), value, type_error=not isinstance(value, (tuple, list)) or
             not all(_is_int(v) for v in value))
    if minimum is not None and (pair[0] < minimum or pair[1] < minimum):
        fail(where, name, _at_least(want, minimum), value)
    return pair


def real(value, name: str, where: str, minimum: Optional[float] = None, maximum: Optional[float] = None,
         above: bool = False, below: bool = False, fix: str = "", as_float: bool = False) -> float:
    """A finite real number (Python or NumPy, a bool as 0 or 1 as PyTorch's parser takes it; a
    one-element tensor or array; not a string) in [minimum, maximum], open at the ends marked
    `above` (> minimum) and `below` (< maximum). as_float=True: PyTorch's `float` argument as its
    parser takes it, where inf and nan are values (a pad value of -inf, threshold(x, 0.0, -inf))."""
    if type(value) is float or type(value) is int:  # the common case, without the ABC checks below
        v = float(value)
    elif isinstance(value, bool):  # PyTorch's `float` arguments (its parser, and its layers' comparisons) take one
        v = float(value)
    else:
        if isinstance(value, (str, bytes)) or \
                not (isinstance(value, numbers.Real) or hasattr(value, "__float__")):
            bounds = _bounds(minimum, maximum, above, below)
            fail(where, name, "a number" + (f" {bounds}" if bounds else ""), value, fix, type_error=True)
        try:
            v = float(value)
        except (TypeError, ValueError):
            bounds = _bounds(minimum, maximum, above, below)
            fail(where, name, "a number" + (f" {bounds}" if bounds else ""), value, fix, type_error=True)
    if not math.isfinite(v) and (not as_float or (math.isnan(v) and (minimum is not None or maximum is not None))):
        bounds = _bounds(minimum, maximum, above, below)
        fail(where, name, "finite" + (f" and {bounds}" if bounds else ""), value, fix)
    if (minimum is not None and (v <= minimum if above else v < minimum)) or \
            (maximum is not None and (v >= maximum if below else v > maximum)):
        fail(where, name, _bounds(minimum, maximum, above, below), value, fix)
    return v


def _bounds(minimum: Optional[float], maximum: Optional[float], above: bool, below: bool) -> str:
    """How real() words its range ("in [0, 1)", ">= 0", ""), made only when a check fails."""
    if minimum is not None and maximum is not None:
        return f"in {'(' if above else '['}{minimum:g}, {maximum:g}{')' if below else ']'}"
    return " and ".join(b for b in (
        "" if minimum is None else (f"> {minimum:g}" if above else f">= {minimum:g}"),
        "" if maximum is None else (f"< {maximum:g}" if below else f"<= {maximum:g}")) if b)


def shown(value, checked):
    """A checked number as the caller wrote it: an int or a bool stays as it is (PyTorch's layers
    keep their arguments as given, so print(model) shows `Dropout(p=0, ...)`, `eps=1`, and
    `LeakyReLU(negative_slope=True)` for the common slip nn.LeakyReLU(True), a slope of 1), anything
    else is the checked float."""
    return value if type(value) is int or type(value) is bool else checked


def flag(value, name: str, where: str) -> bool:
    """A bool (True/False; NumPy bools too)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    fail(where, name, "True or False", value, type_error=True)


def switch(value) -> bool:
    """An on/off argument PyTorch reads in Python, by its truth value (`if bias:`): a module
    constructor's (bias, affine, inplace, batch_first, norm_first, ...), an activation's or dropout's
    inplace, max pooling's return_indices, a loss's legacy size_average / reduce. 0, 1, None and
    other values are taken as Python takes them; a tensor of several values raises bool()'s error.
    (Arguments PyTorch hands to its C++ ops, such as ceil_mode or dropout's training, are checked
    as bools by flag(), where PyTorch's TypeError is raised.)"""
    return bool(value)


def python_bool(value, name: str, where: str, fix: str, position: Optional[int] = None) -> bool:
    """value when it is a Python bool; else PyTorch's argument parser's TypeError, "<where>():
    argument '<name>' (position N) must be bool, not <type>" (an int, None, a NumPy bool or a
    tensor are refused there), and the fix."""
    if type(value) is not bool:
        kind = type(value)
        kind_name = kind.__name__ if kind.__module__ in ("builtins", "glassgrad") else f"{kind.__module__}.{kind.__name__}"
        at = "" if position is None else f" (position {position})"
        raise InvalidArgumentTypeError(f"{where}(): argument '{name}'{at} must be bool, not {kind_name}\n  fix: {fix}")
    return value


def choice(value, name: str, where: str, options: Sequence, fix: str = ""):
    """One of `options` (compared with ==; strings exactly)."""
    for o in options:
        if type(value) is type(o) and value == o:
            return value
    fail(where, name, "one of " + ", ".join(repr(o) for o in options), value, fix)


# ---- checked arguments remembered by identity ----
# A layer passes the same argument objects on every call (Conv2d its stride, padding and dilation
# tuples, F.max_pool2d(x, 2) the int 2), so a function may keep what it derived from them (its op's
# attrs) under the objects' ids and skip the checks when the same objects come again. Only
# immutable values are kept (ints, bools, None, strs and tuples of them: the same object is the
# same value), and the table holds the objects, so no id is reused while its entry lives.
_IMMUTABLE = frozenset({int, bool, type(None), str})
_REMEMBERED_LIMIT = 256  # entries per table; a full table starts over


def _immutable(value) -> bool:
    kind = type(value)
    return kind in _IMMUTABLE or (kind is tuple and all(type(v) in _IMMUTABLE for v in value))


def remember(table: dict, values: tuple, derived) -> None:
    """Keeps `derived` in `table` under tuple(map(id, values)) (a caller looks it up with the same
    key, before checking the values), when every value is immutable; `derived` must not be
    mutated by whoever receives it."""
    if all(map(_immutable, values)):
        if len(table) >= _REMEMBERED_LIMIT:
            table.clear()
        table[tuple(map(id, values))] = (values, derived)


def call(name: str, *args, **kwargs) -> str:
    """'Conv2D(1, 16, 3, padding=2)': how messages name the call that got a bad argument."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


__all__: Iterable[str] = ["InvalidArgumentTypeError", "fail", "integer", "int_pair", "real", "flag", "choice", "call"]
