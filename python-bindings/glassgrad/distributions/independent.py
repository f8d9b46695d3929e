"""Independent(base, n): the base's rightmost n batch axes become event axes (log_prob and
entropy summed over them), e.g. a diagonal Gaussian as one multivariate event."""
from __future__ import annotations

from .._size import Size
from .._tensor import Tensor
from .distribution import Distribution


class Independent(Distribution):
    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args=None):
        n = int(reinterpreted_batch_ndims)
        batch = tuple(base_distribution.batch_shape)
        if not 0 <= n <= len(batch):
            raise ValueError(f"Independent: reinterpreted_batch_ndims must be in [0, {len(batch)}] for a base "
                             f"with batch_shape {list(batch)}, got {n}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        cut = len(batch) - n
        super().__init__(Size(batch[:cut]), Size(batch[cut:] + tuple(base_distribution.event_shape)), validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    def sample(self, sample_shape=Size()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def _sum_rightmost(self, t: Tensor) -> Tensor:
        n = self.reinterpreted_batch_ndims
        return t.sum(tuple(range(-n, 0))) if n else t

    def log_prob(self, value) -> Tensor:
        return self._sum_rightmost(self.base_dist.log_prob(value))

    def entropy(self) -> Tensor:
        return self._sum_rightmost(self.base_dist.entropy())
