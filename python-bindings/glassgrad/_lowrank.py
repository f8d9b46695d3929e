"""Top-level matrix norms and low-rank factorizations over glassgrad.linalg: torch.nuclear_norm,
frobenius_norm, norm_except_dim, svd_lowrank and pca_lowrank.

svd_lowrank and pca_lowrank return what PyTorch documents, U diag(S) V^T approximating A with q
singular triplets (A ~= U diag(S) V^T), computed from the exact thin SVD truncated to its q largest
singular values: the best rank-q approximation, which PyTorch's randomized range finder
(Halko et al., niter power iterations) approaches; niter is accepted and not needed. As any SVD,
the signs of matching columns of U and V are arbitrary."""
from __future__ import annotations

import warnings
from typing import Optional, Tuple

from . import _C, _args, _output_numbers, _trace
from ._arranging import transpose
from ._math import sub
from ._reductions import mean
from ._tensor import Tensor
from .linalg import matrix_norm, svd, vector_norm

__all__ = ["frobenius_norm", "norm_except_dim", "nuclear_norm", "pca_lowrank", "svd_lowrank"]


def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """torch.nuclear_norm(input, keepdim=False) or (input, dim, keepdim=False): the sum of the
    singular values of the matrices of dims `dim` (the last two by default), with PyTorch's
    deprecation warning pointing to linalg.matrix_norm(A, 'nuc', dim, keepdim)."""
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=_trace.user_stacklevel())
    if isinstance(dim, bool):  # nuclear_norm(x, True): the keepdim overload
        dim, keepdim = None, dim
    if isinstance(dim, int):  # ATen's int[2] dim: PyTorch's parser repeats one int, (d, d)
        dim = (dim, dim)
    return matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim), keepdim=keepdim)


def frobenius_norm(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """torch.frobenius_norm(input, dim, keepdim=False): the square root of the sum of squares over
    the dims in dim (one or two), linalg.vector_norm's 2-norm."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return vector_norm(input, 2, dim=dims, keepdim=keepdim)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """torch.norm_except_dim(v, pow=2, dim=0): the pow-norm over every dim but dim, kept as size 1
    (weight normalization's norm); dim=-1 is the norm of the whole tensor. A 0-d v is PyTorch's
    IndexError for another dim (it reads v's dims)."""
    if dim == -1:
        return vector_norm(v, pow)
    if v.ndim == 0:
        raise _C.GlassgradIndexError("norm_except_dim: Dimension specified as 0 but tensor has no dimensions: v is "
                                     "0-d, as PyTorch\n  fix: v.reshape(1), or dim=-1 for the norm of all of v")
    others = tuple(d for d in range(v.ndim) if d != dim % max(v.ndim, 1))
    if v.shape[dim] == 0:  # PyTorch views v as [v.size(dim), -1], which 0 elements leave ambiguous
        raise _C.ShapeError(f"cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
                            f"dimension size -1 can be any value and is ambiguous\n  norm_except_dim: v "
                            f"{list(v.shape)}, dim {dim}\n  fix: a v with elements along dim")
    return vector_norm(v, pow, dim=others, keepdim=True)


def _check_matrix(A, where: str) -> None:
    if not isinstance(A, Tensor) or A.ndim < 2:
        got = list(A.shape) if isinstance(A, Tensor) else type(A).__name__
        raise _C.ShapeError(f"{where}: A must be a matrix or a batch of matrices, got {got}\n"
                            f"  fix: a tensor of shape (*, m, n)")


def svd_lowrank(A: Tensor, q: Optional[int] = 6, niter: Optional[int] = 2,
                M: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """torch.svd_lowrank(A, q=6, niter=2, M=None): (U, S, V) with U (*, m, k), S (*, k) and
    V (*, n, k), k = min(q, m, n), such that A - M ~= U diag(S) V^T (M broadcast to A's shape)."""
    _check_matrix(A, "svd_lowrank")
    m, n = A.shape[-2], A.shape[-1]
    k = min(_args.integer(6 if q is None else q, "q", "svd_lowrank", minimum=0), m, n)
    if niter is not None:
        _args.integer(niter, "niter", "svd_lowrank", minimum=0)
    X = A if M is None else sub(A, M)
    U, S, Vh = svd(X, full_matrices=False)
    U, S = _output_numbers.number((U[..., :k], S[..., :k]))  # V: a view of Vh, output 0 of its node
    return U, S, transpose(Vh[..., :k, :], -2, -1)


def pca_lowrank(A: Tensor, q: Optional[int] = None, center: bool = True,
                niter: int = 2) -> Tuple[Tensor, Tensor, Tensor]:
    """torch.pca_lowrank(A, q=None, center=True, niter=2): svd_lowrank of A less its column means
    (center=True), q = min(6, m, n) by default: V's columns are the principal directions,
    S ** 2 / (m - 1) the variances along them."""
    _check_matrix(A, "pca_lowrank")
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else _args.integer(q, "q", "pca_lowrank", minimum=0)
    if q > min(m, n):
        raise _C.InvalidArgumentError(f"q(={q}) must be non-negative integer and not greater than min(m, n)="
                                      f"{min(m, n)}\n  pca_lowrank: fix: q <= {min(m, n)}")
    if not _args.flag(center, "center", "pca_lowrank"):
        return svd_lowrank(A, q, niter)
    return svd_lowrank(sub(A, mean(A, -2, keepdim=True)), q, niter)
