"""The pseudo-inverse of a matrix whose rank is below min(m, n) by its tolerance, and that
tolerance as PyTorch defines it (docs/linalg.md, "pinv and lstsq").

A = U diag(S) Vh (or V diag(L) V^T when hermitian), computed by LAPACK through NumPy on the host;
the values at most tol = max(atol, rtol * S_max) count as zero, so

    P = Vh^T diag(1 / S, or 0) U^T.

The gradient is the pseudo-inverse's own, valid while the rank stays constant (Golub and
Pereyra, 1973): from dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P,

    gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)

for G = dL/dP. It needs no distinct singular values, unlike the SVD's gradient."""
from __future__ import annotations

from typing import Tuple

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from ._qr import _eps
from ._spectral import _back, _host


def _array(x) -> np.ndarray:
    return np.asarray(x.numpy(force=True) if isinstance(x, Tensor) else x, dtype=np.float64)


def tolerances(A: Tensor, atol, rtol, fn: str) -> Tuple[np.ndarray, np.ndarray]:
    """(atol, rtol) as arrays broadcast to A's batch shape. rtol, when not given, is
    eps * max(m, n) where atol is not given or not positive, else 0 (PyTorch's rule, elementwise
    for a tensor atol)."""
    batch = tuple(A.shape[:-2])
    a = np.zeros(()) if atol is None else _array(atol)
    if rtol is None:
        default = _eps(A) * max(A.shape[-2], A.shape[-1])
        r = np.full((), default) if atol is None else np.where(a > 0, 0.0, default)
    else:
        r = _array(rtol)
    return np.broadcast_to(a, batch).copy(), np.broadcast_to(r, batch).copy()


def _values(a: np.ndarray, hermitian: bool) -> np.ndarray:
    return np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)


def _kept(values: np.ndarray, atol: np.ndarray, rtol: np.ndarray) -> np.ndarray:
    """Which values count (> max(atol, rtol * largest)), per matrix."""
    largest = values.max(-1) if values.shape[-1] else np.zeros(values.shape[:-1])
    return values > np.maximum(atol, rtol * largest)[..., None]


def full_rank(A: Tensor, atol: np.ndarray, rtol: np.ndarray, hermitian: bool) -> bool:
    """Whether every matrix of A has min(m, n) values above its tolerance."""
    return bool(_kept(_values(_host(A).astype(np.float64), hermitian), atol, rtol).all())


def ranks(A: Tensor, atol: np.ndarray, rtol: np.ndarray) -> np.ndarray:
    """The number of singular values above the tolerance, per matrix."""
    return _kept(_values(_host(A).astype(np.float64), False), atol, rtol).sum(-1)


def _pinv_host(a: np.ndarray, atol: np.ndarray, rtol: np.ndarray, hermitian: bool) -> np.ndarray:
    if hermitian:
        w, v = np.linalg.eigh(a)
        keep = _kept(np.abs(w), atol, rtol)
        inv = np.divide(1.0, w, out=np.zeros_like(w), where=keep)
        return (v * inv[..., None, :]) @ np.swapaxes(v, -1, -2)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=_kept(s, atol, rtol))
    return (np.swapaxes(vh, -1, -2) * inv[..., None, :]) @ np.swapaxes(u, -1, -2)


class _PinvLowRank(Function):
    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        P = _back(_pinv_host(_host(A), atol, rtol, hermitian), A)
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx, G):
        A, P = ctx.saved_tensors
        Pt, Gt = P.transpose(-1, -2), G.transpose(-1, -2)
        X = Gt @ P @ Pt          # G^T P P^T, then (I - A P) X
        Y = Pt @ P @ Gt          # P^T P G^T, then Y (I - P A)
        gA = -(Pt @ G @ Pt) + (X - A @ (P @ X)) + (Y - (Y @ P) @ A)
        return gA, None, None, None


def pinv_low_rank(A: Tensor, atol: np.ndarray, rtol: np.ndarray, hermitian: bool) -> Tensor:
    return _PinvLowRank.apply(A, atol, rtol, hermitian)
