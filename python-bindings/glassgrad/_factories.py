"""PyTorch's tensor factories (torch.zeros, torch.full, torch.arange, torch.linspace, torch.eye,
the *_like functions, torch.randint, torch.randperm, torch.bernoulli, torch.multinomial, ...)
with PyTorch's signatures and dtype inference: full((2,), 1) is int64, full((2,), True) bool,
arange(5) int64, arange(0, 1, 0.1) float32.

Each makes a leaf on the host (NumPy) and copies it to its device once. Random draws use
glassgrad's generator (glassgrad.manual_seed) and are marked as random inputs, so a compiled step
(glassgrad.compile) draws new numbers on every replay instead of reusing the traced ones.
"""
from __future__ import annotations

import builtins
import functools
import math
import numbers
import warnings
from typing import Any, Callable, Tuple, TypeVar, cast

import numpy as np

from . import _C, _args, _device, _dtypes, _numpy_arrays, _numpy_strides, _python_ints, _tensor_data, _trace
from . import _memory_formats as _mf
from ._args import UnsupportedDTypeError
from ._dtypes import DTYPES, TENSOR_TYPE_NAMES
from ._fused_multiply_add import fused_multiply_add
from ._random import generator
from ._opmath import round_bfloat16
from ._tensor import RefusedValueError, Tensor, _NP, _shape_args, _wrap, check_fits, scalar_array, legacy_shape, legacy_sizes, tensor, warn_copy_construct
from ._out import factory_out, write_out
from ._trace import user_source


def _requiring_grad(t: Tensor) -> Tensor:
    """t with requires_grad=True, as a factory's requires_grad=True makes it (PyTorch's words for an
    integer or bool dtype differ from requires_grad_()'s)."""
    if not t.dtype.is_floating_point:
        raise _C.DTypeError(f"Only Tensors of floating point and complex dtype can require gradients\n  a {t.dtype} "
                            f"tensor {list(t.shape)} was made with requires_grad=True\n  fix: dtype=glassgrad.float32")
    return t.requires_grad_(True)


def _leaf(arr: np.ndarray, device, requires_grad: bool = False) -> Tensor:
    raw = _C.Tensor.from_numpy(np.ascontiguousarray(arr), _device.normalize(device), f"tensor@{user_source()}")
    t = _wrap(_C.lazy_leaf(raw, "input", False, ""))
    if requires_grad:
        _requiring_grad(t)
    return t


def _random_leaf(draw_array, device, requires_grad: bool = False) -> Tensor:
    """A leaf of random numbers that a compiled step's replays draw again (draw_array() -> array)."""
    from .compile import random_input  # compile imports nn, whose layers import these factories
    dev = _device.normalize(device)

    def draw() -> "_C.Tensor":
        # asarray, not ascontiguousarray, which makes a 0-d draw (torch.rand(())) 1-d
        return _C.Tensor.from_numpy(np.asarray(draw_array(), order="C"), dev, "random")
    t = random_input(_wrap(_C.lazy_leaf(draw(), "input", False, "")), draw)
    if requires_grad:
        _requiring_grad(t)
    return t


def _bfloat16_through_float32(fn):
    """fn (a factory whose values NumPy makes) for dtype=bfloat16 too, which NumPy lacks: the
    values made in float32 and rounded by the Cast op into a new leaf."""
    @functools.wraps(fn)
    def factory(*args, dtype=None, requires_grad: bool = False, **kwargs):
        if dtype is None and _dtypes.plain(_dtypes.DEFAULT_FLOAT) == "bfloat16":
            # the default float type is bfloat16 (set_default_dtype): NumPy makes it as float32
            if fn(*args, dtype=None, **kwargs).dtype == "float32":
                dtype = "bfloat16"
        if dtype is None or _dtypes._parse(dtype) != "bfloat16":
            return fn(*args, dtype=dtype, requires_grad=requires_grad, **kwargs)
        wide = fn(*args, dtype=_dtypes.DEFAULT_FLOAT, **kwargs)
        return _wrap(_C.lazy_leaf(wide.astype("bfloat16")._raw(), "input", requires_grad, ""))
    return factory


def _np_dtype(dtype, default) -> np.dtype:
    return np.dtype(_NP[_dtypes.plain(_dtypes.to_dtype(dtype) if dtype is not None else default)])


def _fill_dtype(value):
    """The dtype torch.full infers from its fill value."""
    return _dtypes.scalar_dtype(value)


# ---- constant fills ------------------------------------------------------------------------------

_Fn = TypeVar("_Fn", bound=Callable[..., Any])

def _size_keyword(fn: _Fn) -> _Fn:
    """fn(*size, ...) that also takes size= as a keyword (torch.rand(size=(1, 1, 28, 28)))."""
    @functools.wraps(fn)
    def call(*size, **kwargs):
        return fn(*_sizes(fn.__name__, size, kwargs), **kwargs)
    return cast(_Fn, call)


def _method_size_keyword(fn: _Fn) -> _Fn:
    """_size_keyword for a Tensor method fn(self, *size, ...) (x.new_zeros(size=(2, 3)))."""
    @functools.wraps(fn)
    def call(self, *size, **kwargs):
        return fn(self, *_sizes(fn.__name__, size, kwargs), **kwargs)
    return cast(_Fn, call)


def _sizes(name: str, size: tuple, kwargs: dict) -> tuple:
    """The size arguments, or (size=,) popped from kwargs when given as a keyword. PyTorch's parser
    requires a size (torch.ones() is a TypeError; a 0-d tensor is torch.ones(())), and size= is a
    sequence (size=2 is a TypeError, where the positional ones(2) is a size)."""
    if "size" in kwargs:
        if size:
            raise _args.InvalidArgumentTypeError(f"{name}() got multiple values for argument 'size'\n  cause: the "
                                                 f"size both as arguments {size} and as size={kwargs['size']}\n"
                                                 f"  fix: pass it once")
        given = kwargs.pop("size")
        if not isinstance(given, (tuple, list)) and not hasattr(given, "__iter__"):
            raise _args.InvalidArgumentTypeError(
                f"{name}(): argument 'size' must be tuple of ints, not {type(given).__name__}\n  fix: "
                + (f"{name}(size=({given!r},)), or {name}({given!r}) with the size as an argument"
                   if _args._is_int(given) else f"{name}(size=(3, 4)): a tuple of ints"))
        return (given,)
    if not size:
        raise _args.InvalidArgumentTypeError(
            f'{name}() missing 1 required positional arguments: "size"\n'
            f"  fix: {name}(()) for a 0-d tensor, {name}(3, 4) or {name}(size=(3, 4)) for others")
    return size


@factory_out
@_size_keyword
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory=False) -> Tensor:
    """A tensor of zeros (torch.zeros; float32 unless dtype says otherwise)."""
    return full(_shape_args(size, "zeros"), 0, dtype=dtype or _dtypes.DEFAULT_FLOAT, device=device, requires_grad=requires_grad)


@factory_out
@_size_keyword
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
         pin_memory=False) -> Tensor:
    """A tensor of ones (torch.ones; float32 unless dtype says otherwise)."""
    return full(_shape_args(size, "ones"), 1, dtype=dtype or _dtypes.DEFAULT_FLOAT, device=device, requires_grad=requires_grad)


@factory_out
@_size_keyword
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory=False,
          memory_format=None) -> Tensor:
    """torch.empty: glassgrad's are zeros (it never hands out uninitialized memory); memory_format
    (contiguous_format or channels_last(_3d)) lays them out in that order."""
    shape = _shape_args(size, "empty")
    order = _mf.format_order(shape, memory_format, "empty")
    if order is not None and requires_grad:
        order = None  # a leaf is row-major here (docs/porting.md, "Memory formats")
    return _mf.laid_out(lambda s: full(s, 0, dtype=dtype or _dtypes.DEFAULT_FLOAT, device=device,
                                       requires_grad=requires_grad), shape, order)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory=False) -> Tensor:
    """torch.empty_strided: zeros of `size` (glassgrad never hands out uninitialized memory) laid
    out with `stride` where the strides are a dense order of the dims (row-major, a transpose,
    channels-last), as a view of a dense tensor in that order; other strides (gaps, overlaps),
    and requires_grad=True (a leaf), give the row-major layout."""
    shape = _shape_args((size,), "empty_strided")
    strides = _shape_args((stride,), "empty_strided")
    if len(strides) != len(shape):
        raise _C.InvalidArgumentError(f"empty_strided: mismatch in length of strides and shape (size {list(shape)}, "
                                      f"stride {list(strides)})\n  fix: one stride per dim")
    base = full(shape, 0, dtype=dtype or _dtypes.DEFAULT_FLOAT, device=device, requires_grad=requires_grad)
    order = sorted(range(len(shape)), key=lambda d: -strides[d])  # outermost dim first
    dense, step = [0] * len(shape), 1
    for d in reversed(order):
        dense[d], step = step, step * shape[d]
    if requires_grad or list(order) == list(range(len(shape))) \
            or any(shape[d] > 1 and strides[d] != dense[d] for d in range(len(shape))):
        return base
    held = base.permute(*order).contiguous()  # dense in `order`; permuted back, it has `stride`
    return held.permute(*[order.index(d) for d in range(len(shape))])


def _sizes_given(size, fill_value, fn: str) -> None:
    """PyTorch's full and new_full take the sizes as one sequence, never a bare int (zeros(3) does)."""
    if isinstance(size, (numbers.Integral, np.integer)):
        raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}\n"
                        f"  fix: a tuple of sizes: {fn}(({size},), {fill_value!r})")


@factory_out
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
         pin_memory=False) -> Tensor:
    """A tensor filled with fill_value (torch.full); the dtype follows the value (a bool: bool, an
    int: int64, a float: float32) unless given."""
    _sizes_given(size, fill_value, "full")
    shape = _shape_args((size,), "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (numbers.Number, np.number, np.bool_)):  # PyTorch's TypeError
        _args.fail("full", "fill_value", "a number", fill_value, "glassgrad.full((2, 3), 0.5)", type_error=True)
    dt = _dtypes.to_dtype(dtype) if dtype is not None else _fill_dtype(fill_value)
    dev = _device.normalize(device)
    # PyTorch fills one element on the CPU unchecked: float16 and bfloat16 take an overflow as inf
    check_fits(fill_value, dt, "full", narrow_floats=math.prod(shape) != 1 or not dev.startswith("cpu"))
    if _python_ints.attribute_exact(fill_value, dt):
        raw = _C.Tensor.full(list(shape), float(fill_value), _dtypes.plain(dt), dev, f"tensor@{user_source()}")
    else:  # an int beyond 2**53, which the runtime's fill (a double) would round: written by NumPy
        raw = _C.Tensor.from_numpy(np.full(shape, scalar_array(fill_value, _NP[_dtypes.plain(dt)])), dev,
                                   f"tensor@{user_source()}")
    t = _wrap(_C.lazy_leaf(raw, "input", False, ""))
    if requires_grad:
        _requiring_grad(t)
    return t


def _like_order(input: Tensor, memory_format, requires_grad: bool, fn: str):
    """The dim order of a *_like result: input's (preserve_format) or memory_format's; a leaf that
    requires grad is row-major here (docs/porting.md, "Memory formats")."""
    order = _mf.result_order(input, memory_format, fn)
    return None if requires_grad else order


def _like(input: Tensor, dtype, device):
    return (_dtypes.to_dtype(dtype) if dtype is not None else input.dtype,
            _device.normalize(device) if device is not None else input.device)


def zeros_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, pin_memory=False) -> Tensor:
    """Zeros of input's shape, dtype and device unless given (torch.zeros_like)."""
    return full_like(input, 0, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def ones_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, pin_memory=False) -> Tensor:
    """Ones of input's shape, dtype and device unless given (torch.ones_like)."""
    return full_like(input, 1, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def empty_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, pin_memory=False) -> Tensor:
    """torch.empty_like: zeros of input's shape, dtype and device (glassgrad never hands out uninitialized memory)."""
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad, memory_format=memory_format)


def fill(input: Tensor, value) -> Tensor:
    """torch.fill(input, value): a new tensor of input's shape, dtype and device holding value (a
    number, or a 0-d tensor whose gradient is the sum of the result's)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise _C.ShapeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                                f"dimensions.\n  fix: a number or a 0-d tensor")
        return value.astype(input.dtype).to(input.device).expand(*input.shape).clone()
    return full_like(input, value)


def full_like(input: Tensor, fill_value, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, pin_memory=False) -> Tensor:
    """fill_value in input's shape, dtype and device unless given (torch.full_like); laid out as
    input (memory_format=preserve_format, the default) or in memory_format."""
    dt, dev = _like(input, dtype, device)
    return _mf.laid_out(lambda s: full(s, fill_value, dtype=dt, device=dev, requires_grad=requires_grad),
                        input.shape, _like_order(input, memory_format, requires_grad, "full_like"))


# ---- ranges --------------------------------------------------------------------------------------
@_bfloat16_through_float32
@factory_out
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False,
           pin_memory=False) -> Tensor:
    """start, start + step, ... below end (torch.arange; arange(n) is 0..n-1): int64 when start,
    end and step are all integers, else float32, unless dtype says otherwise."""
    if end is None:
        start, end = 0, start
    # a bool counts as the int it is (arange(True) is [0]); np.bool_ as a float, as PyTorch 2.14
    # reads NumPy's bool through float() (arange(np.bool_(True)) is float32 [0.])
    start, end, step = (float(v) if isinstance(v, np.bool_) else v for v in (start, end, step))
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (numbers.Real, np.number)):
            _args.fail("arange", name, "a number", v, type_error=True)
        _python_ints.check_int(v, "arange")  # PyTorch's OverflowError beyond [-2**63, 2**64)
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    # PyTorch's checks, in its order and with its sentences (the step may be infinite: no values)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RefusedValueError(f"unsupported range: {start:g} -> {end:g}\n  arange: start and end must be finite "
                                f"numbers\n  fix: finite bounds, e.g. arange(0, 10)")
    if step == 0:
        raise RefusedValueError("step must be nonzero\n  arange: the step is 0\n  fix: arange(0, 10, 1)")
    if (end - start) * step < 0:
        raise RefusedValueError(f"upper bound and lower bound inconsistent with step sign\n  arange: start={start}, "
                                f"end={end}, step={step}\n  fix: a negative step counts down: arange(10, 0, -1)")
    if dtype is not None and _dtypes.plain(dtype).split(".")[-1] == "bool":
        raise _C.UnsupportedError("arange: not implemented for bool (as in PyTorch)\n"
                                  "  fix: torch.arange(n) % 2 == 1, or another dtype")
    integral = all(isinstance(v, (numbers.Integral, np.integer)) for v in (start, end, step))
    target = _np_dtype(dtype, DTYPES["int64"] if integral else _dtypes.DEFAULT_FLOAT)
    if integral or np.issubdtype(target, np.integer):
        for v in (start, end, step):  # an int of [2**63, 2**64) is refused, as PyTorch's int64 scalars
            if isinstance(v, (numbers.Integral, np.integer)):
                check_fits(v, "int64", "arange")
    if target == np.int64:
        # PyTorch's int64 kernel truncates start, end and step first and counts in integers
        # (arange(0, 5, 1.9, dtype=torch.int64) is [0, 1, 2, 3, 4]; a step of 0.5 is a step of 0);
        # every other dtype counts ceil((end - start) / step) in float64
        start, end, step = (int(v) for v in (start, end, step))  # int() truncates, NumPy scalars too
        if step == 0:
            raise RefusedValueError("step must be nonzero\n  arange: the step truncates to 0 in int64\n  fix: a "
                                    "whole step, or a floating dtype: arange(0, 1, 0.5, dtype=torch.float32)")
        count = (end - start + step - (1 if step > 0 else -1)) // step
    else:
        count = math.ceil((end - start) / step)
    if count >= 2**63:  # PyTorch's size check, in float64 as its
        raise RefusedValueError(f"invalid size, possible overflow?\n  arange: ({end} - {start}) / {step} values "
                                f"do not fit in 64 bits\n  fix: a smaller range or a larger step")
    n = builtins.max(0, count)
    if integral or np.issubdtype(target, np.integer):
        # an integer dtype accumulates in integers: PyTorch truncates start and step first
        # (arange(0, 5, 1.5, dtype=torch.int32) is [0, 1, 2, 3]; the count above)
        values: np.ndarray = int(start) + int(step) * np.arange(n, dtype=np.int64)
    else:
        values = float(start) + float(step) * np.arange(n, dtype=np.float64)
    return _leaf(values.astype(target), device, requires_grad)


def _range_ends(start, end, steps: int, name: str, where: str) -> Tuple[float, float]:
    """linspace's and logspace's start and end as PyTorch's kernels read them: converted to the
    result's dtype by its checked conversion (check_fits: "value cannot be converted to type
    int8_t without overflow"), an integer type's truncated and wrapped (uint8's -3 is 253). Its
    kernels have no bool version, which only a result of two or more values reaches."""
    if name == "bool" and steps > 1:
        raise UnsupportedDTypeError(f"\"{where}_cpu\" not implemented for 'Bool'\n  {where}: {steps} values of "
                                    f"dtype bool\n  fix: another dtype, then compare: torch.{where}(0, 1, n) > 0.5")
    np_dtype = np.dtype(_NP[name])
    ends = []
    for v in (start, end):
        v = v.item() if isinstance(v, Tensor) else v
        check_fits(v, name, where)
        ends.append(float(np.int64(int(v)).astype(np_dtype)) if np_dtype.kind in "iu" else float(v))
    return ends[0], ends[1]


@factory_out
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
             pin_memory=False) -> Tensor:
    """`steps` evenly spaced values from start to end, both included (torch.linspace; float32),
    computed as PyTorch does: from start for the first half, from end for the second."""
    if isinstance(steps, Tensor) and steps.ndim == 0 and not steps.dtype.is_floating_point:
        steps = int(steps.item())  # PyTorch takes a 0-d integer tensor as the count
    steps = _args.integer(steps, "steps", "linspace", minimum=0)
    name = _dtypes.plain(_dtypes.to_dtype(dtype) if dtype is not None else _dtypes.DEFAULT_FLOAT)
    start, end = _range_ends(start, end, steps, name, "linspace")
    if name in ("float16", "bfloat16"):
        values16 = _linspace_16_bit(start, end, steps, name)
        if name == "float16":
            return _leaf(values16, device, requires_grad)
        wide = _leaf(values16, device, False)  # bfloat16 values held in float32: the Cast is exact
        return _wrap(_C.lazy_leaf(wide.astype("bfloat16")._raw(), "input", requires_grad, ""))
    np_dtype = np.dtype(_NP[name])
    i = np.arange(steps, dtype=np.float64)
    if steps > 1 and np_dtype == np.float32:
        # PyTorch rounds start, end and the step to float32 and computes each value as one fused
        # multiply-add (start + i * step, end - (steps - 1 - i) * step): a float32 product is exact
        # in float64, so float64 arithmetic rounded once to float32 gives its last bits.
        start_f, end_f = np.float32(start), np.float32(end)
        step_f = np.float64((end_f - start_f) / np.float32(steps - 1))
        values = np.where(i < steps // 2, np.float64(start_f) + i * step_f, np.float64(end_f) - (steps - 1 - i) * step_f)
    elif steps > 1:
        # float64 (and the integer types, through it): each value one fused multiply-add in
        # float64, start + i * step for the first half and end - (steps - 1 - i) * step for the
        # second, as PyTorch's CPU kernel computes them (its compiler fuses the two). An integer
        # type truncates each value (start and end are integers already: _range_ends).
        step = (end - start) / (steps - 1)
        values = np.where(i < steps // 2, fused_multiply_add(i, step, start),
                          fused_multiply_add(steps - 1 - i, -step, end))
    else:
        values = np.full(steps, start)
    return _leaf(values.astype(np_dtype), device, requires_grad)


def _linspace_16_bit(start: float, end: float, steps: int, name: str) -> np.ndarray:
    """linspace in float16 or bfloat16 arithmetic, as PyTorch's kernel computes it there: start,
    end, the step and every product and sum rounded to the 16-bit type (float16 values as
    float16, bfloat16 ones as float32)."""
    if name == "float16":
        def r(v):
            return np.asarray(v, np.float32).astype(np.float16)
    else:
        def r(v):
            return round_bfloat16(np.asarray(v, np.float32))
    s, e = r(start), r(end)
    if steps <= 1:
        return np.full(steps, s)
    step = r(np.float32(r(np.float32(e) - np.float32(s))) / np.float32(r(steps - 1)))
    i = np.arange(steps)
    first = r(np.float32(s) + np.float32(r(np.float32(step) * np.float32(r(i)))))
    second = r(np.float32(e) - np.float32(r(np.float32(step) * np.float32(r(steps - 1 - i)))))
    return np.where(i < steps // 2, first, second)


@factory_out
@_bfloat16_through_float32
def logspace(start, end, steps, base: float = 10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False,
             pin_memory=False) -> Tensor:
    """base ** linspace(start, end, steps) (torch.logspace)."""
    steps = _args.integer(steps, "steps", "logspace", minimum=0)
    name = _dtypes.plain(_dtypes.to_dtype(dtype) if dtype is not None else _dtypes.DEFAULT_FLOAT)
    start, end = _range_ends(start, end, steps, name, "logspace")
    exps = np.linspace(start, end, steps)
    with np.errstate(invalid="ignore", over="ignore"):  # an integer type wraps a power beyond it, quietly as PyTorch's
        values = (float(base) ** exps).astype(np.dtype(_NP[name]))
    return _leaf(values, device, requires_grad)


@factory_out
@_bfloat16_through_float32
def inclusive_range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
                    requires_grad: bool = False,
                    pin_memory=False) -> Tensor:
    """torch.range (deprecated there for arange): start, start + step, ... up to and including
    end, floor((end - start) / step) + 1 values, in the default float dtype unless dtype says
    otherwise."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"\n'
                        "  fix: range(0, n) (end is included), or arange(n)")
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=_trace.user_stacklevel())
    first, last = _args.real(start, "start", "range"), _args.real(end, "end", "range")
    step = _args.real(step, "step", "range")
    if step == 0 or (last - first) * step < 0:
        raise _C.InvalidArgumentError(f"range: upper bound and larger bound inconsistent with step sign "
                                      f"(start={start}, end={end}, step={step})\n  fix: a step whose sign "
                                      f"goes from start towards end")
    count = int(math.floor((last - first) / step)) + 1
    values = first + step * np.arange(count, dtype=np.float64)
    return _leaf(values.astype(_np_dtype(dtype, _dtypes.DEFAULT_FLOAT)), device, requires_grad)


@factory_out
@_bfloat16_through_float32
def eye(n: int, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
        pin_memory=False) -> Tensor:
    """The n x m identity (torch.eye; m defaults to n)."""
    n = _args.integer(n, "n", "eye", minimum=0, symint=True)
    m = n if m is None else _args.integer(m, "m", "eye", minimum=0, symint=True)
    return _leaf(np.eye(n, m, dtype=_np_dtype(dtype, _dtypes.DEFAULT_FLOAT)), device, requires_grad)


# ---- random --------------------------------------------------------------------------------------
@factory_out
@_size_keyword
@_bfloat16_through_float32
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
         pin_memory=False) -> Tensor:
    """Uniform on [0, 1) (torch.rand), from glassgrad's generator."""
    shape, dt = _drawn_shape(size, "rand"), _floating_only(_np_dtype(dtype, _dtypes.DEFAULT_FLOAT), "rand")
    return _random_leaf(lambda: _rng(generator).random(shape).astype(dt), device, requires_grad)


@factory_out
@_size_keyword
@_bfloat16_through_float32
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory=False) -> Tensor:
    """Standard normal (torch.randn), from glassgrad's generator."""
    shape, dt = _drawn_shape(size, "randn"), _floating_only(_np_dtype(dtype, _dtypes.DEFAULT_FLOAT), "randn")
    return _random_leaf(lambda: _rng(generator).standard_normal(shape).astype(dt), device, requires_grad)


def _drawn_shape(size, where: str) -> tuple:
    """The shape of a random factory's draw, a negative size refused as full() refuses it (the
    ShapeError PyTorch's RuntimeError matches; NumPy's draw would raise a bare ValueError)."""
    shape = tuple(_shape_args(size, where))
    if any(s < 0 for s in shape):
        raise _C.ShapeError(f"{where}: cannot create a tensor: a tensor of shape {list(shape)} has a negative size\n"
                            f"  fix: sizes must be >= 0")
    return shape


def _rng(gen=None) -> np.random.Generator:
    """The NumPy generator a draw uses: the glassgrad.Generator passed as generator=, else the
    global one (glassgrad.manual_seed), as PyTorch's factories draw from theirs."""
    return gen.numpy_generator() if gen is not None else generator()


def _floating_only(dt, where: str):
    """dt, refused unless floating: PyTorch has no uniform or normal integers (randint draws those)."""
    if np.dtype(dt).kind != "f":
        raise _C.UnsupportedError(f"{where}: not implemented for {np.dtype(dt).name}: the values are real numbers "
                                  f"(as in PyTorch)\n  fix: dtype=torch.float32, or torch.randint(low, high, size) "
                                  f"for integers")
    return dt


def rand_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, pin_memory=False) -> Tensor:
    """Uniform on [0, 1) in input's shape, dtype and device unless given (torch.rand_like)."""
    dt, dev = _like(input, dtype, device)
    return _mf.laid_out(lambda s: rand(s, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad),
                        input.shape, _like_order(input, memory_format, requires_grad, "rand_like"))


def randn_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, pin_memory=False) -> Tensor:
    """Standard normal in input's shape, dtype and device unless given (torch.randn_like)."""
    dt, dev = _like(input, dtype, device)
    return _mf.laid_out(lambda s: randn(s, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad),
                        input.shape, _like_order(input, memory_format, requires_grad, "randn_like"))


@factory_out
@_bfloat16_through_float32
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad: bool = False, pin_memory=False) -> Tensor:
    """Integers uniform on [low, high) (torch.randint(high, size) or randint(low, high, size),
    each also by keyword); int64 unless dtype says otherwise."""
    named = {k: v for k, v in (("low", low), ("high", high), ("size", size)) if v is not None}
    if named:  # the positional arguments fill the places the keywords leave, in low-high-size order
        slots = [k for k in (("low", "high", "size") if low is not None or len(args) + len(named) == 3
                             else ("high", "size")) if k not in named]
        named.update(zip(slots, args))
        args = tuple(named[k] for k in ("low", "high", "size") if k in named)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise _C.InvalidArgumentError("randint: call it as randint(high, size) or randint(low, high, size)\n"
                                      "  fix: glassgrad.randint(0, 10, (32,))")
    if _args._is_int(size) or isinstance(size, float):  # PyTorch's size is a sequence: randint(5, 2) is refused
        raise _args.InvalidArgumentTypeError(f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}"
                                             f"\n  fix: randint({low}, {high}, ({size},))")
    low = _args.integer(low, "low", "randint", symint=True)
    high = _args.integer(high, "high", "randint", symint=True)
    if high <= low:
        raise _C.InvalidArgumentError(f"randint: high ({high}) must be larger than low ({low})")
    shape, dt = _drawn_shape((size,), "randint"), _np_dtype(dtype, DTYPES["int64"])
    return _random_leaf(lambda: _rng(generator).integers(low, high, shape).astype(dt), device, requires_grad)


def randint_like(input: Tensor, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad: bool = False, memory_format=None, pin_memory=False) -> Tensor:
    """Integers uniform on [low, high) in input's shape (randint_like(x, high) or randint_like(x, low, high); torch.randint_like)."""
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    return _mf.laid_out(lambda s: randint(low, high, s, generator=generator, dtype=dt, device=dev,
                                          requires_grad=requires_grad),
                        input.shape, _like_order(input, memory_format, requires_grad, "randint_like"))


@factory_out
@_bfloat16_through_float32
def randperm(n: int, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False, pin_memory=False) -> Tensor:
    """A random permutation of 0..n-1 (torch.randperm), int64."""
    n = _args.integer(n, "n", "randperm", minimum=0, symint=True)
    dt = _np_dtype(dtype, DTYPES["int64"])
    return _random_leaf(lambda: _rng(generator).permutation(n).astype(dt), device, requires_grad)


@factory_out
@_bfloat16_through_float32
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Normal draws with the given mean and std, numbers or tensors broadcast together (torch.normal);
    with numbers, size gives the shape. A negative number std raises, as PyTorch's."""
    if not isinstance(std, Tensor) and not float(std) >= 0:
        raise _C.InvalidArgumentError(f"normal expects std >= 0.0, but found std {std}\n"
                                      f"  fix: a standard deviation >= 0 (the variance's square root)")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        shape = np.broadcast_shapes(tuple(mean.shape) if isinstance(mean, Tensor) else (),
                                    tuple(std.shape) if isinstance(std, Tensor) else ())
        z = randn(shape, generator=generator, dtype=like.dtype, device=like.device)
        return z * std + mean
    if size is None:
        raise _C.InvalidArgumentError("normal: give size= when mean and std are numbers\n"
                                      "  fix: glassgrad.normal(0.0, 1.0, size=(3, 4))")
    # a new leaf, as every factory's result (d2l's `w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)`)
    shape, dt = _drawn_shape((size,), "normal"), _np_dtype(dtype, _dtypes.DEFAULT_FLOAT)
    return _random_leaf(lambda: (_rng(generator).standard_normal(shape) * float(std) + float(mean)).astype(dt), device,
                        _args.flag(requires_grad, "requires_grad", "normal"))


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """1 with probability input (or p), else 0, in input's dtype (torch.bernoulli); no gradient.
    A probability outside [0, 1] (or NaN) raises, as PyTorch's: a number p always, a tensor's
    values on the CPU (which reads them; PyTorch's CUDA kernel does not check either)."""
    if p is not None and not 0 <= float(p) <= 1:
        raise _C.InvalidArgumentError(f"bernoulli: p must be in [0, 1], got p={p}\n  fix: a probability")
    probs = input if p is None else input * 0 + p
    if p is None and probs.device.type == "cpu":
        values = np.asarray(probs.detach()._values(), dtype=np.float64)  # bfloat16 read as float32
        if not ((values >= 0) & (values <= 1)).all():
            bad = values[~((values >= 0) & (values <= 1))].ravel()[0]
            raise _C.InvalidArgumentError(f"bernoulli: every probability of input must be in [0, 1], found {bad} "
                                          f"(shape {list(probs.shape)})\n  fix: clamp or normalize the "
                                          f"probabilities, e.g. input.clamp(0, 1) or input.sigmoid()")
    u = rand(probs.shape, generator=generator, dtype=probs.dtype if probs.dtype.is_floating_point else None,
             device=probs.device)
    drawn = (u < probs.detach()).astype(input.dtype)
    return drawn if out is None else write_out(out, drawn, "bernoulli")


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) -> Tensor:
    """Indices drawn with probability proportional to each row of input (torch.multinomial),
    int64, without replacement unless replacement=True. Reads the weights (a data-dependent
    draw), so it computes pending work first."""
    num_samples = _args.integer(num_samples, "num_samples", "multinomial", minimum=1)
    replacement = _args.flag(replacement, "replacement", "multinomial")
    w = np.asarray(input.detach()._values(), dtype=np.float64)  # bfloat16 (autocast's softmax) read as float32
    if w.ndim not in (1, 2):
        raise _C.ShapeError(f"multinomial: input must be 1-d or 2-d, got shape {list(w.shape)}")
    rows = w.reshape(-1, w.shape[-1])
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise _C.InvalidArgumentError("multinomial: probabilities must be finite and >= 0")
    if (rows.sum(1) <= 0).any():
        raise _C.InvalidArgumentError("multinomial: every row needs a positive sum of weights")
    if not replacement and num_samples > (rows > 0).sum(1).min():
        raise _C.InvalidArgumentError(f"multinomial: cannot draw {num_samples} samples without replacement from "
                                      f"{int((rows > 0).sum(1).min())} nonzero weights\n  fix: replacement=True")

    def draw():
        out = np.stack([_rng(generator).choice(len(r), size=num_samples, replace=replacement, p=r / r.sum())
                        for r in rows])
        return out.reshape(w.shape[:-1] + (num_samples,)).astype(np.int64)
    drawn = _random_leaf(draw, input.device)
    return drawn if out is None else write_out(out, drawn, "multinomial")


# ---- from data -----------------------------------------------------------------------------------
def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor of the array's dtype and shape (torch.from_numpy). glassgrad copies the data
    (tensors live in glassgrad's own memory, on the CPU or a GPU): later changes to the array are
    not seen."""
    if not isinstance(ndarray, np.ndarray):
        raise _args.InvalidArgumentTypeError(f"expected np.ndarray (got {_tensor_data.type_name(ndarray)})\n  "
                                             f"from_numpy takes a NumPy array, as PyTorch's\n  fix: "
                                             f"glassgrad.tensor(value) for a list or a number")
    _numpy_arrays.check(ndarray, "glassgrad.from_numpy")
    _numpy_arrays.warn_if_not_writable(ndarray)
    if _numpy_strides.applies(ndarray):  # a transpose's or a slice's strides kept, as PyTorch's
        return _numpy_strides.viewed(ndarray, lambda span: tensor(span, device="cpu"))
    return tensor(ndarray, device="cpu")


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """data as a tensor (torch.as_tensor): a glassgrad.Tensor of that dtype and device is returned
    as it is, anything else converted as glassgrad.tensor does."""
    if isinstance(data, Tensor):
        out = data.astype(dtype) if dtype is not None else data
        return out.to(device) if device is not None else out
    if isinstance(data, np.ndarray):
        _numpy_arrays.check(data, "glassgrad.as_tensor")
        _numpy_arrays.warn_if_not_writable(data)
        if _numpy_strides.applies(data):  # its strides kept (its dtype's), as PyTorch's; another dtype's copy: clone's layout
            kept = _numpy_strides.viewed(data, lambda span: tensor(span, device=device))
            return kept if dtype is None or _dtypes.plain(_dtypes.to_dtype(dtype)) == kept._h.dtype else \
                kept.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
                  pin_memory=False) -> Tensor:
    """A 0-d tensor holding s (torch.scalar_tensor; float32 unless dtype says otherwise)."""
    return full((), s, dtype=dtype or _dtypes.DEFAULT_FLOAT, device=device, requires_grad=requires_grad)


# ---- Tensor.new_* --------------------------------------------------------------------------------
@_method_size_keyword
def new_zeros(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False, layout=None,
              pin_memory=False) -> Tensor:
    """Zeros of `size` with this tensor's dtype and device unless given (Tensor.new_zeros)."""
    dt, dev = _like(self, dtype, device)
    return full(_shape_args(size, "new_zeros"), 0, dtype=dt, device=dev, requires_grad=requires_grad)


@_method_size_keyword
def new_ones(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False, layout=None,
             pin_memory=False) -> Tensor:
    """Ones of `size` with this tensor's dtype and device unless given (Tensor.new_ones)."""
    dt, dev = _like(self, dtype, device)
    return full(_shape_args(size, "new_ones"), 1, dtype=dt, device=dev, requires_grad=requires_grad)


@_method_size_keyword
def new_empty(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False, layout=None,
              pin_memory=False) -> Tensor:
    """Tensor.new_empty: zeros of `size` with this tensor's dtype and device."""
    return new_zeros(self, *size, dtype=dtype, device=device, requires_grad=requires_grad)


def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
             pin_memory=False) -> Tensor:
    """fill_value in `size` with this tensor's dtype and device unless given (Tensor.new_full)."""
    _sizes_given(size, fill_value, "new_full")
    dt, dev = _like(self, dtype, device)
    return full(size, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def new_empty_strided(self: Tensor, size, stride, dtype=None, device=None, requires_grad: bool = False, layout=None,
                      pin_memory=False) -> Tensor:
    """empty_strided with this tensor's dtype and device unless given (Tensor.new_empty_strided)."""
    dt, dev = _like(self, dtype, device)
    return empty_strided(size, stride, dtype=dt, device=dev, requires_grad=requires_grad)


def new_tensor(self: Tensor, data, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               pin_memory=False) -> Tensor:
    """A copy of data with this tensor's dtype and device unless given (Tensor.new_tensor)."""
    if isinstance(data, Tensor):
        warn_copy_construct("tensor.new_tensor")
    dt, dev = _like(self, dtype, device)
    return tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy that gradients flow through (torch.clone, as Tensor.clone)."""
    return input.clone(memory_format=memory_format)


def new(self: Tensor, *args, device=None) -> Tensor:
    """Tensor.new (legacy): x.new(*sizes) zeros, x.new(data) a copy, of this tensor's dtype and
    device; x.new() an empty one."""
    dt, dev = _like(self, None, device)
    shape = legacy_sizes(args, "Tensor.new")
    return tensor(args[0], dtype=dt, device=dev) if shape is None else full(shape, 0, dtype=dt, device=dev)


# ---- the legacy typed constructors: torch.FloatTensor(2, 3), torch.LongTensor([1, 2]) ----------
class _TypedTensorMeta(type):
    _dtype: "_dtypes.dtype"
    _cuda: bool

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls._dtype and obj.is_cuda == cls._cuda

    def __call__(cls, *args, size=None, device=None):
        """LongTensor([1, 2]) copies data; LongTensor(2, 3) or LongTensor(size=(2, 3)) gives zeros
        of that shape; LongTensor(storage) is the 1-d tensor over a storage of its dtype (sharing it)."""
        from .storage import TypedStorage
        if len(args) == 1 and isinstance(args[0], TypedStorage) and size is None and device is None:
            return _over_storage(cls, args[0])
        where = device or ("cuda" if cls._cuda else "cpu")
        shape = legacy_shape(args, size, cls.__name__)
        if shape is None:
            if isinstance(args[0], np.ndarray):  # refused and warned about as from_numpy's, as PyTorch's
                _numpy_arrays.check(args[0], f"glassgrad.{cls.__name__}")
                _numpy_arrays.warn_if_not_writable(args[0])
            return tensor(args[0], dtype=cls._dtype, device=where)
        return zeros(shape, dtype=cls._dtype, device=where)


def _over_storage(cls, storage) -> Tensor:
    """PyTorch's legacy constructor of a storage: the storage's elements as a 1-d tensor that
    shares them (a RuntimeError, PyTorch's words, for a storage of another dtype or device). The
    storage of a whole 1-d tensor (from_buffer's, FloatStorage(n)'s) is that tensor; another's is
    as_strided's view of it, which is a copy where _strided.py says it must be."""
    where = "cuda" if cls._cuda else "cpu"
    if storage.dtype != cls._dtype or storage.device.type != where:
        raise RuntimeError(f"Expected a Storage of type {cls._dtype} on {where}, but got type "
                           f"{storage.dtype} on {storage.device.type} for argument 1 'storage'\n  {cls.__name__}"
                           f"(storage)\n  fix: the constructor of the storage's dtype, e.g. "
                           f"{TENSOR_TYPE_NAMES[str(storage.dtype).split('.')[-1]]}(storage)")
    t, n = storage._tensor, storage.size()
    if t.ndim == 1 and t.numel() == n and t.storage_offset() == 0 and t.is_contiguous():
        return t
    return t.as_strided((n,), (1,), 0)


def _typed(name: str, dtype: str, cuda: bool = False):
    where = "a CUDA" if cuda else "a CPU"
    return _TypedTensorMeta(name, (), {"_dtype": DTYPES[dtype], "_cuda": cuda,
                                       "__doc__": f"torch.{'cuda.' if cuda else ''}{name}: {where} tensor of {dtype}; "
                                       f"{name}(data) copies data, {name}(*sizes) makes zeros."})


# torch.X and torch.cuda.X (glassgrad.cuda takes the CUDA ones from here).
_TYPED_NAMES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16",
                "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}
CUDA_TYPED = {name: _typed(name, dt, cuda=True) for name, dt in _TYPED_NAMES.items()}
FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, \
    BoolTensor = (_typed(name, dt) for name, dt in _TYPED_NAMES.items())


def set_default_tensor_type(t) -> None:
    """torch.set_default_tensor_type (deprecated since PyTorch 2.1, with its warning): a floating
    typed constructor or its name ('torch.FloatTensor', 'torch.cuda.DoubleTensor') sets the
    default dtype, and its device (CPU or CUDA) the default device."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        *where, name = t.split(".")
        if not where or where[0] not in ("torch", "glassgrad") or where[1:] not in ([], ["cuda"]) \
                or name not in _TYPED_NAMES:
            raise TypeError(f"set_default_tensor_type: invalid type {t!r}\n"
                            "  fix: set_default_tensor_type('torch.FloatTensor'), or set_default_dtype(torch.float32)")
        cuda = where[1:] == ["cuda"]
    elif isinstance(t, _TypedTensorMeta):
        name, cuda = t.__name__, t._cuda
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type\n"
                        f"  set_default_tensor_type: got {type(t).__name__}\n"
                        "  fix: set_default_tensor_type(torch.FloatTensor), or set_default_dtype(torch.float32)")
    dt = DTYPES[_TYPED_NAMES[name]]
    if not dt.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type\n  set_default_tensor_type: "
                        f"{name} holds {dt}\n  fix: set_default_tensor_type(torch.FloatTensor)")
    _device.set_default_device("cuda" if cuda else "cpu")
    _dtypes.set_default_dtype(dt)

__all__ = ["zeros", "ones", "empty", "empty_strided", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
           "linspace", "logspace", "eye", "rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
           "randperm", "normal", "bernoulli", "multinomial", "from_numpy", "as_tensor", "scalar_tensor", "FloatTensor",
           "DoubleTensor", "LongTensor", "ByteTensor", "BoolTensor", "HalfTensor", "BFloat16Tensor", "IntTensor",
           "ShortTensor", "CharTensor", "clone", "set_default_tensor_type"]
