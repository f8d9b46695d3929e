"""eigh, eigvalsh, svd, svdvals and what they give (matrix_rank; matrix_norm's 'nuc', 2, -2).
The factorizations are LAPACK's, through NumPy on the host (a GPU tensor makes a round trip);
the gradients are the closed forms, written as glassgrad ops in autograd.Functions
(docs/linalg.md):

- eigh, A = V diag(L) V^T: gA = sym(V (diag(gL) + F o (V^T gV)) V^T), F_ij = 1 / (L_j - L_i)
  off the diagonal, 0 on it (as PyTorch's: defined while the eigenvalues are distinct).
- svd, A = U diag(S) Vh: gA = U [sym_F(U^T gU) S + diag(gS) + S sym_F(V^T gV)] Vh
  + (I - U U^T) gU S^-1 Vh + U S^-1 gVh (I - V V^T), with sym_F(X) = F o (X - X^T),
  F_ij = 1 / (S_j^2 - S_i^2) off the diagonal (distinct, nonzero singular values)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._return_types import torch_name
from .. import _C, _output_numbers
from .._dtypes import plain
from .._factories import eye
from .._tensor import Tensor, tensor
from ..autograd.function import Function
from ._checks import check_matrix, into, into_each


def _host(A: Tensor) -> np.ndarray:
    return A.numpy(force=True)


def _back(a: np.ndarray, like: Tensor) -> Tensor:
    return tensor(np.ascontiguousarray(a).astype(plain(like.dtype).split(".")[-1]), device=like.device)


def _gap(d: Tensor) -> Tensor:
    """F [..., k, k]: 1 / (d_j - d_i) off the diagonal, 0 on it."""
    from ..functional import where
    diff = d.unsqueeze(-2) - d.unsqueeze(-1)
    off = ~eye(d.shape[-1], dtype="bool", device=d.device)
    return where(off, 1 / where(off, diff, 1.0), 0.0)


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-1, -2)


class _Eigh(Function):
    @staticmethod
    def forward(ctx, A):
        w, v = np.linalg.eigh(_host(A))
        L, V = _back(w, A), _back(v, A)
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        inner = gL.diag_embed() + _gap(L) * (_mT(V) @ gV)
        g = V @ inner @ _mT(V)
        return (g + _mT(g)) * 0.5


@torch_name("linalg_eigh")
class Eigh(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def eigh(A: Tensor, UPLO: str = "L", *, out=None) -> Eigh:
    """torch.linalg.eigh: eigenvalues (ascending) and orthonormal eigenvectors of the symmetric
    matrices A [..., n, n], from the lower (UPLO='L') or upper triangle."""
    check_matrix(A, "eigh")
    if UPLO not in ("L", "U"):
        raise _C.InvalidArgumentError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    read = A.triu() + _mT(A.triu(1)) if UPLO == "U" else A.tril() + _mT(A.tril(-1))
    sym = (A + _mT(A)) * 0.5  # the gradient is that of the symmetric matrix, as PyTorch's
    L, V = _Eigh.apply(read.detach() + (sym - sym.detach()))
    return into_each(out, _output_numbers.number(Eigh(L, V)), "linalg.eigh")


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """torch.linalg.eigvalsh: the eigenvalues of eigh (gradient V diag(gL) V^T)."""
    return into(out, eigh(A, UPLO).eigenvalues, "linalg.eigvalsh")


class _Svd(Function):
    @staticmethod
    def forward(ctx, A):
        u, s, vh = np.linalg.svd(_host(A), full_matrices=False)
        U, S, Vh = _back(u, A), _back(s, A), _back(vh, A)
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        V, gV = _mT(Vh), _mT(gVh)
        F = _gap(S * S)
        Sd = S.diag_embed()
        J = F * (_mT(U) @ gU - _mT(gU) @ U)
        K = F * (Vh @ gV - _mT(gV) @ V)
        inner = J @ Sd + gS.diag_embed() + Sd @ K
        g = U @ inner @ Vh
        inv_s = (1 / S).unsqueeze(-2)  # columns of gU scaled by 1 / S
        m, n = U.shape[-2], V.shape[-2]
        if m > S.shape[-1]:
            g = g + (gU - U @ (_mT(U) @ gU)) * inv_s @ Vh
        if n > S.shape[-1]:
            g = g + U @ _mT((gV - V @ (Vh @ gV)) * inv_s)
        return g


class _SvdFull(Function):
    """linalg.svd(full_matrices=True) as PyTorch differentiates it: the gradients of U's columns
    and Vh's rows beyond min(m, n) are ignored (any orthonormal completion would do), the rest is
    the reduced SVD's backward."""
    @staticmethod
    def forward(ctx, A):
        u, s, vh = np.linalg.svd(_host(A), full_matrices=True)
        k = s.shape[-1]
        U, S, Vh = _back(u, A), _back(s, A), _back(vh, A)
        ctx.save_for_backward(U[..., :, :k], S, Vh[..., :k, :])
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        k = ctx.saved_tensors[1].shape[-1]
        return _Svd.backward(ctx, gU[..., :, :k], gS, gVh[..., :k, :])


@torch_name("linalg_svd")
class Svd(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None) -> Svd:
    """torch.linalg.svd: A = U diag(S) Vh, S descending; with full_matrices=True the gradients of
    the extra columns of U (rows of Vh) are ignored, as PyTorch documents. driver is ignored."""
    check_matrix(A, "svd", square=False)
    if full_matrices:
        if A.requires_grad:
            return into_each(out, _output_numbers.number(Svd(*_SvdFull.apply(A))), "linalg.svd")
        u, s, vh = np.linalg.svd(_host(A), full_matrices=True)
        return into_each(out, _output_numbers.number(Svd(_back(u, A), _back(s, A), _back(vh, A))), "linalg.svd")
    U, S, Vh = _Svd.apply(A)
    return into_each(out, _output_numbers.number(Svd(U, S, Vh)), "linalg.svd")


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """torch.linalg.svdvals: the singular values, descending (gradient U diag(gS) Vh)."""
    return into(out, svd(A, full_matrices=False).S, "linalg.svdvals")


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    """torch.linalg.matrix_rank: the number of singular values above max(atol, rtol * S_max);
    rtol defaults to eps * max(m, n) when neither is given, as PyTorch's. PyTorch's older overload
    matrix_rank(A, tol, hermitian) is atol=tol with rtol=0."""
    check_matrix(A, "matrix_rank", square=False)
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg.matrix_rank() takes tol or atol/rtol, not both\n  fix: linalg.matrix_rank(A, atol=tol)")
        atol, rtol = tol, 0.0
    s = eigvalsh(A).abs() if hermitian else svdvals(A)
    s = s.detach()
    eps = 2.220446049250313e-16 if A.dtype == "float64" else 1.1920928955078125e-07
    if rtol is None:
        rtol = max(A.shape[-2:]) * eps if atol is None else 0.0
    smax = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
    tol = smax * rtol
    if atol is not None:
        tol = tol.clamp(min=float(atol)) if not isinstance(atol, Tensor) else tol.maximum(atol.unsqueeze(-1))
    return into(out, (s > tol).sum(-1), "linalg.matrix_rank")
