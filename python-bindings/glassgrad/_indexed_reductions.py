"""Reductions into indexed positions: PyTorch's scatter_reduce (sum, prod, mean, amax, amin, with
include_self) and index_reduce, composed from the indexing and scan families (Scatter,
Gather, Sort, CumSum: docs/inplace-and-views.md lists them).

out = input; then out[p[dim <- index[p]]] combines every src[p] that lands there, with the
input's own value too when include_self (positions no index reaches keep the input's value).
Every reduction costs O(k log k) in the number k of src elements:

- sum, mean: scatter-add of the values (and of ones, for mean's count);
- amax, amin: the src elements sorted by value, then stably by target, so each target's extreme is
  the last of its run, found through the running count of elements per target; the gradient is
  shared evenly by the elements equal to the result (the input's own element counted, as in
  PyTorch's, even when include_self=False keeps its share from it);
- prod: Scatter's multiply for the value, and the exact gradient (the product of the other
  factors, zeros included) through a first-order term that is 0 in value.
"""
from __future__ import annotations

from typing import Tuple

from . import _C, _dtypes
from ._math import constant, eq, floor_divide, maximum, minimum, mul, ne
from ._scans import argsort, cumsum
from ._tensor import Tensor, _dim, _op
from ._indexing import _index_tensor, check_index_range, gather

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
# PyTorch's scatter_reduce also takes "max" and "min" (its older names) as amax and amin
_ALIASES = {"max": "amax", "min": "amin"}


def _zeros(shape, dtype, device) -> Tensor:
    return constant(0, dtype, device).expand(*shape) if shape else constant(0, dtype, device)


def _scatter(base: Tensor, d: int, index: Tensor, src: Tensor, reduce: str = "add") -> Tensor:
    return _op("Scatter", [base, index, src], {"dim": d, "reduce": reduce})


def _region(input: Tensor, index: Tensor, d: int) -> Tuple:
    """The part of input an index of index's shape can reach (all of dim d, index's extent elsewhere)."""
    return tuple(slice(None) if a == d else slice(0, index.shape[a]) for a in range(input.ndim))


def _check(where: str, input: Tensor, d: int, index: Tensor, src: Tensor, reduce: str):
    if reduce not in _REDUCTIONS:
        raise _C.InvalidArgumentError(f"{where}: reduce argument must be either sum, prod, mean, amax or amin, got "
                                      f"{reduce!r}\n  fix: reduce='sum'")
    if not isinstance(src, Tensor):
        raise TypeError(f"{where}: src must be a tensor, got {type(src).__name__}\n  fix: pass a glassgrad.Tensor")
    if src._h.dtype != input._h.dtype:
        raise _C.DTypeError(f"{where}(): Expected self.dtype to be equal to src.dtype\n  {where}: the input is "
                            f"{input._h.dtype}, src is {src._h.dtype}\n  fix: src.to({input._h.dtype!r})")
    if index.ndim != input.ndim or src.ndim != input.ndim:
        raise _C.ShapeError(f"Index tensor must have the same number of dimensions as self tensor\n  {where}: input "
                            f"{list(input.shape)}, index {list(index.shape)}, src {list(src.shape)}\n  fix: give "
                            f"index and src the input's number of dims")
    for a in range(input.ndim):
        if index.shape[a] > src.shape[a] or (a != d and index.shape[a] > input.shape[a]):
            raise _C.ShapeError(f"{where}: index {list(index.shape)} is larger than src {list(src.shape)} or, "
                                f"outside dim {d}, than the input {list(input.shape)}\n  fix: index.size(a) <= "
                                f"src.size(a) for every a, and <= input.size(a) for a != dim")


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """input with every value of src reduced into position index[p] along dim ("sum", "prod",
    "mean", "amax" or "amin"; PyTorch's torch.scatter_reduce). include_self: the input's own
    values take part at the positions the index reaches. An integer mean rounds down."""
    where = "scatter_reduce"
    reduce = _ALIASES.get(reduce, reduce)
    d = _dim(dim, max(input.ndim, 1), where, input.shape)
    index = _index_tensor(index, input, where)
    _check(where, input, d, index, src, reduce)
    check_index_range(index, input.shape[d] if input.ndim else 1, d, f"{where} (input {list(input.shape)})")
    if index.numel() == 0:  # nothing lands anywhere: the input, as PyTorch's
        return input.clone()
    if input.dtype == "bool" and reduce != "mean":  # or (sum, amax) and and (prod, amin) of 0/1 values
        int64 = _dtypes.DTYPES["int64"]
        return scatter_reduce(input.astype(int64), d, index, src.astype(int64), reduce,
                              include_self=include_self).astype(input.dtype)
    if input.ndim == 0:
        return scatter_reduce(input.reshape(1), 0, index.reshape(1), src.reshape(1), reduce,
                              include_self=include_self).reshape(())
    region = _region(input, index, d)
    whole = all(index.shape[a] == input.shape[a] for a in range(input.ndim) if a != d)
    x = input if whole else input[region]
    s = src if tuple(src.shape) == tuple(index.shape) else src[tuple(slice(0, n) for n in index.shape)]
    out = _REDUCE[reduce](x, d, index, s, bool(include_self))
    if whole:
        return out
    full = input.clone()
    full[region] = out
    return full


def _counts(x: Tensor, d: int, index: Tensor, dtype) -> Tensor:
    return _scatter(_zeros(x.shape, dtype, x.device), d, index, constant(1, dtype, x.device).expand(*index.shape))


def _untouched_kept(x: Tensor, d: int, index: Tensor, include_self: bool) -> Tensor:
    """x, or x with the positions the index reaches set to 0 (include_self=False)."""
    if include_self:
        return x
    hit = _counts(x, d, index, _dtypes.DTYPES["int64"])
    return _op("Where", [ne(hit, 0), constant(0, x.dtype, x.device), x])


def _sum(x, d, index, src, include_self):
    return _scatter(_untouched_kept(x, d, index, include_self), d, index, src)


def _mean(x, d, index, src, include_self):
    total = _sum(x, d, index, src, include_self)
    count = _counts(x, d, index, x.dtype)
    if include_self:
        count = count + 1
    count = maximum(count, constant(1, x.dtype, x.device))  # untouched (count 0) positions keep x
    return total / count if x.dtype.is_floating_point else floor_divide(total, count)


def _extreme(x, d, index, src, include_self, largest: bool):
    """amax (largest) or amin with PyTorch's gradient: shared evenly by the tied elements."""
    sv = src.detach()
    # src's positions ordered by value (ascending for amax), then stably by target: each target's
    # run ends with its extreme.
    by_value = argsort(sv, dim=d, descending=not largest, stable=True)
    by_target = argsort(gather(index, d, by_value), dim=d, stable=True)
    order = gather(by_value, d, by_target)
    int64 = _dtypes.DTYPES["int64"]
    count = _counts(x, d, index, int64)
    last = maximum(cumsum(count, d) - 1, constant(0, int64, x.device))
    extreme = gather(sv, d, gather(order, d, last))
    touched = ne(count, 0)
    xv = x.detach()
    if include_self:
        extreme = (maximum if largest else minimum)(extreme, xv)
    result = _op("Where", [touched, extreme, xv])
    if not x.dtype.is_floating_point:  # no gradient to share
        return result
    # value: the result; gradient: the tied elements' sum divided by their count.
    tie_src = eq(src, gather(result, d, index))
    zero = constant(0, x.dtype, x.device)
    tied_sum = _scatter(_zeros(x.shape, x.dtype, x.device), d, index, _op("Where", [tie_src, src, zero]))
    tied_count = _scatter(_zeros(x.shape, x.dtype, x.device), d, index, tie_src.astype(x.dtype))
    # The input's own element counts among the ties even with include_self=False (it then gets
    # no gradient itself), as PyTorch's gradient does.
    tie_self = eq(x, result)
    tied_count = tied_count + tie_self.astype(x.dtype)
    if include_self:
        tied_sum = tied_sum + _op("Where", [tie_self, x, zero])
    safe = maximum(tied_count, constant(1, x.dtype, x.device))
    shared = result + (tied_sum - tied_sum.detach()) / safe
    return _op("Where", [touched, shared, x])


def _prod(x, d, index, src, include_self):
    """The product (Scatter's multiply) plus a term 0 in value whose gradient is PyTorch's: for
    each factor, the product of the other factors at its position (exact with zeros)."""
    one, zero = constant(1, x.dtype, x.device), constant(0, x.dtype, x.device)
    untouched = eq(_counts(x, d, index, _dtypes.DTYPES["int64"]), 0)
    base = x if include_self else _op("Where", [untouched, x, one])  # the factor each target starts from
    value = _scatter(base.detach(), d, index, src.detach(), "multiply")
    if not (x.requires_grad or src.requires_grad) or not x.dtype.is_floating_point:
        return value
    sv, bv = src.detach(), base.detach()
    src_zero, base_zero = eq(sv, 0), eq(bv, 0)
    # per target: the product of its nonzero factors and the number of zero factors
    nonzero_prod = _scatter(_op("Where", [base_zero, one, bv]), d, index, _op("Where", [src_zero, one, sv]),
                            "multiply")
    zeros = _scatter(base_zero.astype(x.dtype), d, index, src_zero.astype(x.dtype))

    def others(v, v_zero, at_value, at_nonzero_prod, at_zeros):
        """The product of the factors other than v at its target."""
        when_zero = _op("Where", [eq(at_zeros, 1), at_nonzero_prod, zero])
        return _op("Where", [v_zero, when_zero, at_value / _op("Where", [v_zero, one, v])])

    coef = others(sv, src_zero, gather(value, d, index), gather(nonzero_prod, d, index), gather(zeros, d, index))
    term = _scatter(_zeros(x.shape, x.dtype, x.device), d, index, (src - sv) * coef)
    if include_self:
        term = term + (x - x.detach()) * others(bv, base_zero, value, nonzero_prod, zeros)
    else:
        term = term + mul(x - x.detach(), untouched.astype(x.dtype))
    return value + term


_REDUCE = {"sum": _sum, "mean": _mean, "prod": _prod,
           "amax": lambda x, d, i, s, inc: _extreme(x, d, i, s, inc, True),
           "amin": lambda x, d, i, s, inc: _extreme(x, d, i, s, inc, False)}


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """input with source[.., j, ..] reduced into input[.., index[j], ..] along dim ("prod",
    "mean", "amax" or "amin"; PyTorch's Tensor.index_reduce): scatter_reduce with the 1-d index
    spread over source's shape."""
    where = "index_reduce"
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise _C.InvalidArgumentError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                                      f"{reduce}.\n  fix: reduce='prod'")
    d = _dim(dim, max(input.ndim, 1), where, input.shape)
    index = _index_tensor(index, input, where)
    if index.ndim > 1:
        raise _C.ShapeError(f"index_reduce_(): Index is supposed to be a vector, got shape {list(index.shape)}\n"
                            f"  fix: index.reshape(-1)")
    if not isinstance(source, Tensor) or source.ndim != max(input.ndim, 1) and input.ndim:
        raise _C.ShapeError(f"{where}: source must be a tensor with the input's number of dims\n  fix: give source "
                            f"the shape of the input with len(index) along dim {dim}")
    n = index.numel()
    if input.ndim and source.shape[d] != n:
        raise _C.ShapeError(f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim) "
                            f"({source.shape[d]})\n  fix: one index per slice of source along dim {dim}")
    if input.ndim == 0:
        return scatter_reduce(input, 0, index.reshape(()), source.reshape(()), reduce, include_self=include_self)
    spread = index.reshape([n if a == d else 1 for a in range(input.ndim)]).expand(*source.shape)
    return scatter_reduce(input, d, spread, source, reduce, include_self=include_self)


__all__ = ["scatter_reduce", "index_reduce"]
