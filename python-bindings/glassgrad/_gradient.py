"""torch.gradient: the derivative of the samples of a function along each dim, estimated by
second-order central differences inside and first- or second-order one-sided differences at the
two ends (edge_order), as NumPy's numpy.gradient. The samples are at unit spacing, at a spacing
per dim (numbers), or at coordinates (a 1-d tensor per dim, possibly uneven). Each estimate is a
weighted sum of shifted slices of input, so it has input's gradient; coordinates are read as
numbers (no gradient flows to them)."""
from __future__ import annotations

import numbers
from typing import List, Sequence, Tuple

import numpy as np

from . import _C, _args
from ._math import add, mul
from ._shapes import narrow
from ._spatial import cat
from ._tensor import Tensor, _dim, tensor

__all__ = ["gradient"]


def _coordinates(spacing, dims: Sequence[int], shape, where: str) -> List[np.ndarray]:
    """One float64 array of sample positions per dim in dims."""
    if isinstance(spacing, (numbers.Real, np.number)) or (isinstance(spacing, Tensor) and spacing.ndim == 0):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise _C.InvalidArgumentError(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
            f"the same length, but got a spacing argument of length {len(spacing)} and a dim argument of length "
            f"{len(dims)}.\n  fix: one spacing per dim, or one number for all")
    out = []
    for s, d in zip(spacing, dims):
        if isinstance(s, Tensor) and s.ndim == 1:
            x = np.asarray(s.detach().double().numpy(force=True))
            if len(x) != shape[d]:
                raise _C.ShapeError(f"torch.gradient expected each tensor to be on the same device and have the "
                                    f"size of its dim: coordinates of length {len(x)} for dim {d} of size {shape[d]}\n"
                                    f"  fix: one coordinate per sample")
            out.append(x)
        else:
            h = float(s.item()) if isinstance(s, Tensor) else float(s)
            out.append(np.arange(shape[d], dtype=np.float64) * h)
    return out


def _weights(x: np.ndarray, edge_order: int):
    """(a, b, c) with derivative[i] = a[i] f[i-1] + b[i] f[i] + c[i] f[i+1] inside, and each end's
    (sample, weight) pairs (NumPy's formulas for uneven spacing; even spacing is their special
    case)."""
    n = len(x)
    hd, hs = x[1:-1] - x[:-2], x[2:] - x[1:-1]
    inner = (-hs / (hd * (hd + hs)), (hs - hd) / (hd * hs), hd / (hs * (hd + hs)))
    if edge_order == 1:
        first = [(0, -1 / (x[1] - x[0])), (1, 1 / (x[1] - x[0]))]
        last = [(n - 2, -1 / (x[-1] - x[-2])), (n - 1, 1 / (x[-1] - x[-2]))]
    else:
        d1, d2 = x[1] - x[0], x[2] - x[1]
        first = [(0, -(2 * d1 + d2) / (d1 * (d1 + d2))), (1, (d1 + d2) / (d1 * d2)), (2, -d1 / (d2 * (d1 + d2)))]
        d1, d2 = x[-2] - x[-3], x[-1] - x[-2]
        last = [(n - 3, d2 / (d1 * (d1 + d2))), (n - 2, -(d2 + d1) / (d1 * d2)),
                (n - 1, (2 * d2 + d1) / (d2 * (d1 + d2)))]
    return inner, first, last


def _along(f: Tensor, d: int, x: np.ndarray, edge_order: int) -> Tensor:
    n = f.shape[d]
    (a, b, c), first, last = _weights(x, edge_order)

    def w(values) -> Tensor:  # weights along dim d, broadcast over the others
        arr = np.asarray(values, dtype=np.float64)
        shape = [1] * f.ndim
        shape[d] = arr.size
        return tensor(arr.reshape(shape), dtype=f.dtype, device=f.device)

    def weighted(terms) -> Tensor:
        out = mul(narrow(f, d, terms[0][0], terms[0][1]), w(terms[0][2]))
        for start, length, weights in terms[1:]:
            out = add(out, mul(narrow(f, d, start, length), w(weights)))
        return out

    pieces = [weighted([(i, 1, [v]) for i, v in first])]
    if n > 2:
        pieces.append(weighted([(0, n - 2, a), (1, n - 2, b), (2, n - 2, c)]))
    pieces.append(weighted([(i, 1, [v]) for i, v in last]))
    return cat(pieces, d)


def gradient(input: Tensor, *, spacing=None, dim=None, edge_order: int = 1) -> Tuple[Tensor, ...]:
    """torch.gradient(input, *, spacing=None, dim=None, edge_order=1) (spacing None is 1): a tuple of one derivative
    estimate per dim (every dim of input when dim is None), each of input's shape (a floating
    type; integers give the default floating type)."""
    where = "gradient"
    if input.dtype == "uint8":  # PyTorch's RuntimeError; bool: its NotImplementedError of bool subtraction
        raise _C.DTypeError("torch.gradient does not support uint8 input.\n  fix: input.long() or input.float()")
    if input.dtype == "bool":
        raise _args.UnsupportedDTypeError("Subtraction, the `-` operator, with two bool tensors is not supported.\n"
                                          "  gradient: a bool input\n  fix: input.float()")
    if edge_order not in (1, 2) or isinstance(edge_order, bool):
        raise _C.InvalidArgumentError("torch.gradient only supports edge_order=1 and edge_order=2.\n"
                                      "  fix: edge_order=1 or 2")
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, (numbers.Integral, np.integer)):
        dims = [_dim(int(dim), input.ndim, where, input.shape)]
    else:
        dims = [_dim(int(d), input.ndim, where, input.shape) for d in dim]
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise _C.ShapeError(f"torch.gradient expected each dimension size to be at least edge_order+1\n"
                                f"  dim {d} of {list(input.shape)} has {input.shape[d]} samples\n  fix: "
                                f"edge_order=1, or at least {edge_order + 1} samples")
    f = input if input.dtype.is_floating_point else input.astype(_default_float())
    coords = _coordinates(1 if spacing is None else spacing, dims, input.shape, where)
    _args.integer(edge_order, "edge_order", where)
    return tuple(_along(f, d, x, edge_order) for d, x in zip(dims, coords))


def _default_float():
    from ._dtypes import get_default_dtype
    return get_default_dtype()
