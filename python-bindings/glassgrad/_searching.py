"""PyTorch's searching functions: torch.searchsorted, bucketize and isin (also Tensor methods
where PyTorch has them). They return indices or masks, which have no gradient, so the inputs are
computed now: searching is PyTorch's binary search, vectorized in NumPy (so a NaN in the sequence
gives PyTorch's answers), isin is NumPy's. Results are new tensors on the input's device."""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import _C, _args
from ._tensor import Tensor, host_values, tensor


def _values(x, where: str, name: str) -> np.ndarray:
    if isinstance(x, Tensor):
        return host_values(x)
    if isinstance(x, (bool, int, float)):
        return np.asarray(x)
    _args.fail(where, name, "a glassgrad.Tensor or a Python number", x, type_error=True)
    raise AssertionError  # fail raised


def _side(right: bool, side: Optional[str], where: str) -> str:
    if side is None:
        return "right" if _args.flag(right, "right", where) else "left"
    chosen = _args.choice(side, "side", where, ("left", "right"))
    if right and chosen == "left":
        raise _C.InvalidArgumentError(f"{where}: side='left' and right=True contradict each other\n"
                                      f"  fix: pass one of them")
    return chosen


def _index_dtype(out_int32: bool, where: str):
    return "int32" if _args.flag(out_int32, "out_int32", where) else "int64"


def _binary_search(rows: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's binary search, vectorized over rows [R, n] and values [R, m]: the same comparisons
    in the same order, so a NaN (sorted last by torch.sort) gives the answers PyTorch gives."""
    n = rows.shape[1]
    start = np.zeros(values.shape, np.int64)
    end = np.full(values.shape, n, np.int64)
    with np.errstate(invalid="ignore"):
        while (active := start < end).any():
            mid = start + (end - start) // 2
            seen = np.take_along_axis(rows, np.minimum(mid, n - 1), 1)
            after = ~(seen > values) if right else ~(seen >= values)
            start = np.where(active & after, mid + 1, start)
            end = np.where(active & ~after, mid, end)
    return start


def _refuse_bool(seq: np.ndarray, vals: np.ndarray, where: str) -> None:
    """PyTorch searches in the common dtype of the sequence and the values: both bool is refused,
    one bool with a number compares as numbers."""
    if seq.dtype == np.bool_ and vals.dtype == np.bool_ and seq.size and vals.size:
        raise _C.UnsupportedError(f"\"searchsorted_out_cpu\" not implemented for 'Bool'\n  {where}: the sequence "
                                  f"and the values are both bool\n  fix: convert first: .long()")


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter: Optional[Tensor] = None) -> Tensor:
    """torch.searchsorted: for each value, the index in sorted_sequence's last axis where it would
    be inserted to keep the order ('left': before equal entries, 'right' or right=True: after).
    sorted_sequence is 1-d, or has input's leading axes (one sorted row per row of values);
    sorter gives the indices that sort an unsorted sequence."""
    where = "searchsorted"
    seq = _values(sorted_sequence, where, "sorted_sequence")
    vals = _values(input, where, "input")
    _refuse_bool(seq, vals, where)
    how = _side(right, side, where)
    if seq.ndim == 0:
        raise _C.ShapeError(f"{where}: sorted_sequence must have at least one axis, got a 0-d tensor\n"
                            f"  fix: sorted_sequence.reshape(1)")
    if sorter is not None:
        order = _values(sorter, where, "sorter")
        if order.shape != seq.shape:
            raise _C.ShapeError(f"{where}: sorter must have sorted_sequence's shape {list(seq.shape)}, got "
                                f"{list(order.shape)}\n  fix: sorter=sorted_sequence.argsort()")
        seq = np.take_along_axis(seq, order.astype(np.int64), -1)
    if seq.ndim == 1:
        flat = vals.reshape(1, vals.size)
        found = _binary_search(np.broadcast_to(seq, (1, seq.shape[0])), flat, how == "right").reshape(vals.shape)
    else:
        if vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
            raise _C.ShapeError(
                f"{where}: a {seq.ndim}-d sorted_sequence {list(seq.shape)} needs input with the same leading "
                f"axes {list(seq.shape[:-1])} + [any], got {list(vals.shape)}\n  fix: a 1-d sorted_sequence "
                f"searches for every value, or reshape input to {list(seq.shape[:-1]) + [-1]}")
        lead = int(np.prod(seq.shape[:-1]))
        rows, cols = seq.reshape(lead, seq.shape[-1]), vals.reshape(lead, vals.shape[-1])
        found = _binary_search(rows, cols, how == "right").reshape(vals.shape)
    device = sorted_sequence.device if isinstance(sorted_sequence, Tensor) else None
    return tensor(np.asarray(found, dtype=np.int64), dtype=_index_dtype(out_int32, where), device=device)


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """torch.bucketize: the bucket index of each value for 1-d ascending boundaries: i such that
    boundaries[i - 1] < x <= boundaries[i] (right=True: boundaries[i - 1] <= x < boundaries[i])."""
    if not isinstance(boundaries, Tensor) or boundaries.ndim != 1:
        raise _C.ShapeError(f"bucketize: boundaries must be a 1-d tensor, got "
                            f"{list(boundaries.shape) if isinstance(boundaries, Tensor) else type(boundaries).__name__}"
                            f"\n  fix: boundaries.flatten(), or torch.searchsorted for one sequence per row")
    values = _values(input, "bucketize", "input")
    edges = host_values(boundaries)
    _refuse_bool(edges, values, "bucketize")
    found = _binary_search(edges.reshape(1, edges.size), values.reshape(1, values.size),
                           _args.flag(right, "right", "bucketize")).reshape(values.shape)
    device = input.device if isinstance(input, Tensor) else boundaries.device
    return tensor(np.asarray(found, dtype=np.int64), dtype=_index_dtype(out_int32, "bucketize"), device=device)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """torch.isin: a bool tensor of elements' shape, True where the element is among test_elements
    (either may be a Python number); invert=True negates it."""
    where = "isin"
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        _args.fail(where, "elements", "a glassgrad.Tensor (elements or test_elements)", elements, type_error=True)
    a, b = _values(elements, where, "elements"), _values(test_elements, where, "test_elements")
    if a.dtype == np.bool_:  # PyTorch's RuntimeError
        raise _C.DTypeError("Unsupported input type encountered for isin(): Bool\n  isin: the elements are a bool "
                            "tensor\n  fix: elements.long() (and test_elements.long())")
    found = np.isin(a, b, assume_unique=_args.flag(assume_unique, "assume_unique", where),
                    invert=_args.flag(invert, "invert", where))
    device = elements.device if isinstance(elements, Tensor) else test_elements.device
    return tensor(np.asarray(found, dtype=bool), device=device)


__all__ = ["searchsorted", "bucketize", "isin"]
