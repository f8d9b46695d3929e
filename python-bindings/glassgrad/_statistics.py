"""PyTorch's estimates and integrals over samples, composed of glassgrad's differentiable ops:
torch.cov and corrcoef (rows are variables, columns observations, as numpy.cov), trapezoid /
trapz and cumulative_trapezoid (the trapezoid rule along an axis), and pdist (the distances
between every pair of rows)."""
from __future__ import annotations

import math
from typing import Optional

from . import _C, _args, _autocast, _dtypes
from ._arranging import triu_indices
from ._inplace import _type_name
from ._tensor import Tensor, _dim


def cov(input: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None,
        aweights: Optional[Tensor] = None) -> Tensor:
    """torch.cov: the covariance matrix of the variables in input's rows (a 1-d input is one
    variable: the result is 0-d). fweights (integer repeats) and aweights (observation weights)
    weigh the columns; correction=1 is Bessel's (numpy.cov's formula with both weights)."""
    if not isinstance(input, Tensor) or input.ndim > 2:
        raise _C.ShapeError(f"cov: expected input to have two or fewer dimensions but got an input with "
                            f"{getattr(input, 'ndim', '?')} dimensions\n  fix: input.reshape(variables, observations)")
    if input.dtype == "bool":  # PyTorch's NotImplementedError
        raise _args.UnsupportedDTypeError("cov(): bool dtype is not supported for input\n  fix: input.float()")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if x.dtype not in ("float32", "float64", "float16", "bfloat16"):
        x = x.to("float32")
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        if not isinstance(weights, Tensor) or weights.ndim > 1 or weights.numel() != n:
            raise _C.ShapeError(f"cov: expected {name} to have one dimension and {n} elements (one per "
                                f"observation), got {list(getattr(weights, 'shape', []))}")
        if name == "fweights" and weights.dtype not in ("int64", "int32", "int16", "int8", "uint8"):
            raise _C.DTypeError(f"cov: expected fweights to have an integral dtype, got {weights.dtype}\n"
                                f"  fix: fweights.long()")
        if n and (weights.numpy(force=True) < 0).any():  # PyTorch reads the weights too (its RuntimeError)
            raise _C.InvalidArgumentError(f"cov(): {name} cannot be negative\n  cause: {name} holds a value below 0\n"
                                          f"  fix: weights of 0 or more ({name}.clamp(min=0) if the negatives are noise)")
        w = weights.to(x.dtype) if w is None else w * weights.to(x.dtype)
    correction = _args.integer(correction, "correction", "cov")
    if w is None:
        total = float(n)
        mean = x.mean(1, keepdim=True)
        norm = total - correction
        centered = x - mean
        out = (centered @ centered.t()) / norm
    else:
        total = w.sum()
        mean = (x * w).sum(1, keepdim=True) / total
        centered = x - mean
        if correction == 0:
            norm = total
        elif aweights is None:
            norm = total - correction
        else:
            norm = total - correction * (w * aweights.to(x.dtype)).sum() / total
        out = ((centered * w) @ centered.t()) / norm
    return out.reshape(()) if input.ndim < 2 else out


def corrcoef(input: Tensor) -> Tensor:
    """torch.corrcoef: Pearson's correlation coefficients of the variables in input's rows,
    clipped to [-1, 1] as PyTorch does."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.reshape(-1, 1) / d.reshape(1, -1)).clamp(-1, 1)


def _spacing(y: Tensor, x, dx, dim: int, where: str):
    if y.ndim == 0:  # PyTorch reads y's dim before anything else: IndexError, as for any dim of a 0-d tensor
        raise _C.GlassgradIndexError(f"{where}: Dimension specified as {dim} but tensor has no dimensions: y is 0-d, "
                                     f"as PyTorch\n  fix: y.reshape(-1), or integrate a 1-d or larger y")
    d = _dim(dim, y.ndim, where, y.shape)
    if x is not None and dx is not None:
        raise _C.InvalidArgumentError(f"{where}: pass x or dx, not both\n  fix: drop dx=")
    if isinstance(x, Tensor):
        if x.ndim == 1:
            if x.shape[0] != y.shape[d]:
                raise _C.ShapeError(f"{where}: There must be one `x` value for each sample point: x has "
                                    f"{x.shape[0]}, y has {y.shape[d]} along dim {dim}")
            shape = [1] * y.ndim
            shape[d] = x.shape[0] - 1
            return x.diff().reshape(shape), d
        return x.diff(dim=dim), d
    step = 1.0 if x is None and dx is None else (x if x is not None else dx)
    return _args.real(step, "dx", where), d


def _halves(y: Tensor, d: int):
    n = y.shape[d]
    return y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)


def _refuse_bool(where: str, y: Tensor, x) -> None:
    if y.dtype == "bool" or (isinstance(x, Tensor) and x.dtype == "bool"):
        raise _args.UnsupportedDTypeError(f"{where}: received a bool input for `x` or `y`, but bool is not supported (as in "
                            f"PyTorch)\n  fix: convert first: y.float()")


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """torch.trapezoid: the trapezoid rule's integral of y along dim, with sample points x (a
    tensor) or a constant spacing (x or dx as a number, default 1)."""
    _refuse_bool("trapezoid", y, x)
    spacing, d = _spacing(y, x, dx, dim, "trapezoid")
    if y.shape[d] == 0:  # zeros in y's own dtype, as PyTorch's
        return y.sum(d).astype(y.dtype)
    left, right = _halves(y, d)
    return ((left + right) * spacing).sum(d) / 2


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """torch.trapz: the same as trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """torch.cumulative_trapezoid: the running trapezoid-rule integral along dim (one fewer
    element than y there)."""
    _refuse_bool("cumulative_trapezoid", y, x)
    spacing, d = _spacing(y, x, dx, dim, "cumulative_trapezoid")
    if y.shape[d] == 0:  # no intervals: an empty result, floating as the integral would be
        return y if y.dtype.is_floating_point else y.astype(_dtypes.DEFAULT_FLOAT)
    left, right = _halves(y, d)
    return ((left + right) * spacing / 2).cumsum(d)


@_autocast.op("pdist")
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """torch.pdist / F.pdist: the p-norm distances between every pair of rows i < j of a 2-d
    input, in row-major order of (i, j) (N (N - 1) / 2 values)."""
    if not isinstance(input, Tensor) or input.ndim != 2:
        raise _C.ShapeError(f"pdist: only supports 2D tensors, got: {getattr(input, 'ndim', '?')}D\n"
                            f"  fix: input.reshape(n, -1)")
    if not (isinstance(p, (int, float)) and p == math.inf):  # p=inf is the largest difference, as in PyTorch
        p = _args.real(p, "p", "pdist", minimum=0.0)
    if not input.dtype.is_floating_point:
        raise _C.DTypeError(f"pdist only supports floating-point dtypes, got {input.dtype}\n  fix: input.float()")
    if input.dtype in ("float16", "bfloat16"):  # PyTorch's CPU kernel: NotImplementedError
        raise _args.UnsupportedDTypeError(f"\"pdist\" not implemented for '{_type_name(input.dtype)}'\n  pdist: "
                                          f"{list(input.shape)} {input.dtype}\n  fix: input.float()")
    pairs = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    diff = input.index_select(0, pairs[0]) - input.index_select(0, pairs[1])
    from ._reductions import distance_norm
    from ._torch_operands import named_node
    return named_node(distance_norm(diff, p, 1) if diff.shape[0] else diff.sum(1), "PdistBackward0", input)


__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid", "pdist"]
