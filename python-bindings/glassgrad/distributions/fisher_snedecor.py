"""FisherSnedecor(df1, df2): the F distribution, (X1 / df1) / (X2 / df2) of two Chi2 draws; rsample
divides two Gamma draws and inherits their implicit gradient (gamma.py)."""
from __future__ import annotations

import math
from typing import Any

from .._size import Size
from .._special import lgamma
from .._tensor import Tensor
from .._type_info import finfo
from ..functional import where
from .continuous import _all
from .distribution import Distribution, broadcast_all
from .gamma import Gamma


class FisherSnedecor(Distribution):
    """FisherSnedecor(df1, df2) on x > 0; mean NaN for df2 <= 2, variance NaN for df2 <= 4 (torch's)."""

    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)
        self._check(_all(self.df1 > 0) and _all(self.df2 > 0), "df1 and df2 must be positive")

    @property
    def mean(self) -> Tensor:
        df2 = where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1
        return where(mode <= 0, math.nan, mode) * self.df2 / (self.df2 + 2)

    @property
    def variance(self) -> Tensor:
        df2 = where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2 ** 2 * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2) ** 2 * (df2 - 4))

    def rsample(self, sample_shape=Size()) -> Tensor:
        tiny = finfo(self.df1.dtype).tiny
        x1: Any = Gamma(self.df1 * 0.5, self.df1, validate_args=False).rsample(sample_shape)
        x2: Any = Gamma(self.df2 * 0.5, self.df2, validate_args=False).rsample(sample_shape)
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1: Any = lgamma(ct1 + ct2)
        t1 = t1 - lgamma(ct1) - lgamma(ct2)
        return t1 + ct1 * ct3.log() + (ct1 - 1) * v.log() - (ct1 + ct2) * (ct3 * v).log1p()
