"""SyncBatchNorm (torch.nn.SyncBatchNorm): batch statistics over the global batch, i.e. every
rank's (N, *) positions together, instead of each rank's own.

As PyTorch's, it is BatchNorm wherever nothing is synchronized: in eval mode, and in training
when no process group is initialized or the group has one rank (then any (N, C, *) input of 2
or more axes is normalized as BatchNorm1d/2d/3d would). Input of fewer than 2 axes, or with 0
channels, is PyTorch's ValueError.

With several ranks it is built from primitives around two all-reduces of per-channel sums,
two-pass like BatchNorm's kernels (no E[x^2] - mean^2 cancellation): mean = sum(x) / M, then
var = sum((x - mean)^2) / M (biased, as BatchNorm normalizes with), M = world_size * the local
count (every rank must feed the same batch shape, as with a DistributedSampler and drop_last).
The backward is exact by construction: AllReduce is its own adjoint (ops/collective.cpp), so the
gradients of both sums are summed over the ranks as they must be. Unlike PyTorch's (GPU input
only), CPU processes synchronize too (docs/distributed.md). Running statistics are BatchNorm's."""
from __future__ import annotations

import math
from typing import Optional

from .. import _C
from .._batchnorm import update_running_stats, values_per_channel
from .._tensor import Tensor, _op
from .batchnorm import _BatchNorm
from .layers import _check_tensor
from .module import Module, layer_name


class SyncBatchNorm(_BatchNorm):
    _INPUT = "(N, C, *)"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        # Kept for PyTorch's attribute; glassgrad.distributed has one group, the world
        # (docs/distributed.md), so statistics are always reduced over every rank.
        self.process_group = process_group

    def _check(self, x) -> None:
        _check_tensor(self, x)
        if x.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {x.ndim}D input)\n  {layer_name(self)}: input "
                             f"{list(x.shape)}; fix: give it a batch and a channel axis, x.reshape(1, "
                             f"{self.num_features}, -1)")
        if x.shape[1] == 0:
            raise ValueError(f"SyncBatchNorm number of input channels should be non-zero\n  {layer_name(self)}: "
                             f"input {list(x.shape)}; fix: feed (N, {self.num_features}, *) input")

    def forward(self, input: Tensor) -> Tensor:
        from ..distributed import _group  # here: glassgrad.distributed imports glassgrad.nn

        if not (self.training and _group.is_initialized() and _group.get_world_size() > 1):
            self._check(input)
            if input.ndim > 5:  # the BatchNorm op takes 2 to 5 axes; (N, C, L) is the same statistics
                return super().forward(input.reshape(input.shape[0], input.shape[1], -1)).reshape(tuple(input.shape))
            return super().forward(input)
        return self._synchronized(input)

    def _synchronized(self, x: Tensor) -> Tensor:
        from ..distributed import _group
        from ..distributed._ops import all_reduce

        self._check(x)
        # Composed from primitives: no BatchNorm shape rule sees the input, so the layer asks the
        # engine's check of the rules for its channel count (batchnorm_checks.h).
        _C.check_batchnorm_channels(layer_name(self), x._h, self.num_features)
        shape = tuple(x.shape)
        c = shape[1]
        x4 = x if len(shape) == 4 else x.reshape(shape[0], c, math.prod(shape[2:]), 1)  # a view: no copy
        count = values_per_channel(shape) * _group.get_world_size()
        mean = all_reduce(x4.sum((0, 2, 3)), "sum") * (1.0 / count)
        centered = x4 - mean.reshape(1, c, 1, 1)
        var = all_reduce((centered * centered).sum((0, 2, 3)), "sum") * (1.0 / count)
        y = centered / (var + self.eps).sqrt().reshape(1, c, 1, 1)
        if self.weight is not None:
            y = y * self.weight.reshape(1, c, 1, 1)
        if self.bias is not None:
            y = y + self.bias.reshape(1, c, 1, 1)
        if self.track_running_stats:
            nbt = self.num_batches_tracked
            nbt._h.reset(_op("AddScalarInPlace", [nbt], {"value": 1.0})._h)  # one launch, in place
            factor = 1.0 / nbt.astype(x.dtype) if self.momentum is None else self.momentum
            update_running_stats(self.running_mean, self.running_var, mean.detach(), var.detach(), count, factor)
        return y if len(shape) == 4 else y.reshape(shape)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """Every BatchNorm*d in module (recursively, module itself included) replaced by a
        SyncBatchNorm with the same Parameter objects (an optimizer built before still updates
        them), running statistics, num_batches_tracked and training flag (PyTorch's); returns the
        module, or the new layer when module itself is a BatchNorm."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                if module.bias is not None:
                    out.bias = module.bias
            if module.track_running_stats:
                for name in ("running_mean", "running_var", "num_batches_tracked"):
                    out.register_buffer(name, getattr(module, name))
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in list(module.named_children()):
            new = cls.convert_sync_batchnorm(child, process_group)
            if new is not child:  # in place in the table, so a Sequential keeps its order
                out._modules[name] = new
        return out


def convert_sync_batchnorm(module: Module, process_group=None) -> Module:
    """SyncBatchNorm.convert_sync_batchnorm(module, process_group)."""
    return SyncBatchNorm.convert_sync_batchnorm(module, process_group)
