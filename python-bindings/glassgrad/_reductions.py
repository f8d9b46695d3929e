"""PyTorch's reductions (torch.sum, torch.mean, torch.prod, torch.max, torch.amin, torch.norm,
torch.logsumexp, torch.std, torch.all, ...), each also the Tensor method of the same name, with
PyTorch's dtypes and subgradients:

- a sum (and a prod) of bool or integer elements is int64; `dtype=` converts the input first;
  the mean of integers is refused, as PyTorch refuses it;
- max/min over a dim return (values, indices) and give the whole gradient to the returned index;
  amax/amin and the full max/min share it evenly among ties;
- norm's gradient at a zero vector is 0.

Kernel-backed: Sum, Mean, Max, ArgMax, Var (reduction.cpp); the rest is composed from them.
The scans and sorts (cumsum, sort, topk, median) are in _scans.py.
"""
from __future__ import annotations

import builtins
import math
import warnings
from typing import Optional

from . import _C, _autocast, _dtypes, _math, _output_numbers, _trace
from ._dtypes import DTYPES
from ._math import (absolute, as_operand, constant, eq, exp, is_number, log, logical_not, maximum, minimum, mul, ne, sqrt,
                    sub)
from ._args import ABSENT, InvalidArgumentTypeError, dim_list, tensor_number, whole_input_dim
from ._inplace import _type_name
from ._spatial import cat
from ._tensor import Tensor, _dim, _op
from ._torch_operands import named_node, node_attrs
from ._numpy_names import accept_numpy_names
from ._out import write_out
from ._return_types import return_type



def dims_of(dim, x: Tensor, where: str) -> list:
    """dim (None, an int, or a tuple/list of ints) as a list of axes in [0, ndim), checked; [] for all."""
    dim = dim_list(dim, where)
    if dim is None:
        return []
    ds = [dim] if not isinstance(dim, (tuple, list)) else list(dim)
    n = builtins.max(x.ndim, 1)
    out = [_dim(d, n, where, x.shape) for d in ds]
    if len(set(out)) != len(out):
        raise _C.InvalidArgumentError(f"{where}: dim {tuple(ds)} names an axis twice\n  fix: name each axis once")
    return [d for d in out] if x.ndim else []


def _integral_to_int64(x: Tensor, dtype) -> Tensor:
    if dtype is not None:
        return x.astype(dtype)
    return x if x.dtype.is_floating_point else x.astype(DTYPES["int64"])


@_autocast.op("sum")
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum over dim (all elements for None) (torch.sum); bool and integer elements sum to int64."""
    x = _integral_to_int64(input, dtype)
    if x.dtype in ("bool", "uint8"):  # no Sum kernel: summed in int64, where uint8 wraps the same
        total = _op("Sum", [x.astype(DTYPES["int64"])], {"dims": dims_of(dim, x, "sum"),
                                                         "keepdim": builtins.bool(keepdim)})
        # dtype=torch.bool: a sum in bool is an or (PyTorch's)
        return ne(total, 0) if x.dtype == "bool" else total.astype(x.dtype)
    return _op("Sum", [x], {"dims": dims_of(dim, x, "sum"), "keepdim": builtins.bool(keepdim)})


_sum = sum  # the module's own sum, under a name that is no builtin's


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum with NaNs counted as zero (torch.nansum)."""
    x = input
    if x.dtype.is_floating_point:
        x = _op("Where", [ne(x, x), constant(0, x.dtype, x.device), x])
    return named_node(_sum(x, dim, keepdim, dtype=dtype), "NansumBackward0", input)


def _float_or_refuse(x: Tensor, dtype, where: str) -> Tensor:
    if dtype is not None:
        x = x.astype(dtype)
    if not x.dtype.is_floating_point:
        raise _C.DTypeError(f"{where}(): could not infer output dtype: the input is {x.dtype}, a {where} needs a "
                            f"floating point tensor (as in PyTorch)\n  fix: x.float().{where}(...) or "
                            f"x.{where}(dtype=glassgrad.float32)")
    return x


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean over dim (torch.mean); a floating input (or dtype=) as in PyTorch."""
    x = _float_or_refuse(input, dtype, "mean")
    if x.numel() == 0:  # the engine's Mean refuses an empty input: PyTorch's NaN (or an empty result)
        return _math.add(_sum(x, dims_of(dim, x, "mean") or None, keepdim), math.nan)
    return _op("Mean", [x], {"dims": dims_of(dim, x, "mean"), "keepdim": builtins.bool(keepdim)})


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean over dim with NaNs left out (torch.nanmean); the input itself must be floating,
    dtype= or not (PyTorch checks it first)."""
    _float_or_refuse(input, None, "nanmean")
    x = _float_or_refuse(input, dtype, "nanmean")
    kept = logical_not(ne(x, x))
    return nansum(x, dim, keepdim) / _sum(kept, dim, keepdim).astype(x.dtype)


def _correction(unbiased, correction, where: str):
    if correction is not None:  # a number (PyTorch's Scalar): 1.5 stays 1.5
        return int(correction) if float(correction).is_integer() else float(correction)
    if unbiased is None:
        return 1
    if not isinstance(unbiased, builtins.bool):
        raise _C.InvalidArgumentError(f"{where}: unbiased must be True or False, got {unbiased!r}")
    return 1 if unbiased else 0


def _var_args(dim, unbiased, keepdim):
    """PyTorch's old positional form var(x, unbiased) (a bool in dim's place)."""
    if isinstance(dim, builtins.bool):
        return None, dim, keepdim
    return dim, unbiased, keepdim


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """sum((x - mean)^2) / max(0, N - correction) over dim (torch.var); correction defaults to 1
    (unbiased=False means 0)."""
    return _var(input, dim, unbiased, keepdim, correction, None)


def _var(input: Tensor, dim, unbiased, keepdim: bool, correction, node: Optional[str]) -> Tensor:
    """var, its result named as PyTorch's node `node` when given (var_mean's)."""
    dim, unbiased, keepdim = _var_args(dim, unbiased, keepdim)
    x = _float_or_refuse(input, None, "var")
    dims = dims_of(dim, x, "var")
    corr = _correction(unbiased, correction, "var")
    count = math.prod(x.shape[d] for d in dims) if dims else x.numel()
    if count - corr <= 0 and corr > 0:
        # No degrees of freedom: the engine's Var divides by max(0, N - correction) as PyTorch
        # (NaN where every deviation is 0, inf elsewhere); PyTorch's warning says why.
        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=_trace.user_stacklevel())
    if x.numel() == 0:  # the engine's Var, as its Mean, refuses an empty input: PyTorch's NaN (or empty)
        return mul(_sum(x, dims or None, keepdim), math.nan)
    if isinstance(corr, float):
        # the engine's Var takes whole corrections: the population variance (correction 0) scaled
        # by N / (N - correction), inf past the degrees of freedom (NaN where it is 0) as PyTorch's
        scale = count / (count - corr) if count - corr > 0 else math.inf
        population = _op("Var", [x], {"dims": dims, "keepdim": builtins.bool(keepdim), "correction": 0})
        return _op("Mul", [population, constant(scale, x.dtype, x.device)], _named(x, node) if node else {})
    attrs = {"dims": dims, "keepdim": builtins.bool(keepdim), "correction": corr}
    return _op("Var", [x], {**attrs, **_named(x, node)} if node else attrs)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """sqrt(var) (torch.std), with var's correction."""
    return _std(input, dim, unbiased, keepdim, correction, "StdBackward0")


def _std(input: Tensor, dim, unbiased, keepdim: bool, correction, node: str) -> Tensor:
    v = var(input, dim, unbiased, keepdim, correction=correction)
    if not v.requires_grad:
        return v.sqrt()
    # PyTorch's std_backward gives 0 where the std is 0 (constant values), not sqrt's 0 * inf = nan:
    # sqrt(where(v == 0, 1, v)) keeps that slope out, as norm's
    zero = eq(v, 0)
    inputs = [zero, constant(0, v.dtype, v.device),
              sqrt(_op("Where", [zero, constant(1, v.dtype, v.device), v]))]
    return _op("Where", inputs, node_attrs(node, inputs, input))


def _mean_named(input: Tensor, dim, keepdim: bool, node: str) -> Tensor:
    """mean over dim, named as PyTorch's node `node` (std_mean's and var_mean's second result)."""
    x = _float_or_refuse(input, None, "mean")
    if x.numel() == 0 or not x._h.requires_grad:
        return mean(input, dim, keepdim)
    return _op("Mean", [x], {"dims": dims_of(dim, x, "mean"), "keepdim": builtins.bool(keepdim), "torch_node": node})


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(var, mean) over dim (torch.var_mean), with var's correction; both named as PyTorch's one
    node VarMeanBackward0."""
    dim, unbiased, keepdim = _var_args(dim, unbiased, keepdim)
    node = "VarMeanBackward0"
    # a plain tuple, as PyTorch's (torch.var_mean has no return_types entry)
    return _output_numbers.number((_var(input, dim, unbiased, keepdim, correction, node),
                                   _mean_named(input, dim, keepdim, node)))


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """(std, mean) over dim (torch.std_mean), with std's correction; both named as PyTorch's one
    node StdMeanBackward0."""
    dim, unbiased, keepdim = _var_args(dim, unbiased, keepdim)
    node = "StdMeanBackward0"
    # a plain tuple, as PyTorch's (torch.std_mean has no return_types entry)
    return _output_numbers.number((_std(input, dim, unbiased, keepdim, correction, node),
                                   _mean_named(input, dim, keepdim, node)))


# ---- extrema ------------------------------------------------------------------------------------
def _orderable(x: Tensor) -> Tensor:
    """bool and the integer types narrower than int64 compared as int64 (the Max kernels take
    numbers; a negated uint8 would wrap, and so would int8's -128 as int8)."""
    return x.astype(DTYPES["int64"]) if x.dtype in ("bool", "uint8", "int8", "int16", "int32") else x


class EmptyReductionError(_C.GlassgradIndexError, RuntimeError):
    """A max/min/argmax/median over a dim of size 0, or over every element of an empty tensor:
    there is no identity to give (PyTorch raises an IndexError or a RuntimeError for these)."""


def check_reduced_sizes(x: Tensor, dims: list, name: str) -> None:
    """Raises unless every reduced dim of x has elements (every dim for dims == [])."""
    if x.numel() and x.ndim:
        return
    if not dims and x.numel() == 0:
        raise EmptyReductionError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0 "
                                  f"(shape {list(x.shape)}): the operation has no identity\n"
                                  f"  fix: pass dim= over non-empty dims, or check x.numel() first")
    for d in dims:
        if x.shape[d] == 0:
            raise EmptyReductionError(f"{name}(): Expected reduction dim {d} to have non-zero size (shape "
                                      f"{list(x.shape)}): the operation has no identity\n"
                                      f"  fix: reduce over a non-empty dim, or check x.shape[{d}] first")


def _amax(input: Tensor, dim, keepdim, name: str, node: str = "") -> Tensor:
    """amax; node: PyTorch's node for Tensor.grad_fn (AmaxBackward0, MaxBackward1 for max())."""
    x = _orderable(input)
    dims = dims_of(dim if dim != () else None, x, name)
    check_reduced_sizes(x, dims, name)
    if x.numel() == 0:  # every reduced dim has elements, so the result is empty too
        return _sum(x, dims, keepdim).astype(input.dtype)
    attrs = {"dims": dims, "keepdim": builtins.bool(keepdim)}
    if node and x._h.requires_grad:
        attrs["torch_node"] = node
    return _op("Max", [x], attrs).astype(input.dtype)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The largest element over dim (all for ()) (torch.amax); ties share the gradient evenly."""
    return _amax(input, dim, keepdim, "amax", "AmaxBackward0")


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The smallest element over dim (torch.amin): -amax(-x), ties sharing the gradient evenly."""
    return _amin(input, dim, keepdim, "AminBackward0")


def _amin(input: Tensor, dim, keepdim, node: str) -> Tensor:
    x = _orderable(input)
    smallest = _amax(_op("Neg", [x]), dim, keepdim, "amin")
    return _op("Neg", [smallest], {"torch_node": node} if x._h.requires_grad else {}).astype(input.dtype)


def _argmax(input: Tensor, dim, keepdim, name: str) -> Tensor:
    x = _orderable(input)
    if dim is None:
        check_reduced_sizes(x, [], name)
        out = _op("ArgMax", [x.reshape(-1)], {"dim": 0, "keepdim": False})
        return out.reshape([1] * input.ndim) if keepdim else out
    d = _dim(dim, builtins.max(x.ndim, 1), name, x.shape)
    if x.ndim == 0:  # a 0-d input is its own only element (dim 0 or -1)
        return constant(0, DTYPES["int64"], x.device)
    check_reduced_sizes(x, [d], name)
    return _op("ArgMax", [x], {"dim": d, "keepdim": builtins.bool(keepdim)})


def _refuse_bool(input: Tensor, name: str) -> None:
    if input.dtype == "bool":
        raise _C.UnsupportedError(f"{name}(): does not support bool input (as in PyTorch)\n"
                            f"  fix: x.long().{name}(...), or x.nonzero() for the positions of True")


def argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """The index of the first largest element along dim, or of the flattened input (torch.argmax)."""
    _refuse_bool(input, "argmax")
    return _argmax(input, dim, keepdim, "argmax")


def argmin(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """The index of the first smallest element (torch.argmin): argmax of -x."""
    _refuse_bool(input, "argmin")
    return _argmax(_op("Neg", [_orderable(input)]), dim, keepdim, "argmin")


def _at_index(x: Tensor, index: Tensor, d: int, keepdim: bool, node: str) -> Tensor:
    """x's elements at `index` (int64, x's shape with dim d of size 1) along d: the selected
    elements, so that a gradient reaches exactly those (max/min over a dim), named as PyTorch's
    node `node` for Tensor.grad_fn."""
    n = x.shape[d]
    iota = as_operand(list(range(n)), DTYPES["int64"], x.device).reshape([n] + [1] * (x.ndim - 1 - d))
    picked = _op("Where", [eq(index, iota), x, constant(0, x.dtype, x.device)])
    if x.dtype.is_floating_point:
        return _op("Sum", [picked], {"dims": [d], "keepdim": builtins.bool(keepdim), "torch_node": node})
    return _sum(picked, d, keepdim).astype(x.dtype)


def shared_by_ties(flat: Tensor, value: Tensor) -> Tensor:
    """value (a detached order statistic of the 1-d flat) with the gradient shared evenly by the
    elements equal to it, as PyTorch's median, nanmedian, max and min over every element: the value
    stays exactly v, as v + (s - s) / count, s the sum of those elements. A NaN result is shared by the
    NaN elements (PyTorch's too: the median of a row holding NaN is NaN, its gradient theirs)."""
    if not flat.requires_grad:
        return value
    tied = eq(flat, value)
    if flat.dtype.is_floating_point:
        tied = _math.logical_or(tied, _math.logical_and(_math.isnan(flat), _math.isnan(value)))
    s = _op("Sum", [_op("Where", [tied, flat, as_operand(0, flat.dtype, flat.device)])], {"dims": [], "keepdim": False})
    count = _op("Sum", [tied.astype(flat.dtype)], {"dims": [], "keepdim": False})
    return value + (s - s.detach()) / count  # type: ignore[operator]  # Tensor's operators are attached at import


def _extremum(input: Tensor, dim, keepdim, other, largest: builtins.bool, name: str):
    if isinstance(dim, Tensor):  # max(x, y): the elementwise maximum
        other, dim = dim, ABSENT
    if other is not None:
        return (maximum if largest else minimum)(input, other)
    if whole_input_dim(dim, keepdim, name):
        node = "MaxBackward1" if largest else "MinBackward1"
        if input.requires_grad and input.dtype.is_floating_point and _C.grad_enabled():
            # PyTorch's evenly_distribute_backward: ties share the gradient, and a NaN result is
            # shared by the NaN elements (Max's own gradient, as amax's, is NaN there)
            flat = input.reshape(-1)
            check_reduced_sizes(input, [], name)
            value = _amax(flat.detach(), (), False, name) if largest else _amin(flat.detach(), (), False, "")
            return named_node(shared_by_ties(flat, value), node, input)
        return _amax(input, (), False, "max", node) if largest else _amin(input, (), False, node)
    d = _dim(dim, builtins.max(input.ndim, 1), name, input.shape)
    if input.ndim == 0:
        return return_type(name)(input, constant(0, "int64", input.device))
    check_reduced_sizes(input, [d], name)
    x = _orderable(input)
    index = _argmax(x if largest else _op("Neg", [x]), d, True, name)
    if input.requires_grad:
        values = _at_index(input, index, d, keepdim, "MaxBackward0" if largest else "MinBackward0")
    else:
        values = amax(input, d, keepdim) if largest else amin(input, d, keepdim)
    return return_type(name)(values, index if keepdim else index.squeeze(d))


def _extremum_out(result, out, name: str):
    """out= of max/min (PyTorch's): a tensor for max(x) and max(x, y), a pair (values, indices)
    for max(x, dim), written in place and returned."""
    if out is None:
        return result
    if isinstance(result, Tensor):
        return write_out(out, result, name)
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{name}(): with dim, out must be a pair (values, indices) of tensors, got "
                        f"{type(out).__name__}\n  fix: {name}(x, dim, out=(values, indices)) with indices int64")
    # PyTorch's: with dim, values and indices must have the result's dtypes
    return return_type(name)(write_out(out[0], result[0], name, same_dtype=True),
                          write_out(out[1], result[1], name, same_dtype=True))


def max(input: Tensor, dim=ABSENT, keepdim: bool = False, *, other=None, out=None):
    """torch.max: max(x) the largest element (ties share the gradient); max(x, dim, keepdim) the
    named tuple (values, indices), the gradient going to the returned index; max(x, y) is
    maximum(x, y). out=: a tensor, or (values, indices) with dim. dim=None is PyTorch's
    TypeError."""
    return _extremum_out(_extremum(input, dim, keepdim, other, True, "max"), out, "max")


def min(input: Tensor, dim=ABSENT, keepdim: bool = False, *, other=None, out=None):
    """torch.min, as max."""
    return _extremum_out(_extremum(input, dim, keepdim, other, False, "min"), out, "min")


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    """(min, max) over dim (an int), or over every element for None (torch.aminmax)."""
    dims = () if dim is None else _dim(dim, builtins.max(input.ndim, 1), "aminmax", input.shape)
    return return_type("aminmax", ("min", "max"))(amin(input, dims, keepdim), amax(input, dims, keepdim))


# ---- composed reductions ------------------------------------------------------------------------
@_autocast.op("logsumexp")
def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over dim, computed stably as m + log(sum(exp(x - m))), m the (detached)
    maximum, infinite maxima replaced by 0 (torch.logsumexp); its gradient is softmax(x)."""
    if dim is None:  # PyTorch's int[1] dim without a default: () for every element, as PyTorch's
        raise InvalidArgumentTypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType\n  fix: "
                                       "dim=() (or every axis, tuple(range(x.ndim))) for every element")
    x = input if input.dtype.is_floating_point else input.astype(_dtypes.DEFAULT_FLOAT)
    dims = dims_of(dim, x, "logsumexp")
    if x.numel() == 0:  # log(0) over empty dims, an empty result otherwise
        return _math.add(_sum(x, dims or None, keepdim), -math.inf)
    m = amax(x, dims if dims else (), keepdim=True).detach()
    m = _op("Where", [eq(absolute(m), math.inf), constant(0, x.dtype, x.device), m])
    named = _named(x, "LogsumexpBackward0")
    total = log(_sum(exp(sub(x, m)), dims, keepdim=True))
    if keepdim:
        return _op("Add", [total, m], named)
    shape = [n for i, n in enumerate(x.shape) if dims and i not in dims]
    return _op("Reshape", [total + m], {"shape": shape, **named})


def _listed(op: str, inputs: list, node: str, operand: Tensor, **attrs) -> Tensor:
    """op recorded as PyTorch's node `node` of operand (Tensor.grad_fn, next_functions), the
    last op of a composite."""
    return _op(op, inputs, {**attrs, **node_attrs(node, inputs, operand)})


def _named(x: Tensor, node: str) -> dict:
    """The attributes naming PyTorch's node (Tensor.grad_fn) on a composite's last op: only for a
    result that requires grad, so the plain path records no extra attribute."""
    return {"torch_node": node} if x._h.requires_grad else {}


@_autocast.op("norm")
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The p-norm over dim (torch.norm): 'fro' and 2 the Euclidean norm (its gradient 0 at a zero
    vector, as PyTorch's), 1, inf, -inf, 0 (the count of nonzeros) or any other number."""
    return _norm(input, p, dim, keepdim, dtype, "LinalgVectorNormBackward0")


def no_narrowing(x: Tensor, dtype, where: str) -> None:
    """PyTorch's RuntimeError for a dtype= that x's dtype does not promote to (float64 to float32,
    float16 to bfloat16): a norm's dtype may widen its input, never narrow it."""
    if dtype is None:
        return
    want = _dtypes.to_dtype(dtype)
    # a dtype that is not floating is refused first, by each norm's own check, as PyTorch orders them
    if want.is_floating_point and _dtypes.promote_types(x.dtype, want) != want:
        raise _C.InvalidArgumentError(
            f"{where}: the dtype of the input ({_type_name(x.dtype)}) should be convertible without narrowing to the "
            f"specified dtype ({_type_name(want)})\n  fix: dtype={x.dtype} or wider, or convert the result: "
            f"{where}(x).to({want})")


def _norm(input: Tensor, p, dim, keepdim: bool, dtype, node: str) -> Tensor:
    """norm, its result named as PyTorch's node `node` (the norm's, or dist's)."""
    p = tensor_number(p, "p", "dist" if node == "DistBackward0" else "norm")
    # an integer or bool input is refused, dtype= or not, as PyTorch refuses it
    if not input.dtype.is_floating_point:
        raise _C.UnsupportedError(f"norm: Expected a floating point tensor as input. Got {input.dtype} (shape "
                                  f"{list(input.shape)}), as in PyTorch\n  fix: x.float().norm(...)")
    no_narrowing(input, dtype, "linalg.vector_norm")
    x = input.astype(dtype) if dtype is not None else input
    if not x.dtype.is_floating_point:
        raise _C.UnsupportedError(f"norm: dtype must be a floating point type. Got {x.dtype}\n  fix: "
                                  f"dtype=torch.float32 or torch.float64")
    if x.dtype in ("float16", "bfloat16") and p != "nuc":
        # PyTorch accumulates a low-precision norm in float32 (its opmath type) and rounds the result
        # once: 10000 elements of 10 in float16 have the norm 1000, not inf from a float16 sum of squares
        return named_node(_norm(x.astype(DTYPES["float32"]), p, dim, keepdim, None, node).astype(x.dtype), node, input)
    if p == "nuc":  # the nuclear norm of the matrices over two dims (all of a 2-d input by default)
        from .linalg import matrix_norm
        dims = dims_of(dim, x, "norm") if dim is not None else list(range(x.ndim))
        if len(dims) != 2:
            raise _C.InvalidArgumentError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}"
                                          f"\n  norm: p='nuc' is a matrix norm, the input has shape {list(x.shape)}"
                                          f"\n  fix: name the two matrix dims, e.g. dim=(-2, -1)")
        return matrix_norm(x, "nuc", dim=tuple(dims), keepdim=keepdim)
    dims = dims_of(dim, x, "norm")
    if is_number(p) and float(p) < 0 and 0 in ([x.shape[d] for d in dims] if dims else [x.numel()]):
        raise _C.InvalidArgumentError(f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because the "
                                      f"operation does not have an identity\n  norm: a negative p reduces by a "
                                      f"minimum, and dims {dims or 'all'} of shape {list(x.shape)} are empty\n  fix: "
                                      f"check the input's size first, or use p >= 0")
    if p in ("fro", 2, 2.0, None):
        s = _sum(mul(x, x), dims, keepdim)
        zero = eq(s, 0)
        # sqrt(where(s == 0, 1, s)) keeps sqrt's infinite slope at 0 out of the gradient
        safe = _op("Where", [zero, constant(1, s.dtype, s.device), s])
        return _listed("Where", [zero, constant(0, s.dtype, s.device), sqrt(safe)], node, input)
    if p in (math.inf, "inf"):
        return amax(absolute(x), dims if dims else (), keepdim)
    if p in (-math.inf, "-inf"):
        return amin(absolute(x), dims if dims else (), keepdim)
    if p == 0:
        count = _sum(ne(x, 0), dims, keepdim).astype(x.dtype)
        if not x._h.requires_grad:
            return count
        # PyTorch's count is in the graph (grad_fn LinalgVectorNormBackward0, backward() runs) and
        # its gradient is undefined: x gets none from it (.grad stays None, autograd.grad's entry
        # is None). where(True, count, sum(x)) has the count's values; `undefined_gradient` makes
        # the engine pass nothing on through it (docs/architecture.md, "Undefined gradients")
        return _listed("Where", [constant(True, DTYPES["bool"], x.device), count, _sum(x, dims, keepdim)], node, input,
                       undefined_gradient=True)
    if p == 1:
        return _listed("Sum", [absolute(x)], node, input, dims=dims, keepdim=builtins.bool(keepdim))
    if is_number(p) and float(p) > 0:
        # PyTorch's gradient is 0 at a zero element and at a zero vector: where(a == 0, 1, a) and
        # where(s == 0, 1, s) keep the powers' infinite slopes at 0 out of it (0 * inf = nan)
        a = absolute(x)
        one = constant(1, x.dtype, x.device)
        zero_a = eq(a, 0)
        powers = _op("Where", [zero_a, constant(0, x.dtype, x.device), _op("Where", [zero_a, one, a]) ** float(p)])
        s = _sum(powers, dims, keepdim)
        zero = eq(s, 0)
        root = _op("Where", [zero, one, s]) ** (1.0 / float(p))
        return _listed("Where", [zero, constant(0, s.dtype, s.device), root], node, input)
    if is_number(p):
        return _sum(absolute(x) ** float(p), dims, keepdim) ** (1.0 / float(p))
    raise _C.InvalidArgumentError(f"norm: p must be 'fro', a number, inf or -inf, got {p!r}")


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether every element over dim is nonzero (torch.all): bool, or uint8 for uint8 input as
    PyTorch keeps it."""
    nonzero = ne(input, False if input.dtype == "bool" else 0)
    if _no_axes(dim):
        return _as_input_if_uint8(nonzero, input)
    zeros = _sum(logical_not(nonzero), dim, keepdim)
    return _as_input_if_uint8(eq(zeros, 0), input)


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether some element over dim is nonzero (torch.any): bool, or uint8 for uint8 input."""
    nonzero = ne(input, False if input.dtype == "bool" else 0)
    if _no_axes(dim):
        return _as_input_if_uint8(nonzero, input)
    return _as_input_if_uint8(ne(_sum(nonzero, dim, keepdim), 0), input)


def _no_axes(dim) -> bool:
    """dim=() for all/any: PyTorch reduces over no axis there (each element tested alone), where
    sum and mean take () as every axis."""
    return isinstance(dim, (tuple, list)) and not dim


def _as_input_if_uint8(result: Tensor, input: Tensor) -> Tensor:
    return result.astype(DTYPES["uint8"]) if input.dtype == "uint8" else result


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """The number of nonzero elements over dim (torch.count_nonzero), int64."""
    return _sum(ne(input, False if input.dtype == "bool" else 0), dim)


@_autocast.op("prod")
def prod(input: Tensor, dim=ABSENT, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The product over dim, or of every element when dim is left out (torch.prod; dim=None is
    its TypeError); integers multiply in int64. Computed as a tree of pairwise products (halving
    the axis each level, a 1 padding an odd length), so its gradient is exact with zeros among
    the factors."""
    whole = whole_input_dim(dim, keepdim, "prod")
    x = _integral_to_int64(input, dtype)
    if whole:
        if x.ndim == 0:
            return x
        out = _prod(x.reshape(-1), 0)  # x is in its final dtype already
        return _op("Reshape", [out], {"shape": [], **_named(out, "ProdBackward0")})
    d = _dim(dim, builtins.max(x.ndim, 1), "prod", x.shape)  # a 0-d input takes 0 and -1 only
    if x.ndim == 0:
        return x
    out = _prod(x, d)
    if keepdim:
        return out if not out._h.requires_grad else _op("Reshape", [out], {"shape": list(out.shape),
                                                                            "torch_node": "ProdBackward1"})
    shape = [n for i, n in enumerate(out.shape) if i != d]
    return _op("Reshape", [out], {"shape": shape, **_named(out, "ProdBackward1")})


def _prod(x: Tensor, d: int) -> Tensor:
    """The product over axis d of x (ndim >= 1) by the pairwise tree, d kept with size 1."""
    while x.shape[d] > 1:
        n = x.shape[d]
        if n % 2:
            pad_shape = list(x.shape)
            pad_shape[d] = 1
            x = cat([x, constant(1, x.dtype, x.device).expand(pad_shape)], d)
            n += 1
        shape = list(x.shape[:d]) + [n // 2, 2] + list(x.shape[d + 1:])
        pairs = x.reshape(shape)
        first = pairs[(slice(None),) * (d + 1) + (0,)]
        second = pairs[(slice(None),) * (d + 1) + (1,)]
        x = mul(first, second)
    if x.shape[d] == 0:
        ones = list(x.shape)
        ones[d] = 1
        one = constant(1, x.dtype, x.device).expand(ones)
        # the empty product, 1, plus an empty sum, so that its (zero) gradient reaches x as PyTorch's
        x = _math.add(_sum(x, [d], True, dtype=x.dtype), one) if x.requires_grad else one
    return x


@_autocast.op("dist")
def distance_norm(d: Tensor, p, dim: int) -> Tensor:
    """d's p-norm over dim as cdist's and pdist's: at p=0 PyTorch's CdistBackward0 and
    PdistBackward0 give a zero gradient, where vector_norm's is undefined (norm above)."""
    if p != 0 or not d._h.requires_grad:
        return norm(d, p, dim)
    count = norm(d.detach(), 0, dim)
    return _op("Where", [constant(True, DTYPES["bool"], d.device), count, _sum(d, dim)])


def dist(input: Tensor, other, p=2) -> Tensor:
    """The p-norm of input - other, broadcast (torch.dist)."""
    return _norm(sub(input, other), p, None, False, None, "DistBackward0")


@_autocast.op("renorm")
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice of input along dim (input.select(dim, i)) whose p-norm exceeds maxnorm scaled
    down to norm maxnorm (torch.renorm: by maxnorm / (norm + 1e-7)); the gradient goes through
    the norm too, as PyTorch's."""
    if input.ndim < 2:
        raise _C.ShapeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions (shape "
                            f"{list(input.shape)}), as in PyTorch\n  fix: x.reshape(1, -1) (the whole vector one slice)")
    if not input.dtype.is_floating_point:
        raise _C.DTypeError(f"renorm: the input must be floating point, got {input.dtype}\n  fix: x.float()")
    if not is_number(p) or p <= 0:
        raise _C.InvalidArgumentError(f"renorm: non-positive-norm not supported, got p={p}\n  fix: p=2")
    if not is_number(maxnorm) or maxnorm < 0:
        raise _C.InvalidArgumentError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}\n  fix: maxnorm=1.0")
    d = _dim(dim, input.ndim, "renorm", input.shape)
    others = [a for a in range(input.ndim) if a != d]
    norms = norm(input, p, others, keepdim=True) if others else absolute(input)
    over = _op("Greater", [norms, constant(maxnorm, norms.dtype, norms.device)])
    shrink = _math.div(constant(maxnorm, norms.dtype, norms.device), _math.add(norms, 1e-7))
    scale = _op("Where", [over, shrink, constant(1, norms.dtype, norms.device)])
    return mul(input, scale)


__all__ = ["sum", "nansum", "mean", "nanmean", "var", "std", "var_mean", "std_mean", "amax", "amin", "argmax",
           "argmin", "max", "min", "aminmax", "logsumexp", "norm", "all", "any", "count_nonzero", "prod", "dist", "renorm"]


# axis= and keepdims= as PyTorch accepts them (_numpy_names.py)
accept_numpy_names(globals(), __all__)
