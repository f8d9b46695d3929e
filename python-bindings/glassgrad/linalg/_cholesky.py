"""Cholesky factorization column by column, and triangular solves by substitution, as loops of
n batched steps of existing ops (docs/linalg.md); autograd differentiates the steps."""
from __future__ import annotations

from typing import NamedTuple

from .._return_types import torch_name
from .. import _autocast
from .._factories import arange, zeros_like
from .._shapes import stack
from .._tensor import Tensor
from ..functional import where
from ._checks import into, into_each, LinAlgError, batch_prefix, broadcast_batch, check_float, check_matrix, first_failure


def _factor(A: Tensor):
    """(L, not_pd [..., n] bool: the leading minor of that order is not positive-definite).
    Reads A's lower triangle, as LAPACK's potrf does; the gradient is that of the symmetric
    matrix (A + A^T) / 2, as PyTorch's is (an input perturbed off the symmetric matrices has no
    Cholesky factor)."""
    n = A.shape[-1]
    lower = A.tril() + A.tril(-1).transpose(-1, -2)
    sym = (A + A.transpose(-1, -2)) * 0.5
    A = lower.detach() + (sym - sym.detach())
    rows = arange(n, device=A.device)
    L = zeros_like(A)  # columns j.. are still zero at step j: L @ L[j] sums over the finished ones
    bad: list = []
    for j in range(n):
        v = A[..., :, j]
        if j:
            v = v - (L @ L[..., j, :].unsqueeze(-1)).squeeze(-1)
        d = v[..., j:j + 1]
        ok = d > 0  # also False for NaN
        bad.append(~ok[..., 0])
        col = where(rows >= j, v / where(ok, d, 1.0).sqrt(), 0.0)
        L = where(rows == j, col.unsqueeze(-1), L)
    if not n:
        return A, (A.sum(-1) != A.sum(-1))
    return L, stack(bad, -1)


def _not_pd(A: Tensor, bad: Tensor, fn: str) -> None:
    found = first_failure(bad)
    if found is not None:
        b, i = found
        raise LinAlgError(f"linalg.{fn}: {batch_prefix(A, b)}The factorization could not be completed because the "
                          f"input is not positive-definite (the leading minor of order {i + 1} is not "
                          "positive-definite).")


@_autocast.op("cholesky")
def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """torch.linalg.cholesky: L lower-triangular with A = L L^T (upper=True: U = L^T, A = U^T U),
    from A's lower triangle; a matrix that is not positive-definite raises LinAlgError naming the
    batch element and the order of the failing leading minor."""
    check_matrix(A, "cholesky")
    L, bad = _factor(A)
    _not_pd(A, bad, "cholesky")
    L = L.transpose(-1, -2) if upper else L
    return into(out, L)


@torch_name("linalg_cholesky_ex")
class CholeskyEx(NamedTuple):
    L: Tensor
    info: Tensor


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None) -> CholeskyEx:
    """torch.linalg.cholesky_ex: (L, info), info [...] int32 is 0, or the order of the first leading
    minor that is not positive-definite (L is then not a factor)."""
    check_matrix(A, "cholesky_ex")
    L, bad = _factor(A)
    if check_errors:
        _not_pd(A, bad, "cholesky_ex")
    flags = bad.to("int32")
    if A.shape[-1]:
        info = where(flags.amax(-1) > 0, flags.argmax(-1) + 1, 0).to("int32")
    else:
        info = flags.sum(-1).to("int32")
    return into_each(out, CholeskyEx(L.transpose(-1, -2) if upper else L, info), "linalg.cholesky_ex")


def cholesky_top(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """torch.cholesky (deprecated in PyTorch for linalg.cholesky): the same factor."""
    return cholesky(input, upper=upper, out=out)


def _substitute_lower(L: Tensor, B: Tensor, unit: bool) -> Tensor:
    """X with L X = B, L [..., n, n] lower-triangular, B [..., n, k]: row by row,
    x_i = (b_i - L[i, :i] x[:i]) / L[i, i]."""
    n = L.shape[-1]
    index = arange(n, device=L.device).unsqueeze(-1)
    X = zeros_like(B)  # rows i.. are still zero at step i
    for i in range(n):
        r = B[..., i:i + 1, :]
        if i:
            r = r - L[..., i:i + 1, :] @ X
        X = where(index == i, r if unit else r / L[..., i:i + 1, i:i + 1], X)
    return X


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:
    """torch.linalg.solve_triangular: X with A X = B (left=True) or X A = B, reading only A's upper or
    lower triangle (its diagonal taken as ones when unitriangular). A zero on the diagonal gives
    infinities/NaNs, not an error, as in PyTorch."""
    check_matrix(A, "solve_triangular")
    check_float(B, "solve_triangular", "B")
    if B.ndim < 2:
        from .. import _C
        raise _C.ShapeError(f"linalg.solve_triangular: The input tensor B must have at least 2 dimensions. Got "
                            f"shape {list(B.shape)}\n  fix: a vector right-hand side is B.unsqueeze(-1)")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        from .. import _C
        raise _C.ShapeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})\n"
                            f"  fix: B's {'rows' if left else 'columns'} must number A's columns")
    A, B = broadcast_batch(A, B.to(A.dtype), "solve_triangular")
    if not left:  # X A = B  <=>  A^T X^T = B^T
        A, B, upper = A.transpose(-1, -2), B.transpose(-1, -2), not upper
    if upper:  # reversing rows and columns turns an upper-triangular system into a lower one
        X = _substitute_lower(A.flip((-2, -1)), B.flip((-2,)), unitriangular).flip((-2,))
    else:
        X = _substitute_lower(A, B, unitriangular)
    X = X if left else X.transpose(-1, -2)
    return into(out, X)
