"""DistributedSampler: the one implementation is glassgrad.utils.data.DistributedSampler."""
from ..utils.data.distributed import DistributedSampler  # noqa: F401

__all__ = ["DistributedSampler"]
