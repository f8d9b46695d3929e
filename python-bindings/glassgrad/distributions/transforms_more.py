"""torch.distributions.transforms' shape and matrix transforms: AbsTransform, SoftmaxTransform,
IndependentTransform, ReshapeTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
CorrCholeskyTransform and CumulativeDistributionTransform, with torch's maps, inverses,
log-determinants and shapes (transforms.py has the base class and the elementwise ones)."""
from __future__ import annotations

import math
from typing import Any

from .. import linalg
from .._type_info import finfo
from . import constraints
from .constraints_matrix import corr_cholesky, lower_cholesky, positive_definite
from .transforms import StatelessTransform, Transform, _softplus, _sum_rightmost


class AbsTransform(StatelessTransform):
    """y = |x| (not bijective: the inverse is the identity on y >= 0)."""

    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class SoftmaxTransform(StatelessTransform):
    """R^K onto the simplex by softmax (not bijective; the inverse is log y, as torch's)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()


class IndependentTransform(Transform):
    """base_transform with its rightmost reinterpreted_batch_ndims axes joined to the event: the
    log-determinant is summed over them."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0):
        super().__init__(cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)
        self.bijective = base_transform.bijective

    @property
    def domain(self):  # type: ignore[override]
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):  # type: ignore[override]
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def sign(self):  # type: ignore[override]
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """The rightmost in_shape axes reshaped to out_shape (same number of elements); log-det 0."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size: int = 0):
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    @property
    def domain(self):  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x):
        return x.reshape(*x.shape[:x.dim() - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y):
        return y.reshape(*y.shape[:y.dim() - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        from .._factories import zeros
        return zeros(x.shape[:x.dim() - len(self.in_shape)], dtype=x.dtype, device=x.device)

    def _reshaped(self, shape, source: tuple, target: tuple) -> tuple:
        shape = tuple(shape)
        if len(shape) < len(source):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(source)
        if shape[cut:] != source:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {source}")
        return shape[:cut] + target

    def forward_shape(self, shape):
        return self._reshaped(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._reshaped(shape, self.out_shape, self.in_shape)


def _diag_map(x: Any, fn: str) -> Any:
    """x's strict lower triangle plus fn (exp or log) of its diagonal."""
    from .._shapes import diag_embed
    return x.tril(-1) + diag_embed(getattr(x.diagonal(0, -2, -1), fn)())


class LowerCholeskyTransform(StatelessTransform):
    """Any square matrix to a lower Cholesky factor: strict lower triangle kept, diagonal exp'd."""

    domain = constraints.independent(constraints.real, 2)
    codomain = lower_cholesky

    def _call(self, x):
        return _diag_map(x, "exp")

    def _inverse(self, y):
        return _diag_map(y, "log")


class PositiveDefiniteTransform(StatelessTransform):
    """Any square matrix to L L^T, L its LowerCholeskyTransform image."""

    domain = constraints.independent(constraints.real, 2)
    codomain = positive_definite

    def _call(self, x):
        L = _diag_map(x, "exp")
        return L @ L.mT

    def _inverse(self, y):
        return _diag_map(linalg.cholesky(y), "log")


def _tril_positions(n: int, diag: int) -> list:
    """Flat positions (row-major) of the entries j <= i + diag of an n x n matrix, in torch's order."""
    return [i * n + j for i in range(n) for j in range(n) if j <= i + diag]


def _vec_to_tril(vec: Any, n: int, diag: int) -> Any:
    """vec [..., K] into the lower triangle (below diagonal diag) of n x n zeros, row by row."""
    from .._factories import zeros
    positions = _tril_positions(n, diag)
    place = zeros(len(positions), n * n, dtype=vec.dtype, device=vec.device)
    for k, p in enumerate(positions):
        place[k, p] = 1.0
    return (vec @ place).reshape(*vec.shape[:-1], n, n)


def _tril_to_vec(mat: Any, diag: int) -> Any:
    from .._tensor import tensor
    n = mat.shape[-1]
    index = tensor(_tril_positions(n, diag), device=mat.device)
    return mat.reshape(*mat.shape[:-2], n * n).index_select(-1, index)


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) to Cholesky factors of D x D correlation matrices: tanh of x fills the strict lower
    triangle, each row completed to unit length by stick-breaking (torch's construction)."""

    domain = constraints.real_vector
    codomain = corr_cholesky
    bijective = True

    def _call(self, x):
        from .._factories import eye
        from .._spatial import cat
        eps = finfo(x.dtype).eps
        t = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        n = self.forward_shape(tuple(x.shape))[-1]
        r = _vec_to_tril(t, n, -1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + eye(n, dtype=r.dtype, device=r.device)
        ones = z1m_cumprod_sqrt[..., :1] * 0 + 1
        return r * cat([ones, z1m_cumprod_sqrt[..., :-1]], -1)

    def _inverse(self, y):
        from .._spatial import cat
        y_cumsum = 1 - (y * y).cumsum(-1)
        shifted = cat([y_cumsum[..., :1] * 0 + 1, y_cumsum[..., :-1]], -1)
        t = _tril_to_vec(y, -1) / _tril_to_vec(shifted, -1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick_breaking_logdet = 0.5 * _tril_to_vec(y1m_cumsum, -2).log().sum(-1)
        tanh_logdet = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)


class CumulativeDistributionTransform(Transform):
    """x to distribution.cdf(x) in [0, 1]; the inverse is icdf, the log-det log_prob (torch's)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0):
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self):  # type: ignore[override]
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
