"""Multinomial(total_count=1, probs= | logits=): counts of total_count Categorical draws over the
last axis's K categories (event_shape [K]). log_prob goes through lgamma, so it carries gradients
to the parameters; draws do not."""
from __future__ import annotations

from typing import Any

from .._runtime import no_grad
from .._size import Size
from .._special import lgamma
from .._tensor import Tensor, tensor
from .discrete import OverCategorical


class Multinomial(OverCategorical):
    """Multinomial(total_count, probs | logits): P(x) = n! / prod x_i! prod p_i^x_i."""

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._init_categorical(probs, logits, validate_args)

    @property
    def mean(self) -> Tensor:
        p: Any = self.probs  # Any: Distribution._value says why
        return p * self.total_count

    @property
    def variance(self) -> Tensor:
        p: Any = self.probs
        return self.total_count * p * (1 - p)

    def sample(self, sample_shape=Size()) -> Tensor:
        """total_count Categorical draws per row, counted per category."""
        from ..functional import one_hot
        shape = (sample_shape,) if isinstance(sample_shape, int) else tuple(sample_shape)
        with no_grad():
            k = self._categorical._num_events
            draws: Any = self._categorical.sample((self.total_count,) + shape)  # (n,) + shape + B
            counts: Any = one_hot(draws, k)
            return counts.sum(0).to(self.probs.dtype)

    def entropy(self) -> Tensor:
        """n H(categorical) - log n! + sum_i E[log x_i!], each x_i ~ Binomial(n, p_i) summed over
        its support 1..n (torch's formula)."""
        from .counts import Binomial
        p: Any = self.probs
        n: Any = tensor(float(self.total_count), dtype=p.dtype, device=p.device)  # torch's is int64: float32 lgamma
        cat_entropy: Any = self._categorical.entropy()
        log_n_factorial: Any = lgamma(n + 1)
        binomial = Binomial(n, probs=p, validate_args=False)
        support: Any = binomial.enumerate_support(expand=False)[1:]
        weights: Any = lgamma(support + 1)
        log_probs: Any = binomial.log_prob(support)
        term2 = (log_probs.exp() * weights).sum((0, -1))
        return n * cat_entropy - log_n_factorial + term2

    def log_prob(self, value) -> Tensor:
        from .._shapes import broadcast_tensors
        from ..functional import where
        v: Any = self._value(value).to(self.logits.dtype)
        logits, v = broadcast_tensors(self.logits, v)
        logits = where((v == 0) & (logits == float("-inf")), 0.0, logits)  # 0 * log 0 counts as 0
        log_factorial_n: Any = lgamma(v.sum(-1) + 1)
        log_factorial_xs: Any = lgamma(v + 1)
        return log_factorial_n - log_factorial_xs.sum(-1) + (logits * v).sum(-1)
