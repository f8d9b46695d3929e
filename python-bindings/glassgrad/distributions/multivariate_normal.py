"""MultivariateNormal(loc, covariance_matrix= | precision_matrix= | scale_tril=): everything
through the lower Cholesky factor L of the covariance (glassgrad.linalg, docs/linalg.md), so
log_prob, entropy and rsample carry gradients to loc and the matrix."""
from __future__ import annotations

import math

from .. import linalg
from .._factories import randn
from .._size import Size
from .._tensor import Tensor
from .distribution import LocCentred, as_tensor_like


def _batch_mahalanobis(L: Tensor, x: Tensor) -> Tensor:
    """||L^-1 x||^2 over the last axis, L [..., n, n] lower-triangular, x [..., n] (batch axes
    broadcast)."""
    y = linalg.solve_triangular(L, x.unsqueeze(-1), upper=False)
    return (y * y).sum((-2, -1))


def scale_tril_of(name: str, matrix: Tensor, validate_args, constraint, label: str) -> Tensor:
    """The lower Cholesky factor L that a covariance_matrix (L L^T), precision_matrix (its
    inverse's) or scale_tril (itself) named `name` gives, after checking the matrix against
    `constraint` when arguments are validated: first, as the factorization would fail first on
    a matrix that is not positive definite (MultivariateNormal's and Wishart's parameters)."""
    from . import distribution
    if validate_args or (validate_args is None and distribution._validate_default):
        from .validation import check_parameter
        check_parameter(name, matrix, constraint, label)
    if name == "scale_tril":
        return matrix
    return linalg.cholesky(matrix if name == "covariance_matrix" else linalg.inv(matrix))


class GaussianVector(LocCentred):
    """A Gaussian over vectors (MultivariateNormal, LowRankMultivariateNormal): mean = mode = loc."""

    has_rsample = True


class MultivariateNormal(GaussianVector):

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        loc = as_tensor_like(loc)
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        matrix = next(m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None)
        matrix = as_tensor_like(matrix, loc)
        if matrix.ndim < 2:
            raise ValueError("covariance_matrix, precision_matrix or scale_tril must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        L = scale_tril_of(name, matrix, validate_args, type(self).arg_constraints[name],
                          f"MultivariateNormal(loc: {loc.shape}, {name}: {matrix.shape})")
        import numpy as np
        batch = tuple(np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        n = loc.shape[-1]
        if matrix.shape[-1] != n or matrix.shape[-2] != n:
            raise ValueError(f"MultivariateNormal: loc {list(loc.shape)} and the matrix {list(matrix.shape)} disagree "
                             f"on the event size\n  fix: the matrix is [..., {n}, {n}]")
        self.loc = loc.expand(*batch, n)
        self._unbroadcasted_scale_tril = L
        self._given = (covariance_matrix, precision_matrix, scale_tril)
        self._lazy_params = tuple(n for n, m in zip(("covariance_matrix", "precision_matrix", "scale_tril"),
                                                    self._given) if m is None)  # validation skips the derived
        super().__init__(batch, (n,), validate_args=validate_args)

    @property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(*self.batch_shape, *self.event_shape, *self.event_shape)

    @property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-1, -2)).expand(*self.batch_shape, *self.event_shape, *self.event_shape)

    @property
    def precision_matrix(self) -> Tensor:
        return linalg.inv(self.covariance_matrix)

    @property
    def variance(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L * L).sum(-1).expand(*self.batch_shape, *self.event_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value) -> Tensor:
        diff = self._value(value) - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        n = self.event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self) -> Tensor:
        n = self.event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(*self.batch_shape) if len(self.batch_shape) else h
