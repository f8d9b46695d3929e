"""PyTorch's counting functions: torch.unique, unique_consecutive, bincount, histc and histogram
(each also a Tensor method). Their result's shape depends on the values (unique, bincount) or they have no
gradient (PyTorch defines none for any of them), so the input is computed now, as PyTorch
synchronizes with the GPU here, and the results are new tensors on the input's device.
"""
from __future__ import annotations

import builtins
import functools
import math
from typing import Optional

import numpy as np

from . import _C, _args
from ._args import UnsupportedDTypeError
from ._inplace import _type_name
from ._factories import linspace
from ._return_types import return_type
from ._tensor import Tensor, host_values, tensor


def _on(arr: np.ndarray, like: Tensor, dtype=None) -> Tensor:
    # np.array, not np.ascontiguousarray: that one makes a 0-d array 1-d
    return tensor(np.array(arr, order="C"), dtype=dtype, device=like.device)


def _int64(arr) -> np.ndarray:
    return np.asarray(arr, dtype=np.int64)


def _results(values, inverse, counts, like: Tensor, return_inverse: bool, return_counts: bool):
    out = [_on(values, like, like.dtype)]  # bfloat16 values come back from float32
    if return_inverse:
        out.append(_on(_int64(inverse), like))
    if return_counts:
        out.append(_on(_int64(counts), like))
    return out[0] if len(out) == 1 else tuple(out)


def _slices(a: np.ndarray, dim, op: str):
    """The slices of `a` along dim: the axis, `a` with it moved first, and those slices flattened to
    rows. As PyTorch's, a 0-d input has no axis to take (IndexError), and an empty axis other than dim
    leaves nothing to tell the slices apart by (RuntimeError)."""
    from ._tensor import _dim
    if a.ndim == 0:
        raise _C.GlassgradIndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions (a 0-d "
                                     f"input), as in PyTorch\n  fix: {op}(x) without dim, or x.reshape(1)")
    d = _dim(dim, a.ndim, op, a.shape)
    moved = np.moveaxis(a, d, 0)
    if 0 in moved.shape[1:]:
        raise _C.InvalidArgumentError(
            f"There are 0 sized dimensions, and they aren't selected, so unique cannot be applied\n  {op}: "
            f"the input's shape is {list(a.shape)} and dim={d}; an axis other than dim has no elements\n  fix: "
            f"pass the empty axis as dim, or call {op} without dim")
    return d, moved, moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:], dtype=np.int64)))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: Optional[int] = None):
    """The distinct elements in ascending order (torch.unique; every NaN is distinct), or the
    distinct slices along dim; with return_inverse, where each element (slice) went, in the
    input's shape (its length along dim); with return_counts, how often each occurs."""
    a = host_values(input)
    if dim is None:
        flat = a.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        return _results(values, inverse.reshape(a.shape), counts, input, return_inverse, return_counts)
    d, moved, rows = _slices(a, dim, "unique")
    # the slices in lexicographic order (the first element most significant), as PyTorch's
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    srt = rows[order]
    new = np.ones(len(srt), dtype=bool)
    if len(srt) > 1:
        new[1:] = np.any(srt[1:] != srt[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(srt), dtype=np.int64)
    inverse[order] = group
    counts = np.bincount(group, minlength=int(new.sum()))
    values = np.moveaxis(srt[new].reshape((-1,) + moved.shape[1:]), 0, d)
    return _results(values, inverse, counts, input, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None):
    """Each run of equal consecutive elements (or slices along dim) collapsed to one
    (torch.unique_consecutive), with the run each element belongs to (return_inverse) and the
    runs' lengths (return_counts)."""
    a = host_values(input)
    if dim is None:
        rows = a.reshape(-1, 1)
        shape_back = a.shape
        d = 0
    else:
        d, moved, rows = _slices(a, dim, "unique_consecutive")
        shape_back = (moved.shape[0],)
    new = np.ones(len(rows), dtype=bool)
    if len(rows) > 1:
        new[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(rows)))
    if dim is None:
        values = rows[starts, 0]
    else:
        values = np.moveaxis(moved[starts], 0, d)
    return _results(values, group.reshape(shape_back), counts, input, return_inverse, return_counts)


def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ..., max(input) occurs in the 1-d non-negative integer input
    (torch.bincount), at least minlength bins; with weights, their sums per value instead
    (float32 weights stay float32, others give float64, as PyTorch's)."""
    if input.dtype.is_floating_point or input.dtype == "bool":  # PyTorch's kernel has no such dtype
        raise UnsupportedDTypeError(f"\"bincount_cpu\" not implemented for '{_type_name(input.dtype)}'\n  bincount: "
                                    f"the input is {input.dtype}; it counts integers\n  fix: x.long()")
    if input.ndim != 1:
        raise _C.InvalidArgumentError(f"bincount only supports 1-d non-negative integral inputs.\n  bincount: got a "
                                      f"{input.ndim}-d {input.dtype} tensor\n  fix: x.long().reshape(-1)")
    a: np.ndarray = input.numpy(force=True).astype(np.int64)
    if a.size and a.min() < 0:
        raise _C.InvalidArgumentError(f"bincount only supports 1-d non-negative integral inputs.\n  bincount: the "
                                      f"smallest value is {int(a.min())}\n  fix: shift the values, x - x.min()")
    if minlength < 0:
        raise _C.InvalidArgumentError(f"minlength should be >= 0, got {minlength}\n  fix: minlength=0")
    if weights is None:
        return _on(np.bincount(a, minlength=minlength).astype(np.int64), input)
    w = host_values(weights) if isinstance(weights, Tensor) else np.asarray(weights)
    if w.shape != a.shape:
        raise _C.ShapeError(f"weights should be 1-d and have the same length as input\n  bincount: input "
                            f"{list(a.shape)}, weights {list(w.shape)}\n  fix: one weight per element")
    single = weights.dtype == "float32" if isinstance(weights, Tensor) else w.dtype == np.float32
    dtype = np.float32 if single else np.float64
    return _on(np.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(dtype), input)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram of the elements in `bins` equal bins over [min, max] (torch.histc): elements
    outside are left out, the last bin holds max itself, and min = max = 0 take the data's own
    smallest and largest elements. Floating inputs only, the result in the input's dtype."""
    if not input.dtype.is_floating_point:
        raise UnsupportedDTypeError(f"\"histogram_cpu\" not implemented for '{_type_name(input.dtype)}'\n  histc: "
                                    f"the input is {input.dtype}; it must be floating point\n  fix: x.float()")
    held = _args.tensor_index(bins)  # a 0-d integer tensor is its int, as PyTorch's parser reads it
    bins = bins if held is None else held
    if bins <= 0:
        raise _C.InvalidArgumentError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0\n"
                                      f"  fix: bins=100")
    a: np.ndarray = host_values(input).reshape(-1).astype(np.float64)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:  # the data's own range: nan and infinities in it make it not finite
        lo, hi = (float("nan"), float("nan")) if np.isnan(a).any() else (float(a.min()), float(a.max()))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise _C.InvalidArgumentError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite\n  histc: min and max (or "
                                      f"the data's smallest and largest element when both are 0) must be finite\n  "
                                      f"fix: histc(x[x.isfinite()], ...), or give finite min and max")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise _C.InvalidArgumentError(f"torch.histc(): max must be larger than min, got min={min} max={max}\n"
                                      f"  fix: min < max")
    inside = a[(a >= lo) & (a <= hi)]
    # bin of x: floor((x - lo) * bins / (hi - lo)), the value hi in the last bin (PyTorch's formula)
    which = np.floor((inside - lo) * bins / (hi - lo)).astype(np.int64)
    which = np.minimum(which, bins - 1)
    counts = np.bincount(which, minlength=bins)[:bins]
    return _on(counts.astype(np.float64), input, input.dtype)


# torch.return_types.histogram: a tuple that also names its two tensors, printed as PyTorch's
histogram_result = return_type("histogram", ("hist", "bin_edges"))


def _histogram_edges(a: np.ndarray, bins, range, like: Tensor) -> np.ndarray:
    """The bin edges torch.histogram counts with: the given 1-d tensor of increasing edges, or
    `bins` equal bins from linspace over `range` (default: the data's smallest and largest
    element, [0, 1] without elements; an empty span widened by 0.5 each way, as NumPy and PyTorch
    widen it)."""
    if isinstance(bins, Tensor):
        if bins.ndim != 1 or bins.numel() < 1:
            raise _C.ShapeError(f"torch.histogram(): bins must be a 1-d tensor of edges, got shape {list(bins.shape)}\n"
                                "  fix: torch.linspace(0, 1, 11) for 10 bins over [0, 1], or an int bins=10")
        if bins.dtype != like.dtype:
            raise _C.DTypeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                                f"input {like.dtype} and bins {bins.dtype}\n  fix: bins.to(input.dtype)")
        edges: np.ndarray = bins.detach().double().numpy(force=True)
        if np.any(np.diff(edges) < 0):
            raise _C.InvalidArgumentError("torch.histogram(): bin edges must be increasing\n  fix: sort them")
        return edges
    n = int(bins)
    if n <= 0:
        raise _C.InvalidArgumentError(f"torch.histogram(): bins must be > 0, but got {n}\n  fix: bins=100")
    if range is not None:
        lo, hi = (float(v) for v in range)
    elif a.size:
        lo, hi = float(a.min()), float(a.max())
    else:  # no elements and no range: PyTorch's bins span [0, 1]
        lo, hi = 0.0, 1.0
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise _C.InvalidArgumentError(f"torch.histogram(): range [{lo}, {hi}] is not finite\n"
                                      "  fix: pass range=(lo, hi), or drop infinite elements first")
    if lo > hi:
        raise _C.InvalidArgumentError(f"torch.histogram(): min should not exceed max, but got min {lo} max {hi}\n"
                                      "  fix: range=(smaller, larger)")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, n + 1, dtype=like.dtype).numpy(force=True).astype(np.float64)


def _histogram_dtype(input: Tensor, edges_given: bool, where: str) -> None:
    """PyTorch's NotImplementedError for a dtype its histogram kernels lack: integer and bool
    inputs always; float16 and bfloat16 unless the bin edges are given as tensors (their equal-bins
    path has no reduced-precision kernel)."""
    floating = input.dtype.is_floating_point
    if input.dtype in ("float32", "float64") or (floating and edges_given):
        return
    kernel = "histogram_cpu" if edges_given else "histogramdd"
    raise UnsupportedDTypeError(f"\"{kernel}\" not implemented for '{_type_name(input.dtype)}'\n  "
                                f"{where}: input must be floating point, got {input.dtype}\n  fix: x.float()")


def histogram(input: Tensor, bins=100, *, range=None, weight: Optional[Tensor] = None, density: bool = False,
              out=None):
    """(hist, bin_edges) of the elements of `input` (torch.histogram): `bins` an int of equal bins
    over `range` (or the data's span) or a 1-d tensor of increasing edges; each bin holds
    [left, right) but the last, which holds its right edge too; elements outside are left out.
    `weight` (input's shape) counts each element by its weight; `density` divides by the total
    and the bin's width. Floating inputs only; both results in the input's dtype, no gradient."""
    if out is not None:
        raise _C.UnsupportedError("torch.histogram(..., out=...) is not supported\n  fix: hist, edges = torch.histogram(x, bins)")
    _histogram_dtype(input, isinstance(bins, Tensor), "torch.histogram")
    a: np.ndarray = input.detach().double().numpy(force=True).reshape(-1)
    edges = _histogram_edges(a, bins, range, input)
    w: Optional[np.ndarray] = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise _C.ShapeError(f"torch.histogram(): weight should have the same shape as input, got input "
                                f"{list(input.shape)} and weight {list(weight.shape)}\n  fix: one weight per element")
        w = weight.detach().double().numpy(force=True).reshape(-1)
    if edges.size < 2:
        hist = np.zeros(0)
    else:
        hist, _ = np.histogram(a, bins=edges, weights=w)
        hist = hist.astype(np.float64)
        if density:
            hist = hist / (hist.sum() * np.diff(edges))
    return histogram_result(_on(hist, input, input.dtype), _on(edges, input, input.dtype))


def histogramdd(input: Tensor, bins=10, range=None, weight: Optional[Tensor] = None, density: bool = False):
    """(hist, bin_edges) of the points of `input` (torch.histogramdd): input (..., D) holds points
    of D coordinates; `bins` is an int for every coordinate, one int per coordinate or one 1-d
    tensor of edges per coordinate; `range` is [min_0, max_0, min_1, max_1, ...]. Each coordinate's
    bins are histogram's ([left, right), the last closed); `weight` (input.shape[:-1]) and
    `density` as there. hist has D dims; bin_edges is a tuple of D tensors; no gradient."""
    if input.ndim == 0 and not isinstance(bins, (list, tuple)):  # one int for every coordinate: input.size(-1)
        _args.absent_dim("torch.histogramdd", input.shape, -1, "points as rows of a (N, D) tensor")
    _histogram_dtype(input, isinstance(bins, (list, tuple)) and all(isinstance(b, Tensor) for b in bins),
                     "torch.histogramdd")
    if input.ndim < 2:
        raise _C.ShapeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, got "
                            f"{list(input.shape)}\n  fix: points as rows of a (N, D) tensor: x.reshape(-1, 1)")
    d = input.shape[-1]
    points: np.ndarray = input.detach().double().numpy(force=True).reshape(-1, d)
    per = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    if len(per) != d:
        raise _C.InvalidArgumentError(f"torch.histogramdd: expected {d} sequences of bin edges for each of the {d} "
                                      f"dimensions of the input, but got {len(per)}\n  fix: one bins entry per "
                                      f"coordinate, or one int for all")
    if range is not None and len(range) != 2 * d:
        raise _C.InvalidArgumentError(f"torch.histogramdd: expected {2 * d} values for range ({d} pairs of min and "
                                      f"max), got {len(range)}\n  fix: range=[min_0, max_0, min_1, max_1, ...]")
    edges = [_histogram_edges(points[:, k], per[k], None if range is None else range[2 * k:2 * k + 2], input)
             for k in builtins.range(d)]
    w: Optional[np.ndarray] = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise _C.ShapeError(f"torch.histogramdd(): weight should have the shape of input without its last dim, "
                                f"{list(input.shape[:-1])}, got {list(weight.shape)}\n  fix: one weight per point")
        w = weight.detach().double().numpy(force=True).reshape(-1)
    hist, _ = np.histogramdd(points, bins=edges, weights=w)
    hist = hist.astype(np.float64)
    if density:
        widths = np.ix_(*[np.diff(e) for e in edges])
        volume = functools.reduce(np.multiply, widths)
        hist = hist / (hist.sum() * volume)
    return return_type("histogramdd", ("hist", "bin_edges"))(
        _on(hist, input, input.dtype), tuple(_on(e, input, input.dtype) for e in edges))


__all__ = ["unique", "unique_consecutive", "bincount", "histc", "histogram", "histogramdd"]
