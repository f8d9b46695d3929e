"""torch.linalg.vander, tensorinv and tensorsolve: reshapes around the matrix functions (and, for
vander, a cumulative product), so their gradients come from autograd (docs/linalg.md)."""
from __future__ import annotations

import math

from .. import _C
from .._tensor import Tensor, _dim
from .._out import write_out
from ._checks import check_float
from ._lu import inv, solve


def vander(x: Tensor, *, N=None) -> Tensor:
    """torch.linalg.vander: [..., n] -> [..., n, N] with columns x^0, x^1, ..., x^(N-1) (N defaults
    to n, and must exceed 1; a 0-d x is read as [1]); integers stay integers (int64, as cumprod gives)."""
    from .._shapes import cat
    if x.dtype == "bool":
        raise _C.InvalidArgumentError("linalg.vander supports floating point, complex, and integer tensors, but got "
                                      "Bool\n  fix: x.long() or x.float()")
    x = x.reshape(1) if x.ndim == 0 else x  # a 0-d x is one point, as PyTorch reads it
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        raise _C.InvalidArgumentError(f"N must be greater than 1.\n  linalg.vander: N = {n} for x {list(x.shape)}\n"
                                      "  fix: pass N >= 2 (the number of columns)")
    column = x.unsqueeze(-1)
    powers = column.expand(*x.shape, n - 1).cumprod(-1)
    return cat([(column * 0 + 1).to(powers.dtype), powers], -1)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """torch.linalg.tensorinv: the inverse of A read as the matrix [prod(shape[:ind]), prod(shape[ind:])]
    (which must be square), shaped shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise _C.InvalidArgumentError(f"Expected a strictly positive integer for 'ind', but got {ind}\n"
                                      "  fix: ind is how many leading axes index the rows")
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise _C.ShapeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}\n"
                            f"  linalg.tensorinv: A {list(A.shape)}, ind = {ind}\n  fix: choose ind so both halves hold "
                            "as many elements")
    X = inv(A.reshape(math.prod(rows), math.prod(cols))).reshape(*cols, *rows)
    return X if out is None else write_out(out, X, "linalg.tensorinv")  # a castable out, as PyTorch's


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B; A's axes `dims` are first moved
    to the end; X has shape A.shape[B.ndim:]."""
    check_float(B, "tensorsolve", "B")
    if dims is not None:
        dims = [_dim(d, A.ndim, "linalg.tensorsolve", A.shape) for d in dims]  # out of range: IndexError
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    shape = list(A.shape[B.ndim:])
    if math.prod(shape) != B.numel() or math.prod(A.shape[:B.ndim]) != B.numel():
        raise _C.ShapeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                            f"prod(self.shape[:other.ndim]), but got {math.prod(shape)} != {B.numel()}\n"
                            f"  linalg.tensorsolve: A {list(A.shape)}, B {list(B.shape)}\n"
                            "  fix: A's first B.ndim axes hold as many elements as B, and so do its other axes")
    X = solve(A.reshape(B.numel(), B.numel()), B.reshape(B.numel())).reshape(*shape)
    return X if out is None else write_out(out, X, "linalg.tensorsolve")  # a castable out, as PyTorch's
