"""Wishart(df, covariance_matrix= | precision_matrix= | scale_tril=): distributions over p x p
positive-definite matrices, the scatter of df Gaussian vectors. Everything goes through the lower
Cholesky factor L of the scale matrix (as torch's): log_prob with mvlgamma and slogdet, entropy with
the multivariate digamma, and rsample by Bartlett's decomposition L A A^T L^T (A lower triangular,
sqrt(Chi2(df - i)) on the diagonal, N(0, 1) below), whose Chi2 draws carry the implicit gradient
to df (gamma.py). An ExponentialFamily member: natural parameters (-P / 2, (df - p - 1) / 2)."""
from __future__ import annotations

import math
import warnings
from typing import Any

from .. import linalg
from .._factories import arange, eye, randn
from .._size import Size
from .._special import digamma, mvlgamma
from .._tensor import Tensor
from .._type_info import finfo
from ..functional import where
from .distribution import as_tensor_like
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import scale_tril_of

_LOG_2 = math.log(2)


def mvdigamma(x: Any, p: int) -> Any:
    """sum_{i<p} digamma(x - i / 2), the derivative of mvlgamma(x, p); needs x > (p - 1) / 2."""
    if not bool((x > (p - 1) / 2).all().item()):
        raise ValueError(f"Wishart: the multivariate digamma function needs x > {(p - 1) / 2} (got {x})")
    terms: Any = digamma(x.unsqueeze(-1) - arange(p, dtype=x.dtype, device=x.device) / 2)
    return terms.sum(-1)


class Wishart(ExponentialFamily):
    """df > p - 1 (a warning for df < p: draws are then nearly singular); batch axes of df and the
    matrix broadcast; event_shape (p, p)."""

    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        import numpy as np
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = as_tensor_like(given[0])
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        df_t = as_tensor_like(df, param)
        batch = tuple(np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df_t.shape)))
        p = param.shape[-1]
        self.df = df_t.expand(*batch)
        if bool((self.df <= p - 1).any().item()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if bool((self.df < p).any().item()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df "
                          "< ndim.", stacklevel=2)
        name = "covariance_matrix" if covariance_matrix is not None else (
            "precision_matrix" if precision_matrix is not None else "scale_tril")
        from .constraints_matrix import lower_cholesky, positive_definite
        L = scale_tril_of(name, param, validate_args, lower_cholesky if name == "scale_tril" else positive_definite,
                          f"Wishart(df: {self.df.shape}, {name}: {param.shape})")
        self._unbroadcasted_scale_tril = L
        self._lazy_params = tuple(n for n, m in zip(("covariance_matrix", "precision_matrix", "scale_tril"),
                                                    (covariance_matrix, precision_matrix, scale_tril)) if m is None)
        super().__init__(batch, tuple(param.shape[-2:]), validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict:  # type: ignore[override]
        from . import constraints as C
        return {"covariance_matrix": C.positive_definite, "precision_matrix": C.positive_definite,
                "scale_tril": C.lower_cholesky, "df": C.greater_than(self.event_shape[-1] - 1)}

    def expand(self, batch_shape, _instance=None) -> "Wishart":
        import copy
        new = copy.copy(self)
        b = tuple(batch_shape)
        new.df = self.df.expand(*b)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(*b, *self.event_shape)
        new._batch_shape = Size(b)
        return new

    def _full(self, m: Any) -> Tensor:
        return m.expand(*self.batch_shape, *self.event_shape)

    @property
    def scale_tril(self) -> Tensor:
        return self._full(self._unbroadcasted_scale_tril)

    @property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @property
    def precision_matrix(self) -> Tensor:
        from ..linalg._extras import cholesky_solve
        L = self._unbroadcasted_scale_tril
        return self._full(cholesky_solve(eye(self.event_shape[-1], dtype=L.dtype, device=L.device), L))

    def _df_matrix(self) -> Any:
        return self.df.reshape(*self.batch_shape, 1, 1)

    @property
    def mean(self) -> Tensor:
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        """(df - p - 1) V, NaN where df <= p + 1 (torch's)."""
        factor = self.df - self.event_shape[-1] - 1
        factor = where(factor <= 0, math.nan, factor)
        return factor.reshape(*self.batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        V: Any = self.covariance_matrix
        d = V.diagonal(0, -2, -1)
        return self._df_matrix() * (V ** 2 + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett(self, sample_shape) -> Any:
        from .._shapes import diag_embed
        p = self.event_shape[-1]
        L = self._unbroadcasted_scale_tril
        shape = tuple(sample_shape) + tuple(self.batch_shape)
        chi2_df = self.df.unsqueeze(-1) - arange(p, dtype=L.dtype, device=L.device)
        chi2: Any = Chi2(chi2_df, validate_args=False).rsample(tuple(sample_shape))
        diag = chi2.sqrt().clamp(min=finfo(L.dtype).eps)
        below = randn(*shape, p, p, dtype=L.dtype, device=L.device).tril(-1)
        chol = L @ (diag_embed(diag) + below)
        return chol @ chol.mT

    def rsample(self, sample_shape=Size(), max_try_correction=None) -> Tensor:
        """Bartlett draws; a draw that is not positive definite (possible for df < p) is drawn
        again, up to max_try_correction (10) times, with a warning, as torch's."""
        from .constraints_matrix import positive_definite
        shape = (sample_shape,) if isinstance(sample_shape, int) else tuple(sample_shape)
        sample = self._bartlett(shape)
        singular = ~positive_definite.check(sample)
        if bool(singular.any().item()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(10 if max_try_correction is None else max_try_correction):
                fresh = self._bartlett(shape)
                sample = where(singular.unsqueeze(-1).unsqueeze(-1), fresh, sample)
                singular = ~positive_definite.check(sample)
                if not bool(singular.any().item()):
                    break
        return sample

    def _half_log_det(self) -> Any:
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value) -> Tensor:
        from ..linalg._extras import cholesky_solve
        v: Any = self._value(value)
        nu, p = self.df, self.event_shape[-1]
        solved: Any = cholesky_solve(v, self._unbroadcasted_scale_tril)
        trace = solved.diagonal(0, -2, -1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + self._half_log_det()) - mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg.slogdet(v).logabsdet - trace / 2)

    def entropy(self) -> Tensor:
        nu, p = self.df, self.event_shape[-1]
        return ((p + 1) * (p * _LOG_2 / 2 + self._half_log_det()) + mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self.event_shape[-1]
        return (-self.precision_matrix / 2, (self.df - p - 1) / 2)

    def _log_normalizer(self, x, y):
        p = self.event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p=p)
