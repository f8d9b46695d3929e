"""PyTorch's scans and sorts: torch.cumsum, cumprod, sort, argsort, msort, topk, kthvalue and
median, each also the Tensor method of the same name. Kernel-backed by the scan family
(CumSum, CumProd, Sort, TopK: autodiff-engine/src/ops/scan.cpp).

dtypes as PyTorch's: a cumsum or cumprod of bool or integer elements is int64; sort and topk keep
the input's dtype and give int64 indices. NaN sorts as the largest value (last ascending, first
descending), and ties keep their input order when stable=True. The gradient of sorted or top-k
values reaches the elements they came from; cumprod's is exact with zeros among the factors.
"""
from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Optional

from . import _C, _args
from ._dtypes import DTYPES
from ._math import as_operand, eq
from ._tensor import Tensor, _dim, _op, _op_multi

values_indices = namedtuple("values_indices", ["values", "indices"])
_SORTABLE = ("float32", "float64", "int64")


def _axis(dim, x: Tensor, where: str) -> int:
    return _dim(dim, builtins.max(x.ndim, 1), where, x.shape) if x.ndim else 0


def _scan(op: str, input: Tensor, dim, dtype, where: str) -> Tensor:  # noqa: A002
    x = input.astype(dtype) if dtype is not None else input
    if not x.dtype.is_floating_point and x.dtype != "int64":
        x = x.astype(DTYPES["int64"])
    if x.ndim == 0:
        return _op(op, [x.reshape(1)], {"dim": 0}).reshape([])
    return _op(op, [x], {"dim": _axis(dim, x, where)})


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:  # noqa: A002
    """The running sum along dim (torch.cumsum); bool and integer elements give int64."""
    return _scan("CumSum", input, dim, dtype, "cumsum")


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:  # noqa: A002
    """The running product along dim (torch.cumprod); its gradient is exact where factors are 0."""
    return _scan("CumProd", input, dim, dtype, "cumprod")


def _sortable(x: Tensor) -> Tensor:
    return x if str(x.dtype) in _SORTABLE else x.astype(DTYPES["int64"])


def _gathered(x: Tensor, indices: Tensor, d: int, values: Tensor) -> Tensor:
    """The values at `indices` along d, as a function of x when x needs a gradient, so that the
    gradient of each value reaches the element it came from: a one-hot selection
    (x [.., n, ..] against the k indices along a new axis), summed."""
    if not x.requires_grad:
        return values
    n = x.shape[d]
    k = indices.shape[d]
    iota = as_operand(list(range(n)), DTYPES["int64"], x.device).reshape([n] + [1] * (x.ndim - d))
    # x: [.., n, 1, ..] against indices: [.., 1, k, ..] -> picked [.., n, k, ..], summed over n
    xs = x.unsqueeze(d + 1)
    hit = eq(indices.unsqueeze(d), iota)
    picked = _op("Where", [hit, xs, as_operand(0, x.dtype, x.device)])
    return _op("Sum", [picked], {"dims": [d], "keepdim": False})


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):  # noqa: A002
    """(values, indices) sorted along dim (torch.sort); NaN is the largest value. The order of ties
    is their input order (a stable sort, whatever `stable` says)."""
    _args.flag(descending, "descending", "sort")
    x = _sortable(input)
    if x.ndim == 0:
        return values_indices(input, as_operand(0, DTYPES["int64"], input.device))
    d = _axis(dim, x, "sort")
    values, indices = _op_multi("Sort", [x], {"dim": d, "descending": builtins.bool(descending)})
    values = _gathered(x, indices, d, values)
    return values_indices(values.astype(input.dtype), indices)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:  # noqa: A002
    """The indices that sort input along dim (torch.argsort)."""
    return sort(input, dim, descending, stable).indices


def msort(input: Tensor) -> Tensor:  # noqa: A002
    """input sorted along dim 0 (torch.msort)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """The k largest (or smallest) elements along dim and their indices (torch.topk), in order
    (largest first) with NaN as the largest value."""
    x = _sortable(input)
    d = _axis(dim, x, "topk")
    n = x.shape[d] if x.ndim else 1
    k = _args.integer(k, "k", "topk", minimum=0)
    if k > n:
        raise _C.GlassgradIndexError(f"topk: k={k} is larger than dim {dim} of size {n} (shape {list(x.shape)})\n"
                                     f"  fix: k <= {n}")
    if x.ndim == 0:
        return values_indices(input, as_operand(0, DTYPES["int64"], input.device))
    values, indices = _op_multi("TopK", [x], {"dim": d, "k": k, "largest": _args.flag(largest, "largest", "topk")})
    values = _gathered(x, indices, d, values)
    return values_indices(values.astype(input.dtype), indices)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):  # noqa: A002
    """The k-th smallest element along dim and its index (torch.kthvalue, k counted from 1)."""
    x = _sortable(input)
    d = _axis(dim, x, "kthvalue")
    n = x.shape[d] if x.ndim else 1
    k = _args.integer(k, "k", "kthvalue", minimum=1)
    if k > n:
        raise _C.GlassgradIndexError(f"kthvalue: k={k} is out of range for dim {dim} of size {n}")
    values, indices = topk(input, k, d, largest=False)
    return _pick(values, indices, d, k - 1, keepdim)


def _pick(values: Tensor, indices: Tensor, d: int, i: int, keepdim: bool):
    pick = (slice(None),) * d + (slice(i, i + 1),)
    v, ix = values[pick], indices[pick]
    return values_indices(v if keepdim else v.squeeze(d), ix if keepdim else ix.squeeze(d))


def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False):  # noqa: A002
    """The lower of the two middle values (torch.median): of every element for dim=None, else
    (values, indices) along dim; the gradient goes to the median element."""
    if dim is None:
        flat = input.reshape(-1)
        value = sort(flat.detach(), 0).values[(flat.shape[0] - 1) // 2]
        if not input.requires_grad:
            return value
        # the gradient shared evenly by the elements equal to the median (PyTorch's), the value
        # exactly the median: v + (s - s) / count, s the sum of those elements
        tied = eq(flat, value)
        s = _op("Sum", [_op("Where", [tied, flat, as_operand(0, flat.dtype, flat.device)])], {"dims": [], "keepdim": False})
        count = _op("Sum", [tied.astype(flat.dtype)], {"dims": [], "keepdim": False})
        return value + (s - s.detach()) / count
    d = _axis(dim, input, "median")
    s = sort(input, d)
    return _pick(s.values, s.indices, d, (input.shape[d] - 1) // 2 if input.ndim else 0, keepdim)


__all__ = ["cumsum", "cumprod", "sort", "argsort", "msort", "topk", "kthvalue", "median"]
METHODS = ["cumsum", "cumprod", "sort", "argsort", "msort", "topk", "kthvalue", "median"]
