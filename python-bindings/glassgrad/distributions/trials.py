"""Geometric(probs= | logits=) and NegativeBinomial(total_count, probs= | logits=): counts of
Bernoulli trials, parameterized as torch's (probs the success probability; logits = log(p / (1 - p))).
Draws carry no gradient; log_prob and entropy are differentiable in the parameters."""
from __future__ import annotations

from typing import Any

from .._factories import rand
from .._runtime import no_grad
from .._size import Size
from .._special import lgamma
from .._tensor import Tensor
from .._type_info import finfo
from ..functional import where
from .continuous import _all
from .counts import Poisson
from .distribution import Distribution, broadcast_all
from .gamma import Gamma


def _binary_params(probs, logits, *others):
    """(others..., probs, logits): exactly one of probs and logits given, the other derived."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        *rest, p = broadcast_all(*others, probs)
        eps = finfo(p.dtype).eps
        q = p.clamp(eps, 1 - eps)
        return (*rest, p, q.log() - (-q).log1p())
    *rest, lg = broadcast_all(*others, logits)
    return (*rest, lg.sigmoid(), lg)


class Geometric(Distribution):
    """Geometric(probs | logits): failures before the first success, P(k) = (1 - p)^k p."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _binary_params(probs, logits)
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        super().__init__(self.probs.shape, validate_args=validate_args)
        if probs is not None and self._validate_args and not _all(self.probs > 0):
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found invalid "
                             f"values:\n{self.probs[self.probs <= 0]}")  # torch's own words for Geometric

    @property
    def mean(self) -> Tensor:
        return 1 / self.probs - 1

    @property
    def mode(self) -> Tensor:
        return self.probs * 0

    @property
    def variance(self) -> Tensor:
        return (1 / self.probs - 1) / self.probs

    def sample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = self.probs.detach()
            u = rand(shape, dtype=p.dtype, device=p.device).clamp(min=finfo(p.dtype).tiny)
            return (u.log() / (-p).log1p()).floor()

    def log_prob(self, value) -> Tensor:
        v, p = broadcast_all(self._value(value), self.probs)
        p = where((p == 1) & (v == 0), 0.0, p)  # 0 * log(0) is 0 here: P(0) = 1 when p = 1
        return v * (-p).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        from .._losses import binary_cross_entropy_with_logits
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class NegativeBinomial(Distribution):
    """NegativeBinomial(total_count, probs | logits): successes before total_count failures,
    P(k) = C(k + r - 1, k) p^k (1 - p)^r."""

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self.total_count, self.probs, self.logits = _binary_params(probs, logits, total_count)
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        self.total_count = self.total_count.to(self.probs.dtype)
        super().__init__(self.probs.shape, validate_args=validate_args)
        self._check(_all(self.total_count >= 0), "total_count must be non-negative")
        if probs is not None:
            self._check(_all((self.probs >= 0) & (self.probs < 1)), "probs must lie in [0, 1)")

    @property
    def param_shape(self) -> Size:
        return self.probs.shape

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape=Size()) -> Tensor:
        """A Poisson draw whose rate is a Gamma(total_count, exp(-logits)) draw (the gamma-Poisson mixture)."""
        with no_grad():
            rate = Gamma(self.total_count.detach(), (-self.logits.detach()).exp(), validate_args=False)
            return Poisson(rate.sample(sample_shape), validate_args=False).sample()

    def log_prob(self, value) -> Tensor:
        from ..nn.functional import logsigmoid
        v = self._value(value).to(self.probs.dtype)
        r = self.total_count
        unnormalized = r * logsigmoid(-self.logits) + v * logsigmoid(self.logits)
        normalization: Any = lgamma(1.0 + v)  # Any: Distribution._value says why
        normalization = normalization + lgamma(r) - lgamma(r + v)
        return unnormalized - where(r + v == 0.0, 0.0, normalization)
