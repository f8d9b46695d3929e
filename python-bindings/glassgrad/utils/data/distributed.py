"""DistributedSampler with torch.utils.data.distributed.DistributedSampler's semantics (the one
implementation; glassgrad.distributed exports it too): each rank gets a disjoint 1/num_replicas
share of the indices, reshuffled every epoch by set_epoch(epoch) with a seed every rank agrees on
(seed + epoch); padded by repeating indices from the start so every rank has the same count
(drop_last=False), or trimmed (drop_last=True)."""
from __future__ import annotations

import math
from typing import Iterator, Optional

import numpy as np

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class _NoProcessGroup(ValueError, RuntimeError):
    """No num_replicas or rank and no process group to ask (PyTorch raises ValueError here:
    the default process group has not been initialized)."""


class DistributedSampler(Sampler[int]):
    def __init__(self, dataset, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ...distributed import _group
            if not _group.is_initialized():
                raise _NoProcessGroup("DistributedSampler: no process group, so the number of ranks and this rank are "
                                   "unknown\n  fix: glassgrad.distributed.init_process_group() first, or pass "
                                   "num_replicas= and rank=")
            num_replicas = _group.get_world_size() if num_replicas is None else num_replicas
            rank = _group.get_rank() if rank is None else rank
        num_replicas, rank = int(num_replicas), int(rank)
        if num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be at least 1, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = int(seed)

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            indices = np.arange(n)
        if self.total_size > n:
            indices = np.resize(indices, self.total_size)  # repeats from the start: every rank gets num_samples
        indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas].tolist())

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next pass shuffles for: call it before each epoch so the order changes
        (every rank must pass the same number)."""
        self.epoch = int(epoch)
