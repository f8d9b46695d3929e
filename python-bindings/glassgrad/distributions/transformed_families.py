"""InverseGamma(concentration, rate) and Kumaraswamy(concentration1, concentration0), built as
torch builds them: TransformedDistributions of a Gamma (through x^-1) and of a Uniform (through
x^(1/b), 1 - x, x^(1/a)), so log_prob, cdf and rsample come from there; their moments, modes and
entropies are torch's closed forms."""
from __future__ import annotations

import math
from typing import Any

from .._special import digamma, lgamma
from .._tensor import Tensor
from ..functional import where
from .continuous import Uniform, _all
from .distribution import Distribution, broadcast_all
from .extreme_value import EULER_GAMMA
from .gamma import Gamma
from .transformed import TransformedDistribution
from .transforms import AffineTransform, PowerTransform


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate)."""

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        self.concentration, self.rate = base.concentration, base.rate
        neg_one = base.rate * 0 - 1
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> Distribution:
        b = tuple(batch_shape)
        return InverseGamma(self.concentration.expand(*b), self.rate.expand(*b), self._validate_args)

    @property
    def mean(self) -> Tensor:
        c = self.concentration
        return where(c > 1, self.rate / (c - 1), math.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        return where(c > 2, self.rate ** 2 / ((c - 1) ** 2 * (c - 2)), math.inf)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c + self.rate.log() + lgamma(c) - (1 + c) * digamma(c)


def _kumaraswamy_moment(a: Any, b: Any, n: int) -> Any:
    arg1 = 1 + n / a
    log_value: Any = lgamma(arg1)  # Any: Distribution._value says why
    return b * (log_value + lgamma(b) - lgamma(arg1 + b)).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1 a, concentration0 b) on (0, 1): cdf 1 - (1 - x^a)^b."""

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(self.concentration0 * 0, self.concentration0 * 0 + 1, validate_args=validate_args)
        transforms = [PowerTransform(1 / self.concentration0), AffineTransform(1.0, -1.0),
                      PowerTransform(1 / self.concentration1)]
        super().__init__(base, transforms, validate_args=validate_args)
        self._check(_all(self.concentration1 > 0) and _all(self.concentration0 > 0),
                    "concentration1 and concentration0 must be positive")

    def expand(self, batch_shape, _instance=None) -> Distribution:
        b = tuple(batch_shape)
        return Kumaraswamy(self.concentration1.expand(*b), self.concentration0.expand(*b), self._validate_args)

    @property
    def mean(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """torch's formula, NaN where a concentration is below 1."""
        c1, c0 = self.concentration1, self.concentration0
        log_mode = (1 / c0) * (-c0).log1p() - (-c0 * c1).log1p()
        return where((c0 < 1) | (c1 < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> Tensor:
        m: Any = self.mean
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - m ** 2

    def entropy(self) -> Tensor:
        c1, c0 = self.concentration1, self.concentration0
        h0: Any = digamma(c0 + 1)
        return (1 - 1 / c0) + (1 - 1 / c1) * (h0 + EULER_GAMMA) - c1.log() - c0.log()
