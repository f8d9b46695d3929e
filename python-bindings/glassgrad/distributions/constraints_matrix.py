"""torch.distributions.constraints' matrix constraints (event_dim 2, check over the last two axes):
square, symmetric (to isclose's rtol 1e-5 and atol 1e-6), positive_semidefinite (eigenvalues >= 0),
positive_definite (a Cholesky factorization succeeds), lower_triangular, lower_cholesky (lower
triangular, positive diagonal) and corr_cholesky (also unit rows to 10 n eps), as torch's."""
from __future__ import annotations

from typing import Any

from .constraints import Constraint


class _Square(Constraint):
    event_dim = 2

    def check(self, value) -> Any:
        from .._factories import full
        from .._tensor import bool_
        return full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=bool_, device=value.device)


class _Symmetric(_Square):
    def check(self, value) -> Any:
        from .._math import isclose
        square = super().check(value)
        if not bool(square.all().item()):
            return square
        close: Any = isclose(value, value.mT, atol=1e-6)  # Any: Distribution._value says why
        return close.all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value) -> Any:
        from .. import linalg
        sym = super().check(value)
        if not bool(sym.all().item()):
            return sym
        eigenvalues: Any = linalg.eigvalsh(value)
        return (eigenvalues >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value) -> Any:
        from .. import linalg
        sym = super().check(value)
        if not bool(sym.all().item()):
            return sym
        return linalg.cholesky_ex(value).info == 0


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value) -> Any:
        return (value.tril() == value).all(-1).all(-1)


class _LowerCholesky(_LowerTriangular):
    def check(self, value) -> Any:
        return super().check(value) & (value.diagonal(0, -2, -1) > 0).all(-1)


class _CorrCholesky(_LowerCholesky):
    def check(self, value) -> Any:
        from .. import linalg
        from .._type_info import finfo
        tol = finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm: Any = linalg.norm(value.detach(), dim=-1)
        unit_rows = ((row_norm - 1.0).abs() <= tol).all(-1)
        return super().check(value) & unit_rows


square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
