"""torch.distributions.transforms' bijections: y = t(x), x = t.inv(y), and
log_abs_det_jacobian(x, y) = log |dy/dx| (summed over the event axes for event_dim > 0), all of
glassgrad's differentiable ops. With cache_size=1 a transform remembers its last (x, y) pair, so
t.inv(t(x)) returns x itself (torch's caching, which keeps rsample's gradients exact)."""
from __future__ import annotations

import math
from typing import Any, List, Optional

from .._type_info import finfo
from . import constraints

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform"]


def _sum_rightmost(value: Any, dim: int) -> Any:
    return value.sum(tuple(range(-dim, 0))) if dim > 0 else value


def _softplus(x: Any) -> Any:
    from ..nn.functional import softplus
    return softplus(x)


class Transform:
    """A map with inverse: __call__ forward, inv the inverse transform, sign +1/-1 where monotone."""

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    sign: Any = 1

    def __init__(self, cache_size: int = 0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached: Optional[tuple] = None
        self._inv: Optional[Transform] = None

    @property
    def event_dim(self) -> int:
        return max(self.domain.event_dim, self.codomain.event_dim)

    @property
    def inv(self) -> "Transform":
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def with_cache(self, cache_size: int = 1) -> "Transform":
        import copy
        new = copy.copy(self)
        new._cache_size, new._cached, new._inv = cache_size, None, None
        return new

    def __call__(self, x):
        if self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} is not invertible")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError(f"{type(self).__name__}.log_abs_det_jacobian is not implemented")

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """t.inv: the same pair read the other way (its inv is t again)."""

    def __init__(self, transform: Transform):
        super().__init__(transform._cache_size)
        self._inv = transform
        self.bijective = transform.bijective

    @property
    def domain(self):  # type: ignore[override]
        return self._inv.codomain  # type: ignore[union-attr]

    @property
    def codomain(self):  # type: ignore[override]
        return self._inv.domain  # type: ignore[union-attr]

    @property
    def sign(self):  # type: ignore[override]
        return self._inv.sign  # type: ignore[union-attr]

    @property
    def inv(self) -> Transform:
        return self._inv  # type: ignore[return-value]

    def __call__(self, x):
        return self._inv._inv_call(x)  # type: ignore[union-attr]

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)  # type: ignore[union-attr]

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)  # type: ignore[union-attr]

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)  # type: ignore[union-attr]


class ComposeTransform(Transform):
    """parts applied left to right; the event axes grow to the widest part's."""

    def __init__(self, parts: List[Transform], cache_size: int = 0):
        super().__init__(cache_size)
        self.parts = list(parts)
        self.bijective = all(p.bijective for p in self.parts)

    @property
    def domain(self):  # type: ignore[override]
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        base = self.parts[0].domain
        return constraints.independent(base, event_dim - base.event_dim) if event_dim > base.event_dim else base

    @property
    def codomain(self):  # type: ignore[override]
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        base = self.parts[-1].codomain
        return constraints.independent(base, event_dim - base.event_dim) if event_dim > base.event_dim else base

    @property
    def sign(self):  # type: ignore[override]
        s: Any = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self) -> Transform:
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def _call(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return shape

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return x * 0
        xs = [x]
        for p in self.parts[:-1]:
            xs.append(p(xs[-1]))
        xs.append(y)
        event_dim = self.domain.event_dim
        total: Any = 0
        for p, a, b in zip(self.parts, xs[:-1], xs[1:]):
            total = total + _sum_rightmost(p.log_abs_det_jacobian(a, b), event_dim - p.domain.event_dim)
            event_dim += p.codomain.event_dim - p.domain.event_dim
        return total


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """y = exp(x)."""

    bijective = True
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on x > 0."""

    bijective = True
    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent, cache_size: int = 0):
        super().__init__(cache_size)
        from .distribution import broadcast_all
        (self.exponent,) = broadcast_all(exponent)

    @property
    def sign(self):  # type: ignore[override]
        return self.exponent.sign()

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** (1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()


class SigmoidTransform(Transform):
    """y = sigmoid(x), kept inside [tiny, 1 - eps] so that its inverse stays finite (as torch's)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def _call(self, x):
        fi = finfo(x.dtype)
        return x.sigmoid().clamp(min=fi.tiny, max=1.0 - fi.eps)

    def _inverse(self, y):
        fi = finfo(y.dtype)
        y = y.clamp(min=fi.tiny, max=1.0 - fi.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


class TanhTransform(Transform):
    """y = tanh(x); log|dy/dx| = 2 (log 2 - x - softplus(-2x)), stable for large |x|."""

    bijective = True
    codomain = constraints.interval(-1.0, 1.0)
    sign = 1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""

    bijective = True
    codomain = constraints.positive
    sign = 1

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class AffineTransform(Transform):
    """y = loc + scale * x; event_dim > 0 sums log|scale| over that many rightmost axes."""

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0):
        super().__init__(cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = int(event_dim)

    @property
    def domain(self):  # type: ignore[override]
        return constraints.independent(constraints.real, self._event_dim) if self._event_dim else constraints.real

    @property
    def codomain(self):  # type: ignore[override]
        return self.domain

    @property
    def sign(self):  # type: ignore[override]
        from .._tensor import Tensor
        if isinstance(self.scale, Tensor):
            return self.scale.sign()
        return 1 if self.scale > 0 else (-1 if self.scale < 0 else 0)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        from .._tensor import Tensor
        if isinstance(self.scale, Tensor):
            result = self.scale.abs().log() + x * 0
        else:
            result = x * 0 + math.log(abs(self.scale))
        return _sum_rightmost(result, self._event_dim)


def _offset_logs(x: Any, k: int) -> Any:
    """log(k - j) for j = 0..k-1: the stick-breaking offsets, which map x = 0 to the uniform simplex."""
    from .._factories import arange
    return (k - arange(k, dtype=x.dtype, device=x.device)).log()


class StatelessTransform(Transform):
    """A transform without parameters: any two of one class are equal (torch's __eq__ for them)."""

    def __eq__(self, other) -> bool:
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__


class StickBreakingTransform(StatelessTransform):
    """R^K -> the K-simplex in R^(K+1): z_j = sigmoid(x_j - log(K - j)), y_j = z_j prod_{i<j} (1 - z_i),
    y_K the stick left over (torch's, with the sigmoid clipped to [tiny, 1 - eps])."""

    bijective = True
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        from .._spatial import cat
        k = x.shape[-1]
        fi = finfo(x.dtype)
        z = (x - _offset_logs(x, k)).sigmoid().clamp(min=fi.tiny, max=1.0 - fi.eps)
        z_cumprod = (1 - z).cumprod(-1)
        one = x[..., :1] * 0 + 1
        return cat([z, one], -1) * cat([one, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        k = y_crop.shape[-1]
        sf = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)  # positive where y_K ~ 0
        return y_crop.log() - sf.log() + _offset_logs(y, k)

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import logsigmoid
        x = x - _offset_logs(x, x.shape[-1])
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


# the shape and matrix transforms live in transforms_more.py; torch's module holds them all
from .transforms_more import (AbsTransform, CorrCholeskyTransform, CumulativeDistributionTransform,  # noqa: E402
                              IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                              ReshapeTransform, SoftmaxTransform)
from .transforms_joined import CatTransform, StackTransform  # noqa: E402
