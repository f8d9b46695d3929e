"""ContinuousBernoulli(probs= | logits=, lims=(0.499, 0.501)): the density
C(p) p^x (1 - p)^(1 - x) on [0, 1] (Loaiza-Ganem and Cunningham, 2019). Its normalizer, mean and
variance are 0/0 at p = 1/2, so inside lims they are torch's Taylor expansions around 1/2; outside,
the closed forms at p (the unstable-region rule of torch.distributions.ContinuousBernoulli).
rsample is the inverse CDF of U(0, 1), so it carries gradients to the parameter."""
from __future__ import annotations

import math
from typing import Any

from .._factories import rand
from .._size import Size
from .._tensor import Tensor
from .._type_info import finfo
from ..functional import where
from .distribution import broadcast_all
from .exp_family import ExponentialFamily


def _clamp_probs(p: Any) -> Any:
    eps = finfo(p.dtype).eps
    return p.clamp(min=eps, max=1 - eps)


class ContinuousBernoulli(ExponentialFamily):
    """probs in (0, 1) (not a probability) or logits with sigmoid(logits) = probs."""

    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        if probs is not None:
            (p,) = broadcast_all(probs)
            if validate_args is not None and not bool(((p >= 0) & (p <= 1)).all().item()):
                raise ValueError("The parameter probs has invalid values")
            self.probs: Any = _clamp_probs(p)
            self.logits: Any = self.probs.log() - (-self.probs).log1p()
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = _clamp_probs(self.logits.sigmoid())
            self._param = self.logits
        self._lims = tuple(lims)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def _outside_unstable_region(self) -> Any:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Any:
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Any:
        """log C(p): log|log(1 - p) - log p| - log|1 - 2p| outside lims, a Taylor series inside."""
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, 0.0)
        above = where(cut >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(cut <= 0.5, (-2.0 * below).log1p(),
                                                                    (2.0 * above - 1.0).log())
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / ((-cut).log1p() - cut.log()) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), var, taylor)

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value) -> Tensor:
        from ..nn.functional import logsigmoid
        logits, v = broadcast_all(self.logits, self._value(value))
        # -binary_cross_entropy_with_logits(logits, v) (torch's form) written as v l + log sigmoid(-l),
        # whose gradient v - sigmoid(l) holds at l = 0 too
        return v * logits + logsigmoid(-logits) + self._cont_bern_log_norm()

    def cdf(self, value) -> Tensor:
        v: Any = self._value(value)
        cut = self._cut_probs()
        cdfs = (cut ** v * (1.0 - cut) ** (1.0 - v) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, v)
        return where(v <= 0.0, 0.0, where(v >= 1.0, 1.0, unbounded))

    def icdf(self, value) -> Tensor:
        v: Any = self._value(value)
        cut = self._cut_probs()
        inverse = ((-cut + v * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (cut.log() - (-cut).log1p())
        return where(self._outside_unstable_region(), inverse, v)

    def entropy(self) -> Tensor:
        log_p0, log_p1 = (-self.probs).log1p(), self.probs.log()
        mean: Any = self.mean
        return mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x - 1) / x) in the natural parameter, a Taylor series near x = 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0
        return where(outside, log_norm, taylor)
