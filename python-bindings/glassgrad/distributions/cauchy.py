"""Cauchy(loc, scale) and the half-distributions HalfCauchy(scale) and HalfNormal(scale): |X| of
a centred Cauchy or Normal, density doubled on x >= 0 (torch builds them as |X| transforms; the
values are the same). Draws by the inverse CDF, so rsample carries gradients to the parameters."""
from __future__ import annotations

import math
from typing import Any

from .._factories import rand
from .._size import Size
from .._tensor import Tensor
from ..functional import where
from .continuous import Normal, _LocScale
from .distribution import Distribution, broadcast_all

_LOG2 = math.log(2.0)


class Cauchy(_LocScale):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)); no mean, no variance."""

    @property
    def mean(self) -> Tensor:
        return self.loc * math.nan

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.loc * 0 + math.inf

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value) -> Tensor:
        z = (self._value(value) - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z * z).log1p()

    def cdf(self, value) -> Tensor:
        return ((self._value(value) - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value) -> Tensor:
        return (math.pi * (self._value(value) - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class _Half(Distribution):
    """|X| of a centred base: log_prob = base's + log 2 on x >= 0 (-inf below), cdf = 2 F(x) - 1."""

    has_rsample = True
    base: Any  # a Normal or a Cauchy; Any as Distribution._value says why

    @property
    def scale(self) -> Any:
        return self.base.scale

    @property
    def mode(self) -> Tensor:
        return self.scale * 0

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.base.rsample(sample_shape).abs()

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        return where(v >= 0, self.base.log_prob(v) + _LOG2, -math.inf)

    def cdf(self, value) -> Tensor:
        return 2 * self.base.cdf(self._value(value)) - 1

    def icdf(self, value) -> Tensor:
        return self.base.icdf((self._value(value) + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base.entropy() - _LOG2


class HalfNormal(_Half):
    """HalfNormal(scale): |Normal(0, scale)|."""

    def __init__(self, scale, validate_args=None):
        (scale,) = broadcast_all(scale)
        self.base = Normal(scale * 0, scale, validate_args=validate_args)
        super().__init__(scale.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale ** 2 * (1 - 2 / math.pi)


class HalfCauchy(_Half):
    """HalfCauchy(scale): |Cauchy(0, scale)|; infinite mean and variance."""

    def __init__(self, scale, validate_args=None):
        (scale,) = broadcast_all(scale)
        self.base = Cauchy(scale * 0, scale, validate_args=validate_args)
        super().__init__(scale.shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * 0 + math.inf

    @property
    def variance(self) -> Tensor:
        return self.scale * 0 + math.inf
