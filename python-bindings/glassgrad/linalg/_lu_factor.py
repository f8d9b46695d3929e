"""lu_factor, lu, lu_solve and torch.lu_unpack: the compact LU factorization of the elimination
in _lu.py (getrf's form: L's multipliers below U, 1-based row swaps in pivots), for batches of
m x n matrices (docs/linalg.md)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._return_types import torch_name
from .. import _C, _output_numbers
from .._dtypes import plain
from .._factories import eye, zeros
from .._tensor import Tensor, tensor
from ..functional import gather, where
from ._checks import (LinAlgError, batch_prefix, broadcast_batch, check_float, check_lu_dtype, check_matrix, check_same_dtype,
                      first_failure, into, into_each)
from ._lu import _eliminate


@torch_name("linalg_lu_factor")
class LUFactor(NamedTuple):
    LU: Tensor
    pivots: Tensor


@torch_name("lu_unpack")
class PLU(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


@torch_name("linalg_lu")
class LinalgLU(NamedTuple):  # linalg.lu's (P, L, U); torch.lu_unpack's is PLU
    P: Tensor
    L: Tensor
    U: Tensor


@torch_name("linalg_lu_factor_ex")
class LUFactorEx(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None) -> LUFactorEx:
    """torch.linalg.lu_factor_ex: lu_factor's (LU, pivots) and info [...] int32: 0, or (1-based)
    the first i with U[i, i] exactly zero, as LAPACK's getrf; a singular A is factored, not refused,
    unless check_errors. pivot=False is not supported (as on PyTorch's CPU)."""
    return _lu_factor_ex(A, pivot, check_errors, out, "lu_factor_ex")


def _lu_factor_ex(A: Tensor, pivot: bool, check_errors: bool, out, fn: str) -> LUFactorEx:
    check_lu_dtype(A, fn)
    check_matrix(A, fn, square=False)
    if not pivot:
        from .. import _C
        raise _C.UnsupportedError(f"linalg.{fn}: LU without pivoting is not implemented on the CPU\n  fix: pivot=True")
    LU, piv, zero = _factor(A)
    if check_errors:
        bad = first_failure(zero)
        if bad is not None:
            b, i = bad
            raise LinAlgError(f"torch.linalg.{fn}: {batch_prefix(A, b)}U[{i + 1},{i + 1}] is zero and using it on "
                              "lu_solve would result in a division by zero. If you still want to perform the "
                              "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
                              "\n  fix: linalg.lu(A) or linalg.lu_factor_ex(A) factor a singular A; linalg.lstsq "
                              "solves with it")
    # the count of non-zero pivots before the first zero is its 0-based index (0x0 matrices included)
    leading = (zero.to("int32").cumsum(-1) == 0).sum(-1)
    info = where(zero.any(-1), leading + 1, 0).to("int32")
    return into_each(out, LUFactorEx(LU, piv, info))


def lu_factor(A: Tensor, *, pivot: bool = True, out=None) -> LUFactor:
    """torch.linalg.lu_factor: (LU, pivots) with A = P L U; LU holds U and, below its diagonal,
    L's multipliers (unit diagonal implied); pivots [..., min(m, n)] int32 are LAPACK's 1-based row
    swaps. A zero on U's diagonal is refused, as PyTorch's (lu_factor_ex factors it). pivot=False
    is not supported (as on PyTorch's CPU)."""
    LU, piv, _ = _lu_factor_ex(A, pivot, True, None, "lu_factor")
    return into_each(out, LUFactor(LU, piv))


def _factor(A: Tensor):
    """(LU, pivots int32 1-based, zero [..., k] bool: where U's diagonal is exactly zero)."""
    k = min(A.shape[-2], A.shape[-1])
    LU, diag, _, swapped = _eliminate(A, k, jordan=False, compact=True)
    return LU, (swapped + 1).to("int32"), diag == 0


def _order(pivots: Tensor, m: int) -> Tensor:
    """The row order P^T applies ([..., m] int64): rows swapped in turn as pivots say."""
    piv: np.ndarray = pivots.numpy(force=True).astype(np.int64) - 1
    order = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
    idx = np.indices(piv.shape[:-1])
    for j in range(piv.shape[-1]):
        pj = piv[..., j]
        a, b = order[(*idx, np.full(piv.shape[:-1], j))].copy(), order[(*idx, pj)].copy()
        order[(*idx, np.full(piv.shape[:-1], j))] = b
        order[(*idx, pj)] = a
    return tensor(order, dtype="int64", device=pivots.device)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True,
              *, out=None) -> PLU:
    """torch.lu_unpack: (P, L, U) of lu_factor's result, A = P L U. unpack_data=False leaves L and
    U empty (shape [0]), unpack_pivots=False leaves P empty, as PyTorch's. Checked in PyTorch's
    order: LU_data's dims (RuntimeError), the pivots' dtype int32 (RuntimeError), their shape
    (LU_data's batch + [min(m, n)]: ValueError), their values in [1, m] (RuntimeError)."""
    if LU_data.ndim < 2:
        raise _C.ShapeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                            f"{list(LU_data.shape)} instead\n  fix: LU_data, pivots = torch.linalg.lu_factor(A)")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    if plain(LU_pivots.dtype) != "int32":
        raise _C.DTypeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype, "
                            f"got {LU_pivots.dtype}\n  fix: the pivots lu_factor returned, or pivots.int()")
    want = list(LU_data.shape[:-2]) + [k]
    if list(LU_pivots.shape) != want:
        raise _C.ShapeError(f"Expected LU_pivots to have shape {want} but got {list(LU_pivots.shape)} instead.\n"
                            f"  lu_unpack: LU_data {list(LU_data.shape)}\n  fix: the pivots lu_factor returned")
    empty = zeros(0, dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        U = LU_data[..., :k, :].triu()
    else:
        L, U = empty, empty
    if unpack_pivots:
        piv: np.ndarray = LU_pivots.numpy(force=True)
        if ((piv < 1) | (piv > m)).any():
            raise _C.InvalidArgumentError(f"pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did "
                                          f"you properly pass the result of lu_factor?\n  lu_unpack: LU.size(-2) = {m}")
        Im = eye(m, dtype=LU_data.dtype, device=LU_data.device)
        order = _order(LU_pivots, m)  # P^T A = A[order]: P^T = I[order], P = I[order]^T
        P = gather(Im.expand(*order.shape, m), -2, order.unsqueeze(-1).expand(*order.shape, m)).transpose(-1, -2)
    else:
        P = empty
    return into_each(out, _output_numbers.number(PLU(P, L, U)), "lu_unpack")


def lu(A: Tensor, *, pivot: bool = True, out=None) -> LinalgLU:
    """torch.linalg.lu: (P, L, U) with A = P L U, L [..., m, k] unit lower-triangular, U [..., k, n]."""
    check_lu_dtype(A, "lu")
    check_matrix(A, "lu", square=False)
    if not pivot:
        from .. import _C
        raise _C.UnsupportedError("linalg.lu: LU without pivoting is not implemented on CPU\n  fix: pivot=True")
    LU, piv, _ = _factor(A)
    return into_each(out, _output_numbers.number(LinalgLU(*lu_unpack(LU, piv))), "linalg.lu")


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, out=None) -> Tensor:
    """torch.linalg.lu_solve: X with A X = B from lu_factor(A) (adjoint: A^T X = B; left=False:
    X A = B, or X A^T = B)."""
    from ._cholesky import solve_triangular
    check_matrix(LU, "lu_solve")
    check_float(B, "lu_solve", "B")
    check_same_dtype(LU, B, "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type {a} and "
                            "B of type {b} instead")
    if not left:  # X A = B  <=>  A^T X^T = B^T;  X A^T = B  <=>  A X^T = B^T
        return into(out, lu_solve(LU, pivots, B.transpose(-1, -2), adjoint=not adjoint).transpose(-1, -2))
    n = LU.shape[-1]
    LU, B = broadcast_batch(LU, B, "lu_solve")
    order = _order(pivots, n).expand(*B.shape[:-2], n)
    k = B.shape[-1]
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B, P^T B = B[order]
        PtB = gather(B, -2, order.unsqueeze(-1).expand(*order.shape, k))
        Y = solve_triangular(LU, PtB, upper=False, unitriangular=True)
        return into(out, solve_triangular(LU, Y, upper=True))
    # A^T = U^T L^T P^T: X = P L^-T U^-T B, (P Z)[order] = Z
    Y = solve_triangular(LU.transpose(-1, -2), B, upper=False)
    Z = solve_triangular(LU.transpose(-1, -2), Y, upper=True, unitriangular=True)
    inverse = order.argsort(-1)
    return into(out, gather(Z, -2, inverse.unsqueeze(-1).expand(*inverse.shape, k)))
