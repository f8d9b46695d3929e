"""Normal, Uniform, Exponential, Laplace and LogNormal: reparameterized draws (rsample), log densities,
entropies, CDFs, all composed of differentiable ops."""
from __future__ import annotations

import math

from .._factories import rand, randn
from .._size import Size
from .._tensor import Tensor
from .distribution import LOG_SQRT_2PI, Distribution, broadcast_all
from .exp_family import ExponentialFamily


def _all(t: Tensor) -> bool:
    return bool(t.all().item())


class _LocScale(Distribution):
    """A location-scale family: loc and scale broadcast together, scale > 0, mean = loc."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)
        self._check(_all(self.scale > 0), "scale must be positive")

    @property
    def mean(self) -> Tensor:
        return self.loc


class Normal(_LocScale, ExponentialFamily):
    """Normal(loc, scale): rsample = loc + scale * N(0, 1)."""

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.loc / self.scale ** 2, -0.5 / self.scale ** 2)

    def _log_normalizer(self, x, y):
        return -0.25 * x ** 2 / y + 0.5 * (-math.pi / y).log()

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale ** 2

    def rsample(self, sample_shape=Size()) -> Tensor:
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        return -((v - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - LOG_SQRT_2PI

    def entropy(self) -> Tensor:
        return 0.5 + LOG_SQRT_2PI + self.scale.log()

    def cdf(self, value) -> Tensor:
        from .._math import erf
        return 0.5 * (1 + erf((self._value(value) - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value) -> Tensor:
        from .._special import erfinv
        return self.loc + self.scale * erfinv(2 * self._value(value) - 1) * math.sqrt(2)


class Uniform(Distribution):
    """Uniform(low, high) on [low, high): rsample = low + (high - low) * U(0, 1)."""

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        self._check(_all(self.low < self.high), "low must be below high")

    @property
    def mean(self) -> Tensor:
        return (self.low + self.high) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * math.nan  # every point of [low, high) is a mode: NaN, as torch's

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value) -> Tensor:
        from ..functional import where
        v = self._value(value)
        inside = (v >= self.low) & (v < self.high)
        return where(inside, -(self.high - self.low).log(), float("-inf"))

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()

    def cdf(self, value) -> Tensor:
        return ((self._value(value) - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value) -> Tensor:
        return self.low + self._value(value) * (self.high - self.low)


class Exponential(ExponentialFamily):
    """Exponential(rate): rsample = -log(U) / rate."""

    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)
        self._check(_all(self.rate > 0), "rate must be positive")

    @property
    def mean(self) -> Tensor:
        return 1 / self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate * 0

    @property
    def variance(self) -> Tensor:
        return self.rate ** -2

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.rate.dtype, device=self.rate.device)
        return -(1 - u).log() / self.rate  # 1 - u in (0, 1]: never log(0)

    def log_prob(self, value) -> Tensor:
        return self.rate.log() - self.rate * self._value(value)

    def entropy(self) -> Tensor:
        return 1 - self.rate.log()

    def cdf(self, value) -> Tensor:
        return 1 - (-self.rate * self._value(value)).exp()

    def icdf(self, value) -> Tensor:
        return -(-self._value(value)).log1p() / self.rate


class Laplace(_LocScale):
    """Laplace(loc, scale): rsample by the inverse CDF of U(-1, 1)."""

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale ** 2

    def rsample(self, sample_shape=Size()) -> Tensor:
        eps = 1e-7
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device) * (2 - 2 * eps) \
            - (1 - eps)
        return self.loc - self.scale * u.sign() * (1 - u.abs()).log()

    def log_prob(self, value) -> Tensor:
        return -(2 * self.scale).log() - (self._value(value) - self.loc).abs() / self.scale

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()

    @property
    def mode(self) -> Tensor:
        return self.loc

    def cdf(self, value) -> Tensor:
        d = self._value(value) - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value) -> Tensor:
        term = self._value(value) - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()


class LogNormal(Distribution):
    """LogNormal(loc, scale): exp of Normal(loc, scale); rsample = exp(loc + scale * N(0, 1))."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        self.loc, self.scale = self.base_dist.loc, self.base_dist.scale
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale ** 2 / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale ** 2).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale ** 2
        return s2.expm1() * (2 * self.loc + s2).exp()

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        y = v.log()
        return self.base_dist.log_prob(y) - y

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc

    def cdf(self, value) -> Tensor:
        return self.base_dist.cdf(self._value(value).log())

    def icdf(self, value) -> Tensor:
        return self.base_dist.icdf(value).exp()
