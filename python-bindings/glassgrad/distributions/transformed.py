"""TransformedDistribution(base, transforms): draws are base draws passed through the transforms;
log_prob(y) walks the transforms backwards, subtracting each log|det J| (torch's algorithm, so
values agree with torch's for the same transforms). cdf and icdf need monotone transforms."""
from __future__ import annotations

from typing import Any

from .._size import Size
from .._tensor import Tensor
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform, _sum_rightmost


class TransformedDistribution(Distribution):
    """TransformedDistribution(base_distribution, transforms): y = t_n(...t_1(x)), x ~ base."""

    def __init__(self, base_distribution: Distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, (list, tuple)) and all(isinstance(t, Transform) for t in transforms)):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        self.transforms = list(transforms)
        chain = ComposeTransform(self.transforms)
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs at least {chain.domain.event_dim} dimensions, but got "
                             f"{len(base_shape)}")
        forward_shape = tuple(chain.forward_shape(base_shape))
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:  # the transforms join batch axes to the event
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event_dim - chain.domain.event_dim, 0)
        cut = len(forward_shape) - event_dim
        super().__init__(Size(forward_shape[:cut]), Size(forward_shape[cut:]), validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def expand(self, batch_shape, _instance=None) -> Distribution:
        new_batch = tuple(batch_shape)
        base_batch = new_batch + tuple(self.base_dist.batch_shape)[len(self._batch_shape):]
        return TransformedDistribution(self.base_dist.expand(base_batch), self.transforms, self._validate_args)

    def sample(self, sample_shape=Size()) -> Tensor:
        from .._runtime import no_grad
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=Size()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value) -> Tensor:
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = self._value(value)
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """F of the base at the pulled-back value, or 1 - F where the transforms reverse order."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value) -> Tensor:
        v = self._value(value)
        for t in reversed(self.transforms):
            v = t.inv(v)
        return self._monotonize_cdf(self.base_dist.cdf(v))

    def icdf(self, value) -> Tensor:
        v = self.base_dist.icdf(self._monotonize_cdf(self._value(value)))
        for t in self.transforms:
            v = t(v)
        return v
