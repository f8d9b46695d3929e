"""torch.linalg's products and views: matrix_power (repeated squaring; negative powers through
inv), multi_dot, vecdot, cross, diagonal, matmul (docs/linalg.md)."""
from __future__ import annotations

from .. import _C, _autocast
from .._factories import eye
from .._shapes import cross as _cross
from .._tensor import Tensor
from ._checks import check_same_dtype, into


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """torch.linalg.matrix_power: A^n for an integer n; A^0 is the identity, A^-n is inv(A)^n."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise _C.ShapeError(f"linalg.matrix_power: A must be batches of square matrices, got {list(A.shape)}\n"
                            "  fix: pass [..., n, n]")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {type(n).__name__}")
    if n < 0:
        from ._lu import inv
        A, n = inv(A), -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    if result is None:
        result = eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(*A.shape) * 1
    return into(out, result)


@_autocast.op("multi_dot")
def multi_dot(tensors, *, out=None) -> Tensor:
    """torch.linalg.multi_dot: the product of 2-D matrices, the first may be 1-D (a row) and the
    last 1-D (a column)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise _C.InvalidArgumentError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first, last = ts[0].ndim == 1, ts[-1].ndim == 1
    ts[0] = ts[0].unsqueeze(0) if first else ts[0]
    ts[-1] = ts[-1].unsqueeze(-1) if last else ts[-1]
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise _C.ShapeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D\n  fix: only the first and "
                                "last may be 1-D")
    y = ts[0]
    for t in ts[1:]:
        y = y @ t
    y = y.squeeze(-1) if last else y
    y = y.squeeze(0) if first else y
    return into(out, y)


@_autocast.op("vecdot")
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """torch.linalg.vecdot: sum(x * y) over dim (real floating inputs: integers and bools are
    PyTorch's RuntimeError)."""
    check_same_dtype(x, y, "linalg.vecdot: Expected x and y to have the same dtype, but found x of type {a} and y "
                           "of type {b} instead")
    if not x.dtype.is_floating_point:
        raise _C.DTypeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {x.dtype}\n"
                            f"  fix: x.float(), y.float()")
    r = (x * y).sum(dim)
    return into(out, r)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """torch.linalg.cross: the cross product over dim (default the last, unlike torch.cross)."""
    r = _cross(input, other, dim)
    return into(out, r)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """torch.linalg.diagonal: torch.diagonal with the last two axes as default."""
    return A.diagonal(offset, dim1, dim2)


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """torch.linalg.matmul: torch.matmul."""
    r = input @ other
    return into(out, r)
