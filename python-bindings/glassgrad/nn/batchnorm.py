"""BatchNorm1d (input (N, C) or (N, C, L)) and BatchNorm2d (input (N, C, H, W)), with PyTorch's
arguments and semantics (torch.nn.BatchNorm1d / BatchNorm2d):

- affine: learnable weight (ones) and bias (zeros); without it, no parameters.
- track_running_stats: buffers running_mean (zeros), running_var (ones) and num_batches_tracked
  (int64); without it the three buffers are declared as None (kept out of state_dict) and batch
  statistics are used in eval mode too.
- momentum: running = (1 - momentum) * running + momentum * batch statistic (unbiased variance
  for running_var); momentum=None makes it the cumulative average, momentum = 1 / num_batches_tracked.
- state_dict: weight, bias, running_mean, running_var, num_batches_tracked, in that order.

In training each forward records num_batches_tracked += 1 (AddScalarInPlace: one launch, no
copy) and the running-statistics update as
nodes at the end of the step's graph (in place, so the buffers keep their addresses); with a
float momentum both are recorded by one runtime call (_batchnorm.training_forward). The
cumulative average's factor is computed from num_batches_tracked inside the graph: a new factor
every step never recompiles.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _C, _args, _batchnorm, _device
from .._batchnorm import _constant, batch_norm
from .._runtime import no_grad
from .._tensor import Tensor, _op, tensor
from .layers import _check_tensor, as_bfloat16, optional_parameter, parameter_dtype
from .module import Module, Parameter, layer_name


def register_running_stats(layer: Module, c: int, dt: np.dtype, device) -> None:
    """The buffers of a normalization layer with track_running_stats (PyTorch's, in its order):
    running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0). Without it the
    three names are still declared buffers, holding None (PyTorch's register_buffer(name, None)):
    `_buffers` lists them, state_dict() and buffers() leave them out, and a tensor assigned to
    one later becomes that buffer."""
    if not layer.track_running_stats:
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            layer.register_buffer(name, None)
        return
    dev = _device.normalize(device)
    layer.register_buffer("running_mean", tensor(np.zeros(c, dt), device=dev))
    layer.register_buffer("running_var", tensor(np.ones(c, dt), device=dev))
    layer.register_buffer("num_batches_tracked", tensor(np.array(0, np.int64), device=dev))


class _BatchNorm(Module):
    _RANKS = (4,)
    _version = 2  # PyTorch's _NormBase state_dict version (num_batches_tracked is part of it)
    _INPUT = "(N, C, H, W)"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        name = _args.call(type(self).__name__, num_features)
        c = _args.integer(num_features, "num_features", name)
        _args.weight_sizes(name, (c,), num_features=c)  # 0 allowed, as PyTorch's (empty statistics)
        if momentum is not None:
            momentum = _args.shown(momentum, _args.real(
                momentum, "momentum", name, minimum=0.0, maximum=1.0,
                fix="momentum=0.1 (PyTorch's default), or None for a cumulative average"))
        self.num_features, self.eps = c, _args.shown(eps, _args.real(eps, "eps", name, minimum=0.0, fix="eps=1e-5"))
        self.momentum = momentum
        # as given, as PyTorch keeps them (the repr shows affine=1), read by their truth value
        self.affine, self.track_running_stats = affine, track_running_stats
        dt = parameter_dtype(dtype, name)
        with_bias = _args.switch(bias)
        optional_parameter(self, "weight", Parameter(np.ones(c, dt), device=device) if self.affine else None)
        optional_parameter(self, "bias", Parameter(np.zeros(c, dt), device=device) if self.affine and with_bias else None)
        register_running_stats(self, c, dt, device)
        as_bfloat16(self, dtype)

    def _check(self, x) -> None:
        """The layer's own contract, which no shape rule can see: the op normalizes any (N, C, ...)
        input of 2 to 5 axes, and which of those ranks a layer takes is its class's (PyTorch's
        BatchNorm1d/2d refuse the others too). The input's channels against the layer's, its
        dtype and device are checked by the BatchNorm2D* shape rules, worded for the layer
        (NodeMeta.layer; batchnorm_checks.h)."""
        if not isinstance(x, Tensor):
            _check_tensor(self, x)
        if len(x._h.shape) not in self._RANKS:  # x.ndim, without the property's frame
            got = f"{x.ndim}D input {list(x.shape)}"
            fix = ("use BatchNorm1d for (N, C) or (N, C, L) input" if x.ndim in (2, 3)
                   else "use BatchNorm2d for (N, C, H, W) input" if x.ndim == 4
                   else "use BatchNorm3d for (N, C, D, H, W) input" if x.ndim == 5 else "reshape the input")
            raise _C.ShapeError(f"{layer_name(self)}: expected {self._INPUT} input, got {got}\n  fix: {fix}")

    def _affine(self, x: Tensor):
        """weight and bias, or without affine ones and zeros of the layer's num_features (not the
        input's channels), so the shape rule still compares the input with the layer."""
        weight: Optional[Tensor] = self.weight  # (each read once: Module.__getattr__ finds them)
        bias: Optional[Tensor] = self.bias
        if weight is None:
            weight = _constant(1.0, self.num_features, x)
        if bias is None:
            bias = _constant(0.0, self.num_features, x)
        return weight, bias

    def forward(self, input: Tensor) -> Tensor:
        shape = input._h.shape if isinstance(input, Tensor) else ()  # (read once: each read is a call)
        if len(shape) not in self._RANKS:  # _check's cases
            self._check(input)
        momentum = self.momentum
        factor = 0.0 if momentum is None else momentum
        counted = counter = None
        training = self.training
        # (each buffer read once: Module.__getattr__ finds them)
        running_mean, running_var = self.running_mean, self.running_var
        if training and self.track_running_stats:
            # num_batches_tracked += 1 (one launch, in place), taken on only once the forward is
            # recorded: a forward the shape rules refuse leaves the count as it was. A buffer set
            # to None is not counted (PyTorch's), and momentum=None then keeps factor 0.
            tracked_count = self.num_batches_tracked
            if tracked_count is None:
                pass
            elif momentum is None:  # cumulative moving average: 1 / num_batches_tracked, as data
                counted_tensor = _op("AddScalarInPlace", [tracked_count], {"value": 1.0})
                factor = 1.0 / counted_tensor.astype(input.dtype)
                counted = counted_tensor._h
            else:  # counted by training_forward, in the statistics update's runtime call
                counter = tracked_count
        use_batch_stats = training or (running_mean is None and running_var is None)
        tracked = not training or self.track_running_stats
        weight: Optional[Tensor] = self.weight
        bias: Optional[Tensor] = self.bias
        if weight is None or bias is None:
            weight, bias = self._affine(input)
        if use_batch_stats:
            y = _batchnorm.training_forward(input, shape, running_mean if tracked else None,
                                           running_var if tracked else None, weight, bias, factor, self.eps, counter)
        else:
            y = batch_norm(input, running_mean, running_var, weight, bias, False, factor, self.eps)
        if counted is not None:
            tracked_count._h.reset(counted)
        return y

    def reset_running_stats(self) -> None:
        """running_mean to zeros, running_var to ones, num_batches_tracked to 0, in place (PyTorch's;
        nothing without track_running_stats)."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()
            # Stored again (the next training forward updates them in place).
            _C.lazy_realize([self.running_mean._h, self.running_var._h, self.num_batches_tracked._h])

    def reset_parameters(self) -> None:
        """reset_running_stats(), and with affine weight to ones and bias to zeros (PyTorch's)."""
        self.reset_running_stats()
        with no_grad():
            if self.weight is not None:
                self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def _load_missing(self, prefix: str, missing: list, version: Optional[int] = None) -> list:
        """Checkpoints saved before num_batches_tracked existed (no version in the state_dict's
        _metadata, or one below 2) load without it, keeping the layer's count (as PyTorch does for
        its own old checkpoints); a version-2 state_dict must hold it."""
        if version is not None and version >= 2:
            return missing
        key = prefix + "num_batches_tracked"
        return [k for k in missing if k != key]

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) input (statistics over N, or N and L)."""
    _RANKS = (2, 3)
    _INPUT = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) input (statistics over N, H and W)."""
    _RANKS = (4,)
    _INPUT = "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """Batch normalization over (N, C, D, H, W) input (statistics over N, D, H and W)."""
    _RANKS = (5,)
    _INPUT = "(N, C, D, H, W)"


# The seed's spellings of PyTorch's classes (the same classes).
BatchNorm1D = BatchNorm1d
BatchNorm2D = BatchNorm2d
