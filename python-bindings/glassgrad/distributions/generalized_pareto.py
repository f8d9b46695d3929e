"""GeneralizedPareto(loc, scale, concentration): survival function (1 + c z)^(-1/c), z = (x - loc) /
scale (exp(-z) at c = 0, taken where |c| <= 1e-8 as torch's isclose); support [loc, loc - scale / c]
for c < 0, [loc, inf) otherwise. rsample is the inverse CDF of U(0, 1), differentiable in all
three parameters."""
from __future__ import annotations

import math
from typing import Any

from .._factories import rand
from .._size import Size
from .._tensor import Tensor
from ..functional import where
from .distribution import Distribution, broadcast_all


class GeneralizedPareto(Distribution):
    """mean NaN for c >= 1, variance NaN for c >= 1/2 (torch's); entropy log(scale) + c + 1."""

    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _zero_and_safe(self) -> tuple:
        """(c == 0 to torch.isclose's default tolerance, c with those entries set to 1)."""
        eq_zero = self.concentration.abs() <= 1e-8
        return eq_zero, where(eq_zero, 1.0, self.concentration)

    def _z(self, value) -> Any:
        return (self._value(value) - self.loc) / self.scale

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value) -> Tensor:
        z = self._z(value)
        eq_zero, c = self._zero_and_safe()
        y = 1 / c + 1
        nonzero = where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - where(eq_zero, z, nonzero)

    def log_survival_function(self, value) -> Tensor:
        z = self._z(value)
        eq_zero, c = self._zero_and_safe()
        return where(eq_zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value) -> Tensor:
        s: Any = self.log_survival_function(value)
        return (-s.exp()).log1p()

    def cdf(self, value) -> Tensor:
        lc: Any = self.log_cdf(value)
        return lc.exp()

    def icdf(self, value) -> Tensor:
        eq_zero, c = self._zero_and_safe()
        log_u = (-self._value(value)).log1p()
        return where(eq_zero, self.loc - self.scale * log_u, self.loc + self.scale / c * (-c * log_u).expm1())

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        c = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        c = where(valid, self.concentration, 0.25)
        return where(valid, self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c)), math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).expand(*self.batch_shape)
