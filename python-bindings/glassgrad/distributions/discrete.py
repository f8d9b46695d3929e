"""Categorical, OneHotCategorical and Bernoulli: parameterized by probs or logits (one of them),
sampled without gradient; log_prob and entropy are differentiable in the parameters."""
from __future__ import annotations

from .._factories import multinomial, rand
from .._runtime import no_grad
from .._size import Size
from .._tensor import Tensor
from .._type_info import finfo
from .distribution import Distribution, broadcast_all
from .exp_family import ExponentialFamily


def _one_of(probs, logits, who: str):
    if (probs is None) == (logits is None):
        raise ValueError(f"{who}: either `probs` or `logits` must be specified, but not both.\n"
                         f"  fix: {who}(probs=p) or {who}(logits=l)")


class Categorical(Distribution):
    """Categorical(probs=p | logits=l) over the last axis's K categories: probs are normalized to
    sum to 1, logits to log-probabilities (logits - logsumexp)."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits, type(self).__name__)
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        if probs is not None:
            (p,) = broadcast_all(probs)
            if p.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = p / p.sum(-1, keepdim=True)  # checked against the simplex by Distribution.__init__
            self.logits = self.probs.clamp(min=finfo(self.probs.dtype).tiny).log()
        else:
            (lg,) = broadcast_all(logits)
            if lg.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = lg - lg.logsumexp(-1, keepdim=True)
            self.probs = self.logits.exp()
        self._num_events = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        return self.probs.shape

    @property
    def mean(self) -> Tensor:
        from .._factories import full
        return full(tuple(self.batch_shape), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape=Size()) -> Tensor:
        shape = Size((sample_shape,)) if isinstance(sample_shape, int) else Size(tuple(sample_shape))
        n = 1
        for s in shape:
            n *= int(s)
        with no_grad():
            rows = self.probs.detach().reshape(-1, self._num_events)
            drawn = multinomial(rows, max(n, 1), replacement=True)  # [batch, n]
            drawn = drawn[:, :n].t().contiguous()
            return drawn.reshape(*shape, *self.batch_shape)

    def log_prob(self, value) -> Tensor:
        from .._shapes import broadcast_tensors
        v = self._value(value).long()
        v, lp = broadcast_tensors(v.unsqueeze(-1), self.logits)
        return lp.gather(-1, v[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from .._factories import arange
        values = arange(self._num_events, device=self.probs.device).reshape(-1, *([1] * len(self.batch_shape)))
        return values.expand(-1, *self.batch_shape) if expand else values


class OverCategorical(Distribution):
    """A distribution whose parameters are a Categorical's (self._categorical): its probs and
    logits, the categories on the last axis as the event (OneHotCategorical, Multinomial, the
    relaxed categorical)."""

    _categorical: Categorical

    def _init_categorical(self, probs, logits, validate_args) -> None:
        self._categorical = Categorical(probs, logits, validate_args)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits


class OneHotCategorical(OverCategorical):
    """OneHotCategorical(probs | logits): Categorical's draws as one-hot vectors (event shape [K])."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_categorical(probs, logits, validate_args)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        from ..functional import one_hot
        return one_hot(self.probs.argmax(-1), self._categorical._num_events).astype(self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        from ..functional import one_hot
        k = self._categorical._num_events
        return one_hot(self._categorical.sample(sample_shape), k).astype(self.probs.dtype)

    def log_prob(self, value) -> Tensor:
        return self._categorical.log_prob(self._value(value).argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs=p | logits=l): 1 with probability p (p = sigmoid(l))."""

    has_enumerate_support = True
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        p = self.probs
        return (p.log() - (-p).log1p(),)

    def _log_normalizer(self, x):
        return x.exp().log1p()

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits, type(self).__name__)
        self._lazy_params = ("logits",) if probs is not None else ("probs",)  # derived: validation skips it
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            eps = finfo(self.probs.dtype).eps
            p = self.probs.clamp(eps, 1 - eps)
            self.logits = p.log() - (-p).log1p()
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = self.logits.sigmoid()
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        return self.probs.shape

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where probs > 0.5, 0 where below, NaN at exactly 0.5 (no single mode), as PyTorch's."""
        return (self.probs >= 0.5).astype(self.probs.dtype).masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        with no_grad():
            p = self.probs.detach().expand(*self._extended_shape(sample_shape))
            u = rand(p.shape, dtype=p.dtype, device=p.device)
            return (u < p).astype(p.dtype)

    def log_prob(self, value) -> Tensor:
        from .._losses import binary_cross_entropy_with_logits
        from .._shapes import broadcast_tensors
        lg, v = broadcast_tensors(self.logits, self._value(value).astype(self.logits.dtype))
        return -binary_cross_entropy_with_logits(lg, v, reduction="none")

    def entropy(self) -> Tensor:
        from .._losses import binary_cross_entropy_with_logits
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from .._tensor import tensor
        values = tensor([0.0, 1.0], dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(-1, *([1] * len(self.batch_shape)))
        return values.expand(-1, *self.batch_shape) if expand else values


