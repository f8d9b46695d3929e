"""PyTorch's scans and sorts: torch.cumsum, cumprod, sort, argsort, msort, topk, kthvalue and
median, each also the Tensor method of the same name. Kernel-backed by the scan family
(CumSum, CumProd, Sort, TopK: autodiff-engine/src/ops/scan.cpp). Composed from those: the
running scans logcumsumexp, cummax and cummin (log2(n) steps of a Hillis-Steele scan), and the
order statistics nanmedian, quantile, nanquantile and mode.

dtypes as PyTorch's: a cumsum or cumprod of bool or integer elements is int64; sort and topk keep
the input's dtype and give int64 indices. NaN sorts as the largest value (last ascending, first
descending), and ties keep their input order when stable=True. The gradient of sorted or top-k
values reaches the elements they came from; cumprod's is exact with zeros among the factors.
"""
from __future__ import annotations

import builtins
import functools
import math
from typing import Optional

import numpy as np

from . import _C, _args, _autocast, _math, _shapes
from ._dtypes import DTYPES, plain
from ._indexing import gather
from ._math import as_operand, eq
from ._shapes import stack
from ._spatial import cat
from ._cpu_tie_order import all_nan_median_index, kth_indices, mode_index, topk_indices
from ._reductions import _at_index, _refuse_bool, check_reduced_sizes, shared_by_ties
from ._tensor import Tensor, _NP, _dim, _op, _op_multi, tensor
from ._numpy_names import accept_numpy_names
from ._return_types import return_type

_SORTABLE = ("float32", "float64", "int64")


def _axis(dim, x: Tensor, where: str) -> int:
    """dim checked against x (a 0-d input takes 0 and -1, as PyTorch's), as an axis in [0, ndim)."""
    d = _dim(dim, builtins.max(x.ndim, 1), where, x.shape)
    return d if x.ndim else 0


def _scan(op: str, input: Tensor, dim, dtype, where: str) -> Tensor:
    x = input.astype(dtype) if dtype is not None else input
    d = _axis(dim, x, where)
    if x.dtype == "bool" and dtype is not None:
        if x.ndim and x.numel():  # a 0-d or empty one is only converted, as PyTorch's
            raise _C.UnsupportedError(f"{where}: not implemented for dtype=bool (as in PyTorch)\n"
                                      f"  fix: dtype=torch.int64, then compare: x.{where}(0) > 0")
        return x
    out_dtype = x.dtype if dtype is not None else None  # an integer dtype= is the result's, wrapping
    if not x.dtype.is_floating_point and x.dtype != "int64":
        x = x.astype(DTYPES["int64"])
    if x.ndim == 0:
        out = _op(op, [x.reshape(1)], {"dim": 0}).reshape([])
    else:
        out = _op(op, [x], {"dim": d})
    return out.astype(out_dtype) if out_dtype is not None and out_dtype != out.dtype else out


@_autocast.op("cumsum")
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """The running sum along dim (torch.cumsum); bool and integer elements give int64."""
    return _scan("CumSum", input, dim, dtype, "cumsum")


@_autocast.op("cumprod")
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """The running product along dim (torch.cumprod); its gradient is exact where factors are 0."""
    return _scan("CumProd", input, dim, dtype, "cumprod")


def _sortable(x: Tensor) -> Tensor:
    """x in a type the sort kernels take, exactly: float16/bfloat16 as float32, bool and the
    narrower integer types as int64."""
    if plain(x.dtype) in _SORTABLE:
        return x
    return x.astype(DTYPES["float32" if x.dtype.is_floating_point else "int64"])


def _gathered(x: Tensor, indices: Tensor, d: int, values: Tensor, node: str) -> Tensor:
    """The values at `indices` along d, as a function of x when x needs a gradient, so that the
    gradient of each value reaches the element it came from: a one-hot selection
    (x [.., n, ..] against the k indices along a new axis), summed; named as PyTorch's node `node`
    (Tensor.grad_fn)."""
    if not x.requires_grad:
        return values
    n = x.shape[d]
    iota = as_operand(list(range(n)), DTYPES["int64"], x.device).reshape([n] + [1] * (x.ndim - d))
    # x: [.., n, 1, ..] against indices: [.., 1, k, ..] -> picked [.., n, k, ..], summed over n
    xs = x.unsqueeze(d + 1)
    hit = eq(indices.unsqueeze(d), iota)
    picked = _op("Where", [hit, xs, as_operand(0, x.dtype, x.device)])
    return _op("Sum", [picked], {"dims": [d], "keepdim": False, "torch_node": node})


def _stable_by_keyword(fn):
    """fn refusing stable= beside a positional dim or descending: PyTorch's overload with stable
    takes dim and descending by keyword only (sort(x, 0, stable=True) is its TypeError)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if "stable" in kwargs and len(args) > 1:
            raise _args.InvalidArgumentTypeError(
                f"{fn.__name__}() received an invalid combination of arguments: with stable=, dim and descending "
                f"are keywords\n  fix: {fn.__name__}(x, dim=..., descending=..., stable=...)")
        return fn(*args, **kwargs)
    return call


def _ties_in_input_order(input: Tensor, d: int, descending: bool) -> bool:
    """Whether PyTorch's CPU sort without stable=True keeps ties in their input order anyway: it
    leaves a line of stride 0 (an expanded input) as it is, and sorts a 1-d integer input of
    32768 elements or more ascending with a stable radix sort (aten SortingKernel.cpp,
    can_use_radix_sort); any other line goes through std::sort, which the CPU kernel replays."""
    if input.stride(d) == 0:
        return True
    integral = not input.dtype.is_floating_point and plain(input.dtype) != "bool"
    return input.ndim == 1 and integral and not descending and input.numel() >= 32768


@_stable_by_keyword
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False):
    """(values, indices) sorted along dim (torch.sort); NaN is the largest value. Ties keep their
    input order with stable=True; without it, on the CPU they end where PyTorch's CPU sort puts
    them (its std::sort moves ties in a line of more than 16), on a GPU in input order."""
    _args.flag(descending, "descending", "sort")
    x = _sortable(input)
    d = _axis(dim, x, "sort")  # a 0-d input takes dim 0 or -1 (PyTorch's IndexError else)
    if x.ndim == 0:
        return return_type("sort")(input, as_operand(0, DTYPES["int64"], input.device))
    attrs = {"dim": d, "descending": builtins.bool(descending)}
    if not (stable or _ties_in_input_order(input, d, descending)):
        attrs["stable"] = False
    values, indices = _op_multi("Sort", [x], attrs)
    values = _gathered(x, indices, d, values, "SortBackward0")
    return return_type("sort")(values.astype(input.dtype), indices)


@_stable_by_keyword
def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort input along dim (torch.argsort)."""
    return sort(input, dim=dim, descending=descending, stable=stable).indices


def msort(input: Tensor) -> Tensor:
    """input sorted along dim 0 (torch.msort)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The k largest (or smallest) elements along dim and their indices (torch.topk), in order
    (largest first) with NaN as the largest value."""
    _refuse_bool(input, "topk")
    x = _sortable(input)
    d = _axis(dim, x, "topk")
    n = x.shape[d] if x.ndim else 1
    k = _args.integer(k, "k", "topk", minimum=0, symint=True)
    if k > n:
        raise _args.OutOfRangeError(f"topk: k={k} is larger than dim {dim} of size {n} (shape {list(x.shape)})\n"
                                     f"  fix: k <= {n}")
    if x.ndim == 0:
        return return_type("topk")(input, as_operand(0, DTYPES["int64"], input.device))
    largest = _args.flag(largest, "largest", "topk")
    values, indices = _op_multi("TopK", [x], {"dim": d, "k": k, "largest": largest})
    if x.device.type == "cpu" and k:  # PyTorch's CPU kernel decides the order of ties (_cpu_tie_order)
        indices, replayed = _topk_tie_order(x, indices, d, k, largest, builtins.bool(sorted))
        if replayed:
            values = gather(x.detach(), d, indices)
    values = _gathered(x, indices, d, values, "TopkBackward0")
    return return_type("topk")(values.astype(input.dtype), indices)


def _topk_tie_order(x: Tensor, indices: Tensor, d: int, k: int, largest: bool, sorted_: bool):
    """(indices, whether any changed): the kernel's top-k indices with the rows PyTorch's CPU
    kernel orders otherwise (ties; any row unsorted) replayed on the host."""
    rows = np.moveaxis(x.detach().numpy(force=True), d, -1)
    found = np.moveaxis(indices.numpy(force=True), d, -1)
    flat = found.reshape(-1, k)
    chosen = topk_indices(rows.reshape(-1, rows.shape[-1]), flat, k, largest, sorted_)
    if np.array_equal(chosen, flat):
        return indices, False
    return tensor(np.moveaxis(chosen.reshape(found.shape), -1, d), dtype=DTYPES["int64"], device=x.device), True


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The k-th smallest element along dim and its index (torch.kthvalue, k counted from 1); a
    0-d input is its own only element (k=1)."""
    _refuse_bool(input, "kthvalue")
    if input.ndim == 0:
        values, indices = kthvalue(input.reshape(1), k, 0, keepdim=False)
        return return_type("kthvalue")(values, indices)
    x = _sortable(input)
    d = _axis(dim, x, "kthvalue")
    n = x.shape[d] if x.ndim else 1
    k = _args.integer(k, "k", "kthvalue", minimum=1)
    if k > n:
        raise _args.OutOfRangeError(f"kthvalue: k={k} is out of range for dim {dim} of size {n} (shape "
                                    f"{list(x.shape)})\n  fix: k in [1, {n}]")
    # PyTorch's CPU kernel decides which of equal elements is returned (_cpu_tie_order): on the host
    rows = np.moveaxis(x.detach().numpy(force=True), d, -1)
    chosen = kth_indices(rows.reshape(-1, n), k - 1).reshape(rows.shape[:-1] + (1,))
    index = tensor(np.moveaxis(chosen, -1, d), dtype=DTYPES["int64"], device=input.device)
    values = _at_index(input, index, d, keepdim, "KthvalueBackward0")
    return return_type("kthvalue")(values, _squeezed(index, d, keepdim))


def _pick(values: Tensor, indices: Tensor, d: int, i: int, keepdim: bool, name: str, node: str):
    pick = (slice(None),) * d + (slice(i, i + 1),)
    v, ix = values[pick], indices[pick]
    return _named_pair(name, node, _squeezed(v, d, keepdim), _squeezed(ix, d, keepdim))


def _squeezed(t: Tensor, d: int, keepdim: bool) -> Tensor:
    """t without its reduced axis d unless keepdim."""
    # (mypy does not see Tensor's methods attached to the class at import)
    return t if keepdim else t.squeeze(d)  # type: ignore[attr-defined]


def _named_pair(name: str, node: str, values: Tensor, indices: Tensor):
    """The (values, indices) result `name` with values recorded as PyTorch's node `node`."""
    return return_type(name)(_shapes.named_node(values, node), indices)


def median(input: Tensor, dim=_args.ABSENT, keepdim: bool = False):
    """The lower of the two middle values (torch.median): of every element when dim is left out
    (dim=None is PyTorch's TypeError), else (values, indices) along dim; the gradient goes to the
    median element. Refused for bool (as in PyTorch); NaN for an empty input without dim (an
    integer dtype holds NaN as the CPU converts it); a dim of size 0 raises."""
    whole = _args.whole_input_dim(dim, keepdim, "median")
    if not whole:  # PyTorch checks dim before the dtype: median(bool_x, 5) is its IndexError
        _axis(dim, input, "median")
    _refuse_bool(input, "median")
    if whole:
        flat = input.reshape(-1)
        if flat.shape[0] == 0:  # PyTorch fills NaN in the input's dtype
            if input.dtype.is_floating_point:
                return _math.add(flat.sum(), math.nan).astype(input.dtype)
            return as_operand(_nan_as_integer(input.dtype), input.dtype, input.device)
        value = sort(flat.detach(), 0).values[(flat.shape[0] - 1) // 2]
        if input.dtype.is_floating_point:  # a NaN anywhere makes the median NaN (nanmedian skips them)
            value = _op("Where", [_math.isnan(flat.detach()).any(), as_operand(math.nan, flat.dtype, flat.device), value])
        value = shared_by_ties(flat, value)
        return _shapes.named_node(value, "MedianBackward0")
    d = _axis(dim, input, "median")
    if input.ndim == 0:
        return return_type("median")(input, as_operand(0, DTYPES["int64"], input.device))
    check_reduced_sizes(input, [d], "median")
    s = sort(input, d)  # NaN last, in their order
    n = input.shape[d]
    if not input.dtype.is_floating_point:
        return _pick(s.values, s.indices, d, (n - 1) // 2, keepdim, "median", "MedianBackward1")
    # a row with a NaN gives NaN and the index of its first NaN (sorted position: the count of numbers)
    numbers = _math.logical_not(_math.isnan(input)).sum(d, keepdim=True)
    k = _op("Where", [_math.lt(numbers, n), numbers, as_operand((n - 1) // 2, DTYPES["int64"], input.device)])
    v, i = gather(s.values, d, k), gather(s.indices, d, k)
    return _named_pair("median", "MedianBackward1", _squeezed(v, d, keepdim), _squeezed(i, d, keepdim))


def _nan_as_integer(dtype) -> int:
    """NaN converted to an integer dtype as PyTorch's CPU kernels convert it (an x86 truncating
    conversion): the lowest int64 for int64, else the lowest int32 narrowed to the dtype's bits
    (0 for int16, int8 and uint8)."""
    if dtype == "int64":
        return int(np.iinfo(np.int64).min)
    return int(np.array(np.iinfo(np.int32).min, dtype=np.int64).astype(_NP[dtype]))


# ---- running extremes, log-sum-exp, and the order statistics built on sort ----------------------
def _shifted(x: Tensor, d: int, k: int, fill) -> Tensor:
    """x moved k places forward along d, the first k places holding fill (a tensor of x's shape)."""
    n = x.shape[d]
    head = fill[(slice(None),) * d + (slice(0, k),)]
    body = x[(slice(None),) * d + (slice(0, n - k),)]
    return cat([head, body], d)


def _running(x: Tensor, d: int, combine) -> list:
    """A Hillis-Steele scan along d: after the step of span k every position holds combine(the
    result over its previous k places, its own), so log2(n) steps give every prefix."""
    n = x.shape[d]
    k = 1
    while k < n:
        x = combine(x, k)
        k *= 2
    return x


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(x))) along dim without overflow (torch.logcumsumexp): a scan of
    logaddexp(a, b) = max(a, b) + log1p(exp(-|a - b|)), -inf where both are -inf. Refused for
    integers and bool, as in PyTorch (after dim's check: an out-of-range dim is its IndexError)."""
    _axis(dim, input, "logcumsumexp")
    if not input.dtype.is_floating_point:
        raise _C.UnsupportedError(f"logcumsumexp: not implemented for {input.dtype} (shape {list(input.shape)}), as "
                                  f"in PyTorch\n  fix: x.float().logcumsumexp({dim})")
    if input.dtype in ("float16", "bfloat16"):  # computed in float32, rounded once, as PyTorch's CPU kernel
        y = logcumsumexp(input.float(), dim).to(input.dtype)
        return _shapes.named_node(y, "LogcumsumexpBackward0", input) if input.ndim else y
    x = input
    d = _axis(dim, x, "logcumsumexp")
    if x.ndim == 0:
        return x
    neg_inf = as_operand(float("-inf"), x.dtype, x.device).expand(*x.shape)

    def step(y, k):
        prev = _shifted(y, d, k, neg_inf)
        top = _math.maximum(y, prev).detach()
        both_empty = _math.isneginf(top)
        # an infinite maximum is the result: shifting by it would make inf - inf = NaN
        safe_top = _op("Where", [_math.isinf(top), as_operand(0, x.dtype, x.device), top])
        total = _math.exp(y - safe_top) + _math.exp(prev - safe_top)
        return _op("Where", [both_empty, neg_inf, _math.log(total) + safe_top])

    return _shapes.named_node(_running(x, d, step), "LogcumsumexpBackward0", input)


def _cumulative_extreme(input: Tensor, dim: int, largest: bool, where: str):
    x = _sortable(input) if input.dtype != "bool" else input.astype(DTYPES["int64"])
    _axis(dim, x, where)  # a 0-d input takes 0 and -1 only
    if x.ndim == 0:
        return return_type(where)(input, as_operand(0, DTYPES["int64"], input.device))
    d = _axis(dim, x, where)
    n = x.shape[d]
    iota = as_operand(list(range(n)), DTYPES["int64"], x.device).reshape([n] + [1] * (x.ndim - d - 1))
    index = iota.expand(*x.shape)
    values = x.detach()
    low = as_operand(float("-inf") if x.dtype.is_floating_point else -(2 ** 63), x.dtype, x.device).expand(*x.shape)
    if not largest:
        low = as_operand(float("inf") if x.dtype.is_floating_point else 2 ** 63 - 1, x.dtype, x.device).expand(*x.shape)
    state = [values, index]

    def step(_, k):
        v, i = state
        pv, pi = _shifted(v, d, k, low), _shifted(i, d, k, as_operand(0, DTYPES["int64"], x.device).expand(*x.shape))
        # the later element wins a tie, and NaN wins from where it appears (PyTorch's cummax/cummin)
        better = _math.ge(v, pv) if largest else _math.le(v, pv)
        later = _math.logical_or(_math.isnan(v), _math.logical_and(_math.logical_not(_math.isnan(pv)), better))
        state[0] = _op("Where", [later, v, pv])
        state[1] = _op("Where", [later, i, pi])
        return state[0]

    _running(values, d, step)
    indices = state[1]
    picked = gather(input, d, indices) if input.dtype != "bool" else state[0].astype(input.dtype)
    return _named_pair(where, "CummaxBackward0" if largest else "CumminBackward0", picked, indices)


def cummax(input: Tensor, dim: int):
    """(values, indices) of the running maximum along dim (torch.cummax): a tie goes to the later
    element, NaN propagates; the gradient of each value reaches the element it came from."""
    return _cumulative_extreme(input, dim, True, "cummax")


def cummin(input: Tensor, dim: int):
    """(values, indices) of the running minimum along dim (torch.cummin), as cummax."""
    return _cumulative_extreme(input, dim, False, "cummin")


def nanmedian(input: Tensor, dim=_args.ABSENT, keepdim: bool = False):
    """median ignoring NaN (torch.nanmedian): the lower middle of the non-NaN values, NaN where
    all are NaN; (values, indices) along dim, every element when dim is left out."""
    whole = _args.whole_input_dim(dim, keepdim, "nanmedian")
    if not whole:  # dim before the dtype, as median's
        _axis(dim, input, "nanmedian")
    _refuse_bool(input, "nanmedian")
    if not input.dtype.is_floating_point:
        return median(input, dim, keepdim)
    if whole:
        flat = input.reshape(-1)
        if not flat.shape[0]:
            return _shapes.named_node(median(input), "NanmedianBackward0")
        value = shared_by_ties(flat, nanmedian(flat.detach(), 0).values)
        return _shapes.named_node(value, "NanmedianBackward0")
    d = _axis(dim, input, "nanmedian")
    if input.ndim == 0:
        return return_type("nanmedian")(input, as_operand(0, DTYPES["int64"], input.device))
    check_reduced_sizes(input, [d], "nanmedian")
    s = sort(input, d)  # NaN last
    count = _math.logical_not(_math.isnan(input)).sum(d, keepdim=True)
    k = _math.floor_divide(_math.maximum(count - 1, 0), 2)
    v, i = gather(s.values, d, k), gather(s.indices, d, k)
    # a row of NaN only: the index PyTorch's CPU kernel picks among them (_cpu_tie_order)
    i = _op("Where", [eq(count, 0), as_operand(all_nan_median_index(input.shape[d]), DTYPES["int64"], input.device), i])
    return _named_pair("nanmedian", "NanmedianBackward1", _squeezed(v, d, keepdim), _squeezed(i, d, keepdim))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, where: str):
    if input.numel() == 0:  # PyTorch's first check, worded 'quantile()' for nanquantile too
        raise _C.InvalidArgumentError(f"quantile() input tensor must be non-empty\n  {where}: the input has shape "
                                      f"{list(input.shape)}\n  fix: check for x.numel() == 0 before the call")
    if input.dtype not in ("float32", "float64"):
        raise _C.DTypeError(f"{where}() input tensor must be either float or double dtype\n  {where}: got "
                            f"{input.dtype}\n  fix: x.float()")
    if interpolation not in _INTERPOLATIONS:
        raise _C.InvalidArgumentError(f"{where}() interpolation must be one of linear, lower, higher, midpoint or "
                                      f"nearest. Got {interpolation}\n  fix: interpolation='linear'")
    scalar_q = not isinstance(q, Tensor)
    qs = as_operand(q, input.dtype, input.device) if scalar_q else q
    if qs.ndim > 1:
        raise _C.ShapeError(f"{where}() q must be a scalar or 1D tensor, got shape {list(qs.shape)}")
    if qs.dtype != input.dtype:
        raise _C.DTypeError(f"{where}() q tensor must be same dtype as the input tensor\n  fix: q.to(x.dtype)")
    qv = qs.numpy(force=True).reshape(-1)
    if ((qv < 0) | (qv > 1)).any():
        raise _C.InvalidArgumentError(f"{where}() q must be in the range [0, 1] but got {qv.tolist() if qs.ndim else qv[0]}"
                                      f"\n  fix: a probability, e.g. q=0.5")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _axis(dim, input, where)
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[d]
    s = sort(x, d).values  # NaN last
    nan = _math.isnan(x)
    if ignore_nan:
        count = _math.logical_not(nan).sum(d, keepdim=True)
    else:
        count = as_operand(n, DTYPES["int64"], x.device).expand(*[1 if a == d else x.shape[a] for a in range(x.ndim)])
    last = _math.maximum(count - 1, 0).astype(x.dtype)
    q_rows = qs.reshape(-1)
    outs = []
    for i in range(len(qv)):
        rank = last * q_rows[i]
        if not ignore_nan:  # a row holding NaN takes its last sorted value, a NaN (and its gradient)
            rank = _op("Where", [nan.any(d, keepdim=True), as_operand(n - 1, x.dtype, x.device), rank])
        lo, hi = _math.floor(rank.detach()), _math.ceil(rank.detach())
        if interpolation == "nearest":
            lo = hi = _math.round(rank.detach())
        elif interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        v_lo = gather(s, d, lo.astype(DTYPES["int64"]))
        v_hi = gather(s, d, hi.astype(DTYPES["int64"]))
        if interpolation == "linear":
            v = v_lo + (v_hi - v_lo) * (rank - lo)
        elif interpolation == "midpoint":
            v = v_lo + (v_hi - v_lo) * 0.5
        else:
            v = v_lo
        outs.append(v if keepdim and dim is not None and input.ndim else v.squeeze(d))  # a 0-d input keeps no dim
    if dim is None and keepdim:
        outs = [o.reshape([1] * input.ndim) for o in outs]
    if scalar_q or qs.ndim == 0:
        return outs[0]
    return stack(outs, 0)


@_autocast.op("quantile")
def quantile(input: Tensor, q, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles along dim (of every element for None) (torch.quantile): q a number or a
    1-d tensor in [0, 1] (its values are read now), the result with q's dim first; between two
    sorted values by `interpolation`; NaN where the input holds a NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@_autocast.op("nanquantile")
def nanquantile(input: Tensor, q, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """quantile ignoring NaN (torch.nanquantile): NaN only where every element is NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """(values, indices) of the most frequent value along dim (torch.mode): the smallest among
    equally frequent ones, and the index PyTorch's CPU kernel returns for it (the last occurrence
    up to 16 elements; _cpu_tie_order beyond, and with NaN). Which value that is depends on the
    data, so the input is computed now; the gradient reaches the returned element."""
    import numpy as np
    x = input.reshape(1) if input.ndim == 0 else input
    d = _axis(dim, x, "mode")
    check_reduced_sizes(x, [d], "mode")  # PyTorch's IndexError for a dim of size 0
    # NumPy has no bfloat16: its values are exact in float32, which orders and counts them alike
    a = np.moveaxis((x.float() if x.dtype == "bfloat16" else x).numpy(force=True), d, -1)
    rows = a.reshape(-1, a.shape[-1])
    best = np.zeros(rows.shape[0], dtype=np.int64)
    floating = rows.dtype.kind == "f"
    for r, row in enumerate(rows):
        order = np.argsort(row, kind="stable")
        srt = row[order]
        starts = np.flatnonzero(np.concatenate([[True], srt[1:] != srt[:-1]]))
        lengths = np.diff(np.append(starts, len(srt)))
        run = int(np.argmax(lengths))  # the first longest run: the smallest value
        if (floating and np.isnan(srt[-1])) or (lengths[run] > 1 and len(row) > 16):
            # PyTorch's std::sort is not stable there, and NaN breaks its order: replayed
            best[r] = mode_index(row.tolist())
        else:
            best[r] = order[starts[run]:starts[run] + lengths[run]].max()
    index_shape = list(a.shape[:-1]) + [1]
    idx = as_operand(best.reshape(index_shape), DTYPES["int64"], x.device)
    idx = _shapes.movedim(idx, -1, d)
    values = gather(x, d, idx)
    if input.ndim == 0:
        return _named_pair("mode", "ModeBackward0", values.reshape(()), idx.reshape(()))
    return _named_pair("mode", "ModeBackward0", _squeezed(values, d, keepdim), _squeezed(idx, d, keepdim))


__all__ = ["cumsum", "cumprod", "sort", "argsort", "msort", "topk", "kthvalue", "median", "logcumsumexp", "cummax",
           "cummin", "nanmedian", "quantile", "nanquantile", "mode"]
METHODS = list(__all__)


# axis= and keepdims= as PyTorch accepts them (_numpy_names.py)
accept_numpy_names(globals(), __all__)
