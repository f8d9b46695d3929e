"""torch.linalg.eig and eigvals: the eigen decomposition of a general square matrix, whose
eigenvalues and eigenvectors are complex (PyTorch returns complex64/complex128 tensors even where
they are real). glassgrad holds no complex dtype (docs/dtypes.md), so both refuse with the ways
that do work: eigh/eigvalsh for a symmetric matrix, NumPy for the complex decomposition."""
from __future__ import annotations

from .. import _C
from .._tensor import Tensor
from ._checks import check_matrix


def _refuse(A: Tensor, fn: str):
    check_matrix(A, fn)
    raise _C.UnsupportedError(
        f"linalg.{fn}: the eigenvalues of a general matrix are complex, and glassgrad has no complex dtype "
        f"(PyTorch's linalg.{fn} returns complex64/complex128 tensors)\n"
        f"  A: {list(A.shape)} {A.dtype}\n"
        "  fix: for a symmetric matrix, linalg.eigh(A) / linalg.eigvalsh(A) (real results, with gradients); "
        "otherwise np.linalg.eig(A.numpy(force=True)) on the host")


def eig(A: Tensor, *, out=None):
    """torch.linalg.eig: refused (complex results); see the module's docstring."""
    _refuse(A, "eig")


def eigvals(A: Tensor, *, out=None):
    """torch.linalg.eigvals: refused (complex results); see the module's docstring."""
    _refuse(A, "eigvals")
