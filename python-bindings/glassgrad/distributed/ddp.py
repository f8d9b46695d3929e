"""DistributedDataParallel with PyTorch's semantics (torch.nn.parallel.DistributedDataParallel):
parameters and buffers broadcast from rank 0 when it is built, parameter gradients averaged over
the ranks during backward, no_sync() for gradient accumulation.

How: forward marks the wrapper as expecting a backward; the next loss.backward() builds the
backward graph with the model's parameters in gradient buckets (about bucket_cap_mb each, in the
order their gradients become ready), each bucket's all-reduce placed right after the gradient
rule that completes it and waited for only at the end of backward (autodiff gradient_buckets.h),
so communication overlaps the rest of backward. The buckets are ordinary buffers of the step's
plan: memory_report lists them as ddp.bucket<k>, and memory budgets account for them."""
from __future__ import annotations

import contextlib
from typing import Iterator

from .. import _C, _tensor
from ..nn.module import Module
from . import _group
from ._ops import broadcast_


class DistributedDataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, broadcast_buffers: bool = True,
                 bucket_cap_mb: float = 25.0, find_unused_parameters: bool = False, **unused):
        super().__init__()
        g = _group._require()
        if bucket_cap_mb <= 0:
            raise _C.InvalidArgumentError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self.bucket_cap_bytes = max(1, int(bucket_cap_mb * (1 << 20)))
        self.broadcast_buffers = broadcast_buffers
        self._require_sync = True
        self._world_size = g.world_size
        self._sync_from_rank0(self.module.parameters())
        self._sync_from_rank0(b for _, b in self.module.named_buffers())

    @staticmethod
    def _sync_from_rank0(tensors) -> None:
        # Rank 0's values everywhere, so every replica starts identical (PyTorch does the same).
        for t in tensors:
            if t is None:
                continue
            broadcast_(t, 0)

    def forward(self, *args, **kwargs):
        if self._require_sync and _C.grad_enabled() and self.training:
            _tensor._pending_gradient_sync.append(self)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward passes inside accumulate gradients locally; the first backward after it
        all-reduces the sum (PyTorch's gradient accumulation)."""
        old, self._require_sync = self._require_sync, False
        try:
            yield
        finally:
            self._require_sync = old

    def _gradient_sync_args(self):
        params = [p for p in self.module.parameters() if p.requires_grad]
        return params, _group.group_id(), self._world_size, self.bucket_cap_bytes
