"""linalg.matrix_sqrth and linalg.polar through eigh and svd (their closed-form gradients carry
through), as PyTorch's CPU computes them (docs/linalg.md).

- matrix_sqrth(A): V sqrt(max(w, 0)) V^T of eigh(A) (A's lower triangle read): the principal root
  of a symmetric positive-(semi)definite A; a negative eigenvalue counts as 0, as PyTorch's.
- polar(A), A [..., m, n] with m >= n: U = W Vh and H = Vh^T diag(S) Vh from A's reduced SVD
  W S Vh, so A = U H, U with orthonormal columns, H symmetric positive-semidefinite."""
from __future__ import annotations

from typing import NamedTuple

from .._return_types import torch_name
from .. import _C, _output_numbers
from .._tensor import Tensor
from ._checks import check_matrix, into, into_each
from ._spectral import eigh, svd


@torch_name("linalg_polar")
class Polar(NamedTuple):
    U: Tensor
    H: Tensor


def matrix_sqrth(input: Tensor, *, out=None) -> Tensor:
    """torch.linalg.matrix_sqrth: the principal square root X (X X = input) of a symmetric
    positive-definite input [..., n, n], from its lower triangle."""
    check_matrix(input, "matrix_sqrth")
    w, V = eigh(input)
    return into(out, _root(w, V))


def _root(w, V):
    """V sqrt(max(w, 0)) V^T."""
    return (V * w.clamp(min=0).sqrt().unsqueeze(-2)) @ V.transpose(-1, -2)


def polar(A: Tensor, *, out=None) -> Polar:
    """torch.linalg.polar: (U, H) with A = U H for A [..., m, n], m >= n."""
    check_matrix(A, "polar", square=False)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise _C.ShapeError(f"linalg.polar: input must have at least as many rows as columns, but got {m} by {n} "
                            f"matrices\n  fix: polar(A.mT) gives A^T = U H, so A = H U^T")
    return into_each(out, _output_numbers.number(Polar(*_factors(*svd(A, full_matrices=False)))))


def _factors(W, S, Vh):
    """U = W Vh and H = V diag(S) Vh of the reduced SVD W S Vh."""
    return W @ Vh, (Vh.transpose(-1, -2) * S.unsqueeze(-2)) @ Vh
