"""torch.linalg.householder_product (torch.orgqr): the first n columns of H_1 H_2 ... H_k, the
product of the Householder reflections H_i = I - tau_i v_i v_i^T that geqrf stores in the columns
of A below the diagonal (v_i has zeros above row i, a 1 at row i). Applied right to left to the
first n columns of the identity as batched rank-1 updates, so autograd differentiates it with
respect to A and tau (docs/linalg.md)."""
from __future__ import annotations

from .. import _C
from .._factories import arange, eye
from .._tensor import Tensor
from ..functional import where
from ._checks import check_float, check_same_dtype, into

_WHERE = "linalg.householder_product"


def _check(A: Tensor, tau: Tensor) -> None:
    if A.ndim < 2:
        raise _C.ShapeError(f"{_WHERE}: input must have at least 2 dimensions, got shape {list(A.shape)}\n"
                            "  fix: the reflectors of one matrix are [m, n], of a batch [..., m, n]")
    check_float(A, "householder_product")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise _C.ShapeError(f"{_WHERE}: input.shape[-2] must be greater than or equal to input.shape[-1], got "
                            f"{list(A.shape)}\n  fix: the reflectors of a wide matrix's QR: compute the QR of its "
                            "transpose")
    if tau.ndim != A.ndim - 1:
        raise _C.ShapeError(f"{_WHERE}: Expected tau to have one dimension less than input, but got tau.ndim equal "
                            f"to {tau.ndim} and input.ndim is equal to {A.ndim}\n  fix: tau [..., k] for input "
                            "[..., m, n]")
    if n < tau.shape[-1]:
        raise _C.ShapeError(f"{_WHERE}: input.shape[-1] must be greater than or equal to tau.shape[-1], got input "
                            f"{list(A.shape)} and tau {list(tau.shape)}\n  fix: at most one tau per column")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise _C.ShapeError(f"{_WHERE}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                            f"{list(tau.shape[:-1])}\n  fix: one tau vector per matrix of input {list(A.shape)}")
    check_same_dtype(A, tau, f"{_WHERE}: tau dtype {{b}} does not match input dtype {{a}}")


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """torch.linalg.householder_product: [..., m, n] with orthonormal columns, from the reflectors
    in A [..., m, n] (m >= n) and their scales tau [..., k] (k <= n); A's upper triangle is not
    read."""
    _check(A, tau)
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    rows = arange(m, device=A.device)
    Q = eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in reversed(range(k)):
        v = where(rows == i, 1.0, where(rows > i, A[..., :, i], 0.0))[..., None]     # [..., m, 1]
        t = tau[..., i:i + 1, None]                                                      # [..., 1, 1]
        Q = Q - (t * v) @ (v.transpose(-1, -2) @ Q)
    return into(out, Q)
