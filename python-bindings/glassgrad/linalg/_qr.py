"""Householder QR as a loop of min(m - 1, n) batched reflections (LAPACK geqrf's convention:
R[j, j] = -sign(A[j, j]) ||column||, so Q and R match PyTorch's), and what it solves: lstsq and
pinv (docs/linalg.md). Autograd differentiates the reflections. A matrix whose rank is below
min(m, n) by the tolerance of its singular values goes through the SVD instead (_pinv_svd.py)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._return_types import torch_name
from .. import _C, _output_numbers
from .._factories import arange, eye, zeros
from .._tensor import Tensor, tensor
from ..functional import where
from ._checks import into, into_each, check_float, check_matrix


@torch_name("linalg_qr")
class QR(NamedTuple):
    Q: Tensor
    R: Tensor


def _householder(A: Tensor):
    """(Q [..., m, m], R [..., m, n]) with A = Q R."""
    m, n = A.shape[-2], A.shape[-1]
    rows = arange(m, device=A.device)
    R = A
    Q = eye(m, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, m)
    for j in range(min(m - 1, n)):  # a last row of one element needs no reflection (geqrf's tau = 0)
        x = where(rows >= j, R[..., :, j], 0.0)
        x0 = R[..., j:j + 1, j]
        alpha = -where(x0.detach() >= 0, 1.0, -1.0) * (x * x).sum(-1, keepdim=True).sqrt()
        v = where(rows == j, x - alpha, x)
        vv = (v * v).sum(-1, keepdim=True)
        beta = where(vv == 0, 0.0, 2 / where(vv == 0, 1.0, vv)).unsqueeze(-1)  # a zero column: H = I
        R = R - beta * v.unsqueeze(-1) * (v.unsqueeze(-2) @ R)
        Q = Q - beta * (Q @ v.unsqueeze(-1)) * v.unsqueeze(-2)
    return Q, R.triu()


def qr(A: Tensor, mode: str = "reduced", *, out=None) -> QR:
    """torch.linalg.qr: A = Q R, Q with orthonormal columns, R upper-triangular. mode 'reduced':
    Q [..., m, k], R [..., k, n] (k = min(m, n)); 'complete': Q [..., m, m], R [..., m, n]; 'r': R
    only (Q empty)."""
    check_matrix(A, "qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise _C.InvalidArgumentError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                                      "(default), 'r', or 'complete'")
    m, n = A.shape[-2], A.shape[-1]
    Q, R = _householder(A)
    k = min(m, n)
    if mode == "complete":
        return into_each(out, _output_numbers.number(QR(Q, R)), "linalg.qr")
    if mode == "r":
        return into_each(out, _output_numbers.number(QR(zeros(0, dtype=A.dtype, device=A.device), R[..., :k, :])), "linalg.qr")
    return into_each(out, _output_numbers.number(QR(Q[..., :, :k], R[..., :k, :])), "linalg.qr")


def _full_rank_qr(A: Tensor, fn: str, rtol=None):
    """Reduced QR of a tall A [..., m, n] (m >= n); raises when |R[i, i]| <= rtol max|R[j, j]|
    somewhere (a rank-deficient A needs an SVD, which glassgrad does not have)."""
    Q, R = qr(A)
    d = R.diagonal(0, -2, -1).detach().abs()
    tol = (rtol if rtol is not None else max(A.shape[-2:]) * _eps(A)) * d.amax(-1, keepdim=True)
    if bool((d <= tol).any()):
        raise _C.UnsupportedError(f"linalg.{fn}: A {list(A.shape)} is rank-deficient (a diagonal entry of its R "
                                  "factor is at most rtol times the largest); glassgrad's linalg.{fn} covers "
                                  f"full-rank matrices only (docs/linalg.md)\n  fix: regularize, e.g. "
                                  "linalg.solve(A.mT @ A + lam * I, A.mT @ B)".replace("{fn}", fn))
    return Q, R


def _qr_solve(A: Tensor, Bm: Tensor, rcond) -> Tensor:
    """The least-squares (m >= n) or minimum-norm (m < n) solution of a full-rank A by its QR."""
    from ._cholesky import solve_triangular
    m, n = A.shape[-2], A.shape[-1]
    if m >= n:
        Q, R = _full_rank_qr(A, "lstsq", rcond)
        return solve_triangular(R, Q.transpose(-1, -2) @ Bm, upper=True)
    Q, R = _full_rank_qr(A.transpose(-1, -2), "lstsq", rcond)  # A = R^T Q^T: X = Q R^-T B
    return Q @ solve_triangular(R.transpose(-1, -2), Bm, upper=False)


def _eps(A: Tensor) -> float:
    return 2.220446049250313e-16 if A.dtype == "float64" else 1.1920928955078125e-07


def pinv(A: Tensor, rcond=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    """torch.linalg.pinv: the pseudo-inverse [..., n, m]. Singular values (eigenvalues' magnitudes
    when hermitian) at most max(atol, rtol * the largest) count as zero; rtol defaults to
    eps * max(m, n), or to 0 when only atol > 0 is given, as PyTorch's. PyTorch's older overload
    pinv(A, rcond, hermitian) is rtol=rcond with atol=0. A matrix of full rank by
    that tolerance: R^-1 Q^T from A's QR (m >= n), or its transpose for the transpose (m < n); one
    of lower rank: through the SVD (or eigh), with the pseudo-inverse's own gradient (_pinv_svd.py)."""
    from ._cholesky import solve_triangular
    from ._pinv_svd import full_rank, pinv_low_rank, tolerances
    check_matrix(A, "pinv", square=False)
    if rcond is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg.pinv() takes rcond or atol/rtol, not both\n  fix: linalg.pinv(A, rtol=rcond)")
        atol, rtol = 0.0, rcond
    if min(A.shape[-2], A.shape[-1]) == 0:  # no singular values: the pseudo-inverse is zeros [..., n, m]
        return into(out, zeros(*A.shape[:-2], A.shape[-1], A.shape[-2], dtype=A.dtype, device=A.device))
    atol_, rtol_ = tolerances(A, atol, rtol, "pinv")
    if not full_rank(A, atol_, rtol_, hermitian):
        return into(out, pinv_low_rank(A, atol_, rtol_, hermitian))
    wide = A.shape[-2] < A.shape[-1]
    At = A.transpose(-1, -2) if wide else A
    Q, R = qr(At)
    P = solve_triangular(R, Q.transpose(-1, -2), upper=True)
    P = P.transpose(-1, -2) if wide else P
    return into(out, P)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """torch.pinverse: linalg.pinv with rtol=rcond."""
    return pinv(input, rtol=rcond)


@torch_name("linalg_lstsq")
class Lstsq(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None) -> Lstsq:
    """torch.linalg.lstsq; for A [..., m, n] of full rank: the least-squares solution (m >= n) or the
    minimum-norm one (m < n), through A's QR (one method for every driver). The other fields are
    those PyTorch's CPU drivers give: residuals (the squared residual of each column of B, for
    m > n) with 'gels', 'gelsd' and 'gelss'; rank (n or m) except with 'gels'; singular_values with
    'gelsd' and 'gelss'; the default 'gelsy' gives none of residuals and singular_values. A matrix
    of lower rank (singular values at most rcond times the largest; rcond defaults to
    eps * max(m, n)) gets the minimum-norm solution through its pseudo-inverse, as gelsy, gelsd and
    gelss give it, the rank it has, and no residuals; 'gels' (QR, full rank assumed) refuses it."""
    from ._checks import broadcast_batch
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise _C.InvalidArgumentError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                                      f"gelss), got {driver!r}\n  fix: leave it out (gelsy)")
    check_matrix(A, "lstsq", square=False)
    check_float(B, "lstsq", "B")
    from ._checks import check_same_dtype
    check_same_dtype(A, B, "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                           "{a} and other's dtype {b}")
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    if Bm.shape[-2] != m:
        raise _C.ShapeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2); A {list(A.shape)}, "
                            f"B {list(B.shape)}\n  fix: B has one row per row of A")
    A, Bm = broadcast_batch(A, Bm.to(A.dtype), "lstsq")
    full = True
    if min(m, n) == 0:  # rank 0: the minimum-norm solution is zeros [..., n, k], as PyTorch's
        X = zeros(*A.shape[:-2], n, Bm.shape[-1], dtype=A.dtype, device=A.device)
        rank_values = np.zeros(tuple(A.shape[:-2]), dtype=np.int64)
    else:
        from ._pinv_svd import pinv_low_rank, ranks, tolerances
        atol_, rtol_ = tolerances(A, 0.0, rcond, "lstsq")
        rank_values = ranks(A, atol_, rtol_)
        full = bool((rank_values == min(m, n)).all())
        if full or driver == "gels":  # gels, QR without pivoting, assumes full rank (and says so)
            X = _qr_solve(A, Bm, rcond)
        else:  # the minimum-norm solution, as gelsy, gelsd and gelss give it
            X = pinv_low_rank(A, atol_, rtol_, False) @ Bm
    empty = zeros(0, dtype=A.dtype, device=A.device)
    # residuals only where every matrix has full rank n < m (PyTorch's documented rule)
    residuals = ((A @ X - Bm) ** 2).sum(-2) if driver in ("gels", "gelsd", "gelss") and m > n and full else empty
    if driver == "gels" and m > n == 0:  # PyTorch's gels leaves them at 0 for an empty A
        residuals = residuals * 0
    if driver == "gels":
        rank = zeros(0, dtype="int64", device=A.device)
    else:
        rank = tensor(rank_values.astype(np.int64), device=A.device)
    if driver in ("gelsd", "gelss"):
        from ._spectral import svdvals
        # not differentiable, as PyTorch's lstsq declares its rank and singular values
        singular_values = svdvals(A.detach()) if min(m, n) else zeros(*A.shape[:-2], 0, dtype=A.dtype, device=A.device)
    else:
        singular_values = empty
    return _output_numbers.number(Lstsq(X.squeeze(-1) if vector else X, residuals, rank, singular_values))
