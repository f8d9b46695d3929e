"""Poisson(rate) and Binomial(total_count, probs= | logits=): log-probabilities through lgamma
(docs/special-functions.md), with gradients to the parameters."""
from __future__ import annotations

from typing import Any

from .._factories import rand
from .._math import xlogy
from .._runtime import no_grad
from .._size import Size
from .._special import lgamma
from .._tensor import Tensor
from .continuous import _all
from .distribution import Distribution, broadcast_all
from .exp_family import ExponentialFamily


class Poisson(ExponentialFamily):
    """Poisson(rate): P(k) = rate^k e^(-rate) / k!; no entropy (torch's has no carrier-measure mean)."""

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)
        self._check(_all(self.rate >= 0), "rate must be non-negative")

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape=Size()) -> Tensor:
        """Counts of unit-rate exponential arrivals before time rate (Knuth's method: cost grows
        with the rate; meant for rates up to a few hundred)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            limit = (-self.rate.detach()).exp().expand(*shape)
            prod = limit * 0 + 1
            k = limit * 0
            alive = prod > limit
            while bool(alive.any().item()):
                prod = prod * rand(shape, dtype=prod.dtype, device=prod.device)
                alive = prod > limit
                k = k + alive.to(k.dtype)
            return k

    def log_prob(self, value) -> Tensor:
        k = self._value(value).to(self.rate.dtype)
        return xlogy(k, self.rate) - self.rate - lgamma(k + 1)


class Binomial(Distribution):
    """Binomial(total_count=1, probs= | logits=): successes in total_count trials."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.logits = (self.probs / (1 - self.probs)).log()
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.probs = self.logits.sigmoid()
        self.total_count = self.total_count.to(self.probs.dtype)
        super().__init__(self.probs.shape, validate_args=validate_args)
        self._check(_all(self.total_count >= 0), "total_count must be non-negative")

    @property
    def param_shape(self) -> Size:
        return self.probs.shape

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    has_enumerate_support = True

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from .._factories import arange
        n = int(self.total_count.max().item())
        if not float(self.total_count.min().item()) == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = arange(1 + n, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(-1, *([1] * len(self.batch_shape)))
        return values.expand(-1, *self.batch_shape) if expand else values

    def entropy(self) -> Tensor:
        """-sum_k p(k) log p(k) over k = 0..total_count (one total_count for the whole batch, as torch)."""
        n = int(self.total_count.max().item())
        if not float(self.total_count.min().item()) == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob: Any = self.log_prob(self.enumerate_support(False))  # Any: Distribution._value says why
        return -(log_prob.exp() * log_prob).sum(0)

    def sample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            n_max = int(self.total_count.max().item())
            n = self.total_count.detach().expand(*shape)
            p = self.probs.detach().expand(*shape)
            k = p * 0
            for i in range(n_max):
                k = k + ((rand(shape, dtype=p.dtype, device=p.device) < p) & (n > i)).to(p.dtype)
            return k

    def log_prob(self, value) -> Tensor:
        k = self._value(value).to(self.probs.dtype)
        n, logits = self.total_count, self.logits
        log_factorial_n = lgamma(n + 1)
        normalize = n * logits.clamp(min=0) + n * (-logits.abs()).exp().log1p() - log_factorial_n
        return k * logits - lgamma(k + 1) - lgamma(n - k + 1) - normalize
