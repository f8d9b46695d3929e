"""SyncBatchNorm (torch.nn.SyncBatchNorm): batch statistics over the global batch, i.e. every
rank's (N, H, W) positions together, instead of each rank's own.

Built from primitives around two all-reduces of per-channel sums, two-pass like BatchNorm's
kernels (no E[x^2] - mean^2 cancellation): mean = sum(x) / M, then var = sum((x - mean)^2) / M
(biased, as BatchNorm normalizes with), M = world_size * the local count (every rank must feed the same batch shape, as with a DistributedSampler and
drop_last). The backward is exact by construction: AllReduce is its own adjoint
(ops/collective.cpp), so the gradients of both sums are summed over the ranks as they must be.
Eval mode and running statistics are BatchNorm's."""
from __future__ import annotations

import math

from .. import _C
from .._batchnorm import update_running_stats, values_per_channel
from ..nn.batchnorm import _BatchNorm
from ..nn.module import Module, layer_name
from .._tensor import _op
from . import _group
from ._ops import all_reduce


class SyncBatchNorm(_BatchNorm):
    _RANKS = (2, 3, 4)
    _INPUT = "(N, C), (N, C, L) or (N, C, H, W)"

    def forward(self, x):
        if not (self.training and _group.is_initialized() and _group.get_world_size() > 1):
            return super().forward(x)
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
            y = y * self.weight.reshape(1, c, 1, 1) + self.bias.reshape(1, c, 1, 1)
        if self.track_running_stats:
            nbt = self.num_batches_tracked
            nbt._h.reset(_op("AddScalarInPlace", [nbt], {"value": 1.0})._h)  # one launch, in place
            factor = 1.0 / nbt.astype(x.dtype) if self.momentum is None else self.momentum
            update_running_stats(self.running_mean, self.running_var, mean.detach(), var.detach(), count, factor)
        return y if len(shape) == 4 else y.reshape(shape)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        return convert_sync_batchnorm(module)


def convert_sync_batchnorm(module: Module) -> Module:
    """Replaces every BatchNorm1D/2D in module (recursively) by a SyncBatchNorm with the same
    parameters and running statistics; returns the converted module (a new one when module
    itself is a BatchNorm)."""
    if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
        out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats)
        if module.affine:  # the same Parameter objects: an optimizer built before still updates them
            out.weight, out.bias = module.weight, module.bias
        if module.track_running_stats:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                out.register_buffer(name, getattr(module, name))
        out.training = module.training
        return out
    for name, child in list(module.named_children()):
        new = convert_sync_batchnorm(child)
        if new is not child:  # in place in the table, so a Sequential keeps its order
            module._modules[name] = new
    return module

