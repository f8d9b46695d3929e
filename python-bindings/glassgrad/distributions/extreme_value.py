"""Gumbel(loc, scale), Weibull(scale, concentration) and Pareto(scale, alpha): torch builds each as a
transformed Uniform or Exponential; here they are written out in closed form (same values).
Draws by the inverse CDF of U(0, 1), so rsample carries gradients to the parameters."""
from __future__ import annotations

import math
from typing import Any

from .._factories import rand
from .._size import Size
from .._special import lgamma
from .._tensor import Tensor
from .._type_info import finfo
from .continuous import _all
from .distribution import Distribution, broadcast_all

EULER_GAMMA = 0.57721566490153286060


class _InverseCdfSampler(Distribution):
    """rsample = icdf(U), U uniform on [tiny, 1 - eps] (never 0 or 1, whose icdf is infinite)."""

    has_rsample = True
    _like: Tensor

    def rsample(self, sample_shape=Size()) -> Tensor:
        like = self._like
        fi = finfo(like.dtype)
        u = rand(self._extended_shape(sample_shape), dtype=like.dtype, device=like.device)
        return self.icdf(u.clamp(fi.tiny, 1 - fi.eps))


class Gumbel(_InverseCdfSampler):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale))."""

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        self._like = self.loc
        super().__init__(self.loc.shape, validate_args=validate_args)
        self._check(_all(self.scale > 0), "scale must be positive")

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return (math.pi ** 2 / 6) * self.scale ** 2

    def log_prob(self, value) -> Tensor:
        y = (self.loc - self._value(value)) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value) -> Tensor:
        return (-(-(self._value(value) - self.loc) / self.scale).exp()).exp()

    def icdf(self, value) -> Tensor:
        return self.loc - self.scale * (-self._value(value).log()).log()

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + EULER_GAMMA)


class Weibull(_InverseCdfSampler):
    """Weibull(scale, concentration): cdf 1 - exp(-(x / scale)^concentration) on x >= 0."""

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self._like = self.scale
        super().__init__(self.scale.shape, validate_args=validate_args)
        self._check(_all(self.scale > 0), "scale must be positive")
        self._check(_all(self.concentration > 0), "concentration must be positive")

    @property
    def mean(self) -> Tensor:
        log_g1: Any = lgamma(1 + 1 / self.concentration)  # Any: Distribution._value says why
        return self.scale * log_g1.exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** (1 / k)

    @property
    def variance(self) -> Tensor:
        k = self.concentration
        log_g1: Any = lgamma(1 + 1 / k)
        log_g2: Any = lgamma(1 + 2 / k)
        return self.scale ** 2 * (log_g2.exp() - (2 * log_g1).exp())

    def log_prob(self, value) -> Tensor:
        k = self.concentration
        z = self._value(value) / self.scale
        return (k / self.scale).log() + (k - 1) * z.log() - z ** k

    def cdf(self, value) -> Tensor:
        return -(-(self._value(value) / self.scale) ** self.concentration).expm1()

    def icdf(self, value) -> Tensor:
        return self.scale * (-(-self._value(value)).log1p()) ** (1 / self.concentration)

    def entropy(self) -> Tensor:
        k = self.concentration
        return EULER_GAMMA * (1 - 1 / k) + (self.scale / k).log() + 1


class Pareto(_InverseCdfSampler):
    """Pareto(scale, alpha): cdf 1 - (scale / x)^alpha on x >= scale."""

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        self._like = self.scale
        super().__init__(self.scale.shape, validate_args=validate_args)
        self._check(_all(self.scale > 0), "scale must be positive")
        self._check(_all(self.alpha > 0), "alpha must be positive")

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)  # inf for alpha <= 1, as torch's
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)  # inf for alpha <= 2, as torch's
        return self.scale ** 2 * a / ((a - 1) ** 2 * (a - 2))

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * v.log()

    def cdf(self, value) -> Tensor:
        return 1 - (self.scale / self._value(value)) ** self.alpha

    def icdf(self, value) -> Tensor:
        return self.scale * (-(-self._value(value)).log1p() / self.alpha).exp()

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + 1 / self.alpha)
