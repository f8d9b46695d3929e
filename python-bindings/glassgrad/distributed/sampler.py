"""DistributedSampler: the one implementation is glassgrad.utils.data.DistributedSampler."""
from ..utils.data.distributed import DistributedSampler

__all__ = ["DistributedSampler"]
