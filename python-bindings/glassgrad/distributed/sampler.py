"""DistributedSampler (torch.utils.data.distributed.DistributedSampler's semantics): each rank
gets a disjoint 1/world_size share of the indices, reshuffled every epoch by set_epoch(epoch)
with a seed every rank agrees on; padded by repeating indices so every rank has the same count
(drop_last=False), or trimmed (drop_last=True)."""
from __future__ import annotations

import math
from typing import Iterator, Optional

import numpy as np

from . import _group


class DistributedSampler:
    def __init__(self, dataset, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False):
        self.num_replicas = _group.get_world_size() if num_replicas is None else int(num_replicas)
        self.rank = _group.get_rank() if rank is None else int(rank)
        if not 0 <= self.rank < self.num_replicas:
            raise ValueError(f"DistributedSampler: rank {self.rank} is not in [0, {self.num_replicas})")
        self.n = len(dataset)
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, int(seed), drop_last, 0
        if drop_last and self.n % self.num_replicas:
            self.num_samples = self.n // self.num_replicas
        else:
            self.num_samples = math.ceil(self.n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def set_epoch(self, epoch: int) -> None:
        self.epoch = int(epoch)

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(self.n)
        else:
            indices = np.arange(self.n)
        if self.total_size > self.n:
            indices = np.resize(indices, self.total_size)  # wraps around: repeats the first ones
        indices = indices[:self.total_size]
        return iter(int(i) for i in indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples
