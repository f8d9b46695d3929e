"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): covariance W W^T + diag(D), W [..., n, m].
log_prob and entropy go through the m x m capacitance matrix C = I + W^T D^-1 W (Woodbury's
identity and the matrix determinant lemma, as torch's), so no n x n matrix is factored; rsample
is loc + W e_m + sqrt(D) e_n, differentiable in all three parameters."""
from __future__ import annotations

import math
from typing import Any

from .. import linalg
from .._factories import eye, randn
from .._shapes import diag_embed
from .._size import Size
from .._tensor import Tensor
from .distribution import as_tensor_like
from .multivariate_normal import GaussianVector, _batch_mahalanobis


def batch_capacitance_tril(W: Any, D: Any) -> Any:
    """The Cholesky factor of I + W^T D^-1 W."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return linalg.cholesky(Wt_Dinv @ W + eye(m, dtype=W.dtype, device=W.device))


def batch_lowrank_logdet(D: Any, capacitance_tril: Any) -> Any:
    """log det(W W^T + D) = log det C + log det D (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(0, -2, -1).log().sum(-1) + D.log().sum(-1)


def batch_lowrank_mahalanobis(W: Any, D: Any, x: Any, capacitance_tril: Any) -> Any:
    """x^T (W W^T + D)^-1 x = x^T D^-1 x - ||C_L^-1 W^T D^-1 x||^2 (Woodbury)."""
    Wt_Dinv_x = ((W.mT / D.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x * x / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


def batch_trace_xxt(X: Any) -> Any:
    """trace(X X^T) over the last two axes."""
    return (X * X).sum((-2, -1))


class LowRankMultivariateNormal(GaussianVector):
    """loc [..., n], cov_factor [..., n, m], cov_diag [..., n] (positive); batch axes broadcast."""

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        from .._shapes import broadcast_tensors
        loc = as_tensor_like(loc)
        cov_factor, cov_diag = as_tensor_like(cov_factor, loc), as_tensor_like(cov_diag, loc)
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size((n,))}")
        try:
            loc_, self.cov_factor, diag_ = broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except Exception as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        super().__init__(self.loc.shape[:-1], (n,), validate_args=validate_args)
        self._check(bool((cov_diag > 0).all().item()), "cov_diag must be positive")
        self._capacitance_tril = batch_capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape, _instance=None) -> "LowRankMultivariateNormal":
        import copy
        new = copy.copy(self)
        shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc, new.cov_diag = self.loc.expand(*shape), self.cov_diag.expand(*shape)
        new.cov_factor = self.cov_factor.expand(*shape, self.cov_factor.shape[-1])
        new._batch_shape = Size(tuple(batch_shape))
        return new

    def _full(self, t: Any, matrix: bool = True) -> Tensor:
        n = self.event_shape[0]
        return t.expand(*self.batch_shape, n, n) if matrix else t.expand(*self.batch_shape, n)

    @property
    def variance(self) -> Tensor:
        W = self._unbroadcasted_cov_factor
        return self._full((W * W).sum(-1) + self._unbroadcasted_cov_diag, matrix=False)

    @property
    def scale_tril(self) -> Tensor:
        """sqrt(D) chol(I + D^-1/2 W W^T D^-1/2): the Cholesky factor of the covariance."""
        n = self.event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + eye(n, dtype=d_sqrt.dtype, device=d_sqrt.device)
        return self._full(d_sqrt * linalg.cholesky(K))

    @property
    def covariance_matrix(self) -> Tensor:
        W = self._unbroadcasted_cov_factor
        return self._full(W @ W.mT + diag_embed(self._unbroadcasted_cov_diag))

    @property
    def precision_matrix(self) -> Tensor:
        """D^-1 - A^T A, A = C_L^-1 W^T D^-1 (Woodbury)."""
        D = self._unbroadcasted_cov_diag
        A: Any = linalg.solve_triangular(self._capacitance_tril, self._unbroadcasted_cov_factor.mT / D.unsqueeze(-2),
                                         upper=False)  # Any: Distribution._value says why
        return self._full(diag_embed(1 / D) - A.mT @ A)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_w = randn(*shape[:-1], self.cov_factor.shape[-1], dtype=self.loc.dtype, device=self.loc.device)
        eps_d = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        W_eps = (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + W_eps + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det(self) -> Any:
        return batch_lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value) -> Tensor:
        diff = self._value(value) - self.loc
        M = batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, diff,
                                      self._capacitance_tril)
        return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self) -> Tensor:
        H = 0.5 * (self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H.expand(*self.batch_shape) if len(self.batch_shape) else H
