"""Elimination with partial pivoting as a loop of n batched steps of existing ops (docs/linalg.md):
solve, inv, det, slogdet. Each step picks the largest remaining entry of column j as the pivot
(argmax: no gradient, as in LAPACK's getrf), swaps it into row j with a gather, and subtracts
multiples of the pivot row; autograd differentiates the steps, so the gradients are those of the
computed result. The same pivots as getrf's, so a matrix is singular here exactly when PyTorch
says so (a pivot that is exactly zero)."""
from __future__ import annotations

from typing import NamedTuple

from .._return_types import torch_name
from .._factories import arange, eye
from .. import _output_numbers
from .._tensor import Tensor
from ..functional import gather, where
from ._checks import (into, into_each, LinAlgError, batch_prefix, broadcast_batch, check_float, check_matrix, check_same_dtype,
                      first_failure)


def _eliminate(M: Tensor, n: int, jordan: bool, compact: bool = False):
    """Eliminates column by column in M [..., m, w] (n steps, the matrix in M's first columns).
    jordan=True: Gauss-Jordan, M becomes [I | A^-1 B]; False: the matrix becomes U of P A = L U,
    with compact=True holding L's multipliers below the diagonal, as LAPACK's getrf leaves them
    (later swaps move them with their rows). Returns (M, pivots [..., n], number of row swaps
    [...] as float, swapped rows [..., n] int64: getrf's ipiv, 0-based)."""
    if n == 0:  # an empty matrix: nothing to eliminate (PyTorch's inv and solve of 0 x 0 are empty)
        from .._factories import zeros
        batch = tuple(M.shape[:-2])
        return (M, zeros(*batch, 0, dtype=M.dtype, device=M.device), zeros(batch, dtype=M.dtype, device=M.device),
                zeros(*batch, 0, dtype="int64", device=M.device))
    rows = arange(M.shape[-2], device=M.device)
    cols = arange(M.shape[-1], device=M.device)
    swaps = None
    pivots, chosen = [], []
    for j in range(n):
        col = M[..., :, j]
        p = where(rows >= j, col.detach().abs(), -1.0).argmax(-1, keepdim=True)  # [..., 1]
        chosen.append(p[..., 0])
        order = where(rows == j, p, where(rows == p, j, rows))
        M = gather(M, -2, order.unsqueeze(-1).expand(*M.shape))
        swapped = (p[..., 0] != j).to(M.dtype)
        swaps = swapped if swaps is None else swaps + swapped
        pivot = M[..., j:j + 1, j:j + 1]
        pivots.append(pivot[..., 0, 0])
        safe = where(pivot == 0, 1.0, pivot)  # a zero pivot's column below is zero: nothing to do
        f = M[..., :, j:j + 1] / safe
        if jordan:
            f = where((rows == j).unsqueeze(-1), 1 - 1 / safe, f)
        else:
            f = where((rows > j).unsqueeze(-1), f, 0.0)
        if compact:  # row j's columns left of j hold its multipliers: they take no part
            M = M - f * where(cols >= j, M[..., j:j + 1, :], 0.0)
            M = where((rows > j).unsqueeze(-1) & (cols == j), f, M)
        else:
            M = M - f * M[..., j:j + 1, :]
    from .._shapes import stack
    return M, stack(pivots, -1), swaps, stack(chosen, -1)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) when it is 1-D, or when its shape is A's without
    the last axis."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_ex(A: Tensor, B: Tensor, fn: str):
    """(X with A X = B, info [...] int32: 0, or i where the i-th pivot (1-based) is zero)."""
    n = A.shape[-1]
    A, B = broadcast_batch(A, B, fn)
    from .._spatial import cat
    M, pivots, _, _ = _eliminate(cat([A, B], -1), n, jordan=True)
    zero = pivots == 0
    if n == 0:
        return M[..., :, n:], zeros_info(A), zero
    flags = zero.to("int32")
    info = where(flags.amax(-1) > 0, flags.argmax(-1) + 1, 0).to("int32")
    return M[..., :, n:], info, zero


def zeros_info(A: Tensor) -> Tensor:
    from .._factories import zeros
    return zeros(A.shape[:-2], dtype="int32", device=A.device)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """torch.linalg.solve: X with A X = B (left=True) or X A = B. B is [..., n, k], or [..., n] for
    a batch of vectors (PyTorch's rule: 1-D, or A's shape without the last axis); batch axes
    broadcast. A singular A raises LinAlgError."""
    check_matrix(A, "solve")
    check_float(B, "solve", "B")
    check_same_dtype(A, B, "linalg.solve: Expected A and B to have the same dtype, but found A of type {a} and B of "
                           "type {b} instead")
    vector = _is_vector_rhs(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-1] if left else Bm.shape[-1] != A.shape[-1]:
        from .. import _C
        raise _C.ShapeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                            f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                            f"{Bm.shape[-2]}x{Bm.shape[-1]})\n  fix: B's {'rows' if left else 'columns'} must "
                            "number A's columns")
    if not left:
        Bm = Bm.transpose(-1, -2)
        A = A.transpose(-1, -2)
    X, _, zero = _solve_ex(A, Bm, "solve")
    if first_failure(zero) is not None:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    if not left:
        X = X.transpose(-1, -2)
    X = X.squeeze(-1) if vector else X
    return into(out, X)


def _identity_like(A: Tensor) -> Tensor:
    n = A.shape[-1]
    return eye(n, dtype=A.dtype, device=A.device).expand(*A.shape)


@torch_name("linalg_inv_ex")
class InvEx(NamedTuple):
    inverse: Tensor
    info: Tensor


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None) -> InvEx:
    """torch.linalg.inv_ex: (inverse, info), info [...] int32 is 0, or i when the i-th pivot is
    zero (the inverse then holds infinities and NaNs); check_errors=True raises instead."""
    check_matrix(A, "inv_ex")
    X, info, zero = _solve_ex(A, _identity_like(A), "inv_ex")
    if check_errors:
        _raise_singular(A, zero, "inv_ex")
    return into_each(out, InvEx(X, info), "linalg.inv_ex")


def _raise_singular(A: Tensor, zero: Tensor, fn: str) -> None:
    bad = first_failure(zero)
    if bad is not None:
        b, i = bad
        raise LinAlgError(f"linalg.{fn}: {batch_prefix(A, b)}The diagonal element {i + 1} is zero, the inversion "
                          "could not be completed because the input matrix is singular.")


def inv(A: Tensor, *, out=None) -> Tensor:
    """torch.linalg.inv: the inverse of each matrix of A [..., n, n]; a singular one raises
    LinAlgError naming the batch element and the zero pivot."""
    check_matrix(A, "inv")
    X, _, zero = _solve_ex(A, _identity_like(A), "inv")
    _raise_singular(A, zero, "inv")
    return into(out, X)


def _lu_pivots(A: Tensor, fn: str):
    check_matrix(A, fn)
    n = A.shape[-1]
    if n == 0:
        from .._factories import ones
        one = ones(A.shape[:-2], dtype=A.dtype, device=A.device)
        return one, one * 0
    _, pivots, swaps, _ = _eliminate(A, n, jordan=False)
    return pivots, swaps


def det(A: Tensor, *, out=None) -> Tensor:
    """torch.linalg.det: the product of the pivots of P A = L U, times the permutation's sign."""
    pivots, swaps = _lu_pivots(A, "det")
    sign = 1 - 2 * (swaps.remainder(2))
    d = pivots.prod(-1) * sign if pivots.ndim > swaps.ndim else pivots * sign
    return into(out, d)


@torch_name("linalg_slogdet")
class SlogDet(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def slogdet(A: Tensor, *, out=None) -> SlogDet:
    """torch.linalg.slogdet: (sign, log|det|); a singular A gives (0, -inf)."""
    pivots, swaps = _lu_pivots(A, "slogdet")
    if pivots.ndim == swaps.ndim:  # 0x0 matrices: det 1
        return into_each(out, SlogDet(pivots, swaps), "linalg.slogdet")
    sign = (1 - 2 * swaps.remainder(2)) * pivots.sign().prod(-1)
    logabsdet = pivots.abs().log().sum(-1)
    if logabsdet.requires_grad:
        _output_numbers.number_at(logabsdet, 1)
    return into_each(out, SlogDet(sign.detach(), logabsdet), "linalg.slogdet")


def logdet(A: Tensor) -> Tensor:
    """torch.logdet: log(det A): NaN for a negative determinant, -inf for a singular A."""
    s, la = slogdet(A)
    return where(s < 0, float("nan"), where(s == 0, float("-inf"), la))
