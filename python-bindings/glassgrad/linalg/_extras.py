"""cholesky_solve, cholesky_inverse, solve_ex, matrix_exp and cond, composed of the other
functions of glassgrad.linalg (docs/linalg.md)."""
from __future__ import annotations

import math
from typing import NamedTuple

from .._return_types import torch_name
from .. import _C
from .._factories import eye
from .._tensor import Tensor
from ._checks import into, into_each, check_matrix


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """torch.cholesky_solve: X with A X = B for A = L L^T (upper=True: A = U^T U), by two
    triangular solves."""
    from ._cholesky import solve_triangular
    check_matrix(L, "cholesky_solve")
    from ._checks import check_same_dtype
    check_same_dtype(L, B, "Expected b and A to have the same dtype, but found b of type {b} and A of type {a} instead.")
    if upper:
        Y = solve_triangular(L.transpose(-1, -2), B, upper=False)
        X = solve_triangular(L, Y, upper=True)
    else:
        Y = solve_triangular(L, B, upper=False)
        X = solve_triangular(L.transpose(-1, -2), Y, upper=True)
    return into(out, X)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """torch.cholesky_inverse: A^-1 for A = L L^T (upper=True: A = U^T U)."""
    check_matrix(L, "cholesky_inverse")
    I = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(*L.shape)
    return cholesky_solve(I, L, upper, out=out)


@torch_name("linalg_solve_ex")
class SolveEx(NamedTuple):
    result: Tensor
    info: Tensor


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None) -> SolveEx:
    """torch.linalg.solve_ex: (solve's result, info), info [...] int32 is 0, or the index (1-based)
    of the first zero pivot; check_errors=True raises as solve does."""
    from ._lu import _is_vector_rhs, _solve_ex, solve
    if check_errors:
        X = solve(A, B, left=left)
        from ._lu import zeros_info
        return into_each(out, SolveEx(X, zeros_info(A)), "linalg.solve_ex")
    check_matrix(A, "solve_ex")
    from ._checks import check_same_dtype
    check_same_dtype(A, B, "linalg.solve_ex: Expected A and B to have the same dtype, but found A of type {a} and B "
                           "of type {b} instead")
    vector = _is_vector_rhs(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    Am = A if left else A.transpose(-1, -2)
    Bm = Bm if left else Bm.transpose(-1, -2)
    X, info, _ = _solve_ex(Am, Bm, "solve_ex")
    X = X if left else X.transpose(-1, -2)
    return into_each(out, SolveEx(X.squeeze(-1) if vector else X, info), "linalg.solve_ex")


# exp(A) = (T_18(A / 2^s))^(2^s), T_18 the Taylor polynomial of degree 18, s such that the 1-norm of
# A / 2^s is at most 1/2: the truncation error is then below 0.5^19 / 19! ~ 2e-23 (relative).
_TAYLOR_DEGREE = 18


def matrix_exp(A: Tensor) -> Tensor:
    """torch.linalg.matrix_exp: the matrix exponential by scaling and squaring a Taylor polynomial
    (one scaling for the whole batch, from its largest 1-norm); gradients through autograd."""
    check_matrix(A, "matrix_exp")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax().item())
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 and math.isfinite(norm) else 0
    X = A / (2 ** s)
    identity = eye(n, dtype=A.dtype, device=A.device).expand(*A.shape)
    result = identity + X
    term = X
    for k in range(2, _TAYLOR_DEGREE + 1):
        term = (term @ X) / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """torch.linalg.cond: sigma_max / sigma_min for p None or 2 (-2: the inverse ratio); for 'nuc'
    sum(sigma) * sum(1 / sigma), from the singular values as PyTorch's; else norm(A, p) *
    norm(inv(A), p) for square A ('fro', 1, -1, inf, -inf), inf for a singular matrix of a batch
    (PyTorch fills the failed inverse with inf) instead of inv's error."""
    from .. import functional as F
    from ._lu import inv_ex
    from ._norms import matrix_norm
    from ._spectral import svdvals
    check_matrix(A, "cond", square=False)
    if p in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf) and min(A.shape[-2], A.shape[-1]) == 0:
        from .._factories import zeros  # an empty matrix: 0, as PyTorch's
        return into(out, zeros(A.shape[:-2], dtype=A.dtype, device=A.device))
    if p in (None, 2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    elif p == "nuc":
        check_matrix(A, "cond")
        sv: Tensor = svdvals(A)
        r = sv.sum(-1) * sv.reciprocal().sum(-1)  # type: ignore[attr-defined]  # Tensor's methods are bound at import
    elif p in ("fro", 1, -1, math.inf, -math.inf):
        check_matrix(A, "cond")
        inverse, info = inv_ex(A)
        singular = info.gt(0).unsqueeze(-1).unsqueeze(-1)  # type: ignore[attr-defined]  # bound at import
        r = matrix_norm(A, p) * matrix_norm(F.where(singular, math.inf, inverse), p)
    else:
        raise _C.InvalidArgumentError(f"linalg.cond got an invalid norm type: {p}\n  fix: None, 'fro', 'nuc', 1, -1, "
                                      "2, -2, inf or -inf")
    return into(out, r)
