"""LogisticNormal(loc, scale): a point of the simplex, the stick-breaking image of
Normal(loc, scale) over the last axis (torch's construction: a TransformedDistribution of an
Independent Normal through StickBreakingTransform, so log_prob values agree); K Normal coordinates
give K + 1 probabilities. rsample carries gradients to loc and scale."""
from __future__ import annotations

from typing import Any

from .continuous import Normal
from .distribution import Distribution
from .transformed import TransformedDistribution
from .transforms import StickBreakingTransform


class LogisticNormal(TransformedDistribution):
    """loc, scale [..., K] (a scalar one becomes [1]); event_shape [K + 1]."""

    def __init__(self, loc, scale, validate_args=None):
        base: Any = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> Distribution:
        new: Any = super().expand(batch_shape)
        new.__class__ = LogisticNormal
        return new

    @property
    def loc(self) -> Any:
        return self.base_dist.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> Any:
        return self.base_dist.base_dist.scale  # type: ignore[attr-defined]
