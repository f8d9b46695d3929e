"""Continuous relaxations of discrete draws (the Concrete / Gumbel-softmax distributions):
RelaxedBernoulli(temperature, probs= | logits=) and RelaxedOneHotCategorical(temperature,
probs= | logits=), built as torch's (a logistic or an exp-relaxed categorical pushed through a
sigmoid or exp transform, so log_prob values agree), and OneHotCategoricalStraightThrough, whose
rsample is the one-hot draw with the probabilities' gradient (straight-through estimator)."""
from __future__ import annotations

from typing import Any

from .._factories import rand
from .._size import Size
from .._special import lgamma
from .._tensor import Tensor
from .._type_info import finfo
from .discrete import OneHotCategorical, OverCategorical
from .distribution import Distribution, broadcast_all
from .transformed import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .trials import _binary_params


def _clamp_probs(u: Any) -> Any:
    eps = finfo(u.dtype).eps
    return u.clamp(min=eps, max=1 - eps)


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli draw: (logits + logistic noise) / temperature."""

    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature: Any = temperature
        self.probs, self.logits = _binary_params(probs, logits)
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        super().__init__(self.logits.shape, validate_args=validate_args)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = _clamp_probs(rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        return (u.log() - (-u).log1p() + self.logits) / self.temperature

    def log_prob(self, value) -> Tensor:
        v = self._value(value)
        diff = self.logits - v * self.temperature
        t: Any = self.temperature if isinstance(self.temperature, Tensor) else broadcast_all(self.temperature,
                                                                                            self.logits)[0]
        return t.log() + diff - 2 * diff.exp().log1p()


class _Relaxed(TransformedDistribution):
    """The temperature, probs and logits of the base distribution."""

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature  # type: ignore[attr-defined]

    @property
    def probs(self) -> Any:
        return self.base_dist.probs  # type: ignore[attr-defined]

    @property
    def logits(self) -> Any:
        return self.base_dist.logits  # type: ignore[attr-defined]


class ExpRelaxedCategorical(OverCategorical):
    """The log of a RelaxedOneHotCategorical draw: log_softmax((logits + Gumbel noise) / temperature)."""

    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature: Any = temperature
        self._init_categorical(probs, logits, validate_args)

    def rsample(self, sample_shape=Size()) -> Tensor:
        lg: Any = self.logits
        u = _clamp_probs(rand(self._extended_shape(sample_shape), dtype=lg.dtype, device=lg.device))
        scores = (lg - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value) -> Tensor:
        k = self._categorical._num_events
        lg: Any = self.logits
        t: Any = self.temperature if isinstance(self.temperature, Tensor) else lg[..., 0] * 0 + self.temperature
        log_scale = lgamma(t * 0 + k) + (k - 1) * t.log()
        score = lg - self._value(value) * t  # t broadcast against value's trailing axis, as torch's
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedBernoulli(_Relaxed):
    """RelaxedBernoulli(temperature, probs | logits): sigmoid of a LogitRelaxedBernoulli draw, in (0, 1)."""

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)


class RelaxedOneHotCategorical(_Relaxed):
    """RelaxedOneHotCategorical(temperature, probs | logits): a point of the simplex, the Gumbel-softmax
    of the logits; low temperatures come close to one-hot draws."""

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """rsample: the one-hot draw in the forward pass, d/dprobs = identity in the backward pass."""

    has_rsample = True

    def rsample(self, sample_shape=Size()) -> Tensor:
        drawn: Any = self.sample(sample_shape)
        p: Any = self.probs
        return drawn + (p - p.detach())
