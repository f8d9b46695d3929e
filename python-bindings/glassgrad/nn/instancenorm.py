"""InstanceNorm1d ((N, C, L) or unbatched (C, L)) and InstanceNorm2d ((N, C, H, W) or (C, H, W)),
with PyTorch's arguments, defaults and semantics (torch.nn.InstanceNorm1d / 2d):

- affine=False by default; with affine, weight (ones) and bias (zeros; none with bias=False).
- track_running_stats=False by default: the statistics of each sample are used in eval mode too.
  With it, buffers running_mean, running_var and num_batches_tracked (which InstanceNorm never
  advances, as PyTorch's), updated in training (F.instance_norm's rule) and used in eval mode.
- momentum=None counts as 0 (PyTorch's InstanceNorm has no cumulative average).
- An input whose channels differ from num_features is refused with affine and only warned about
  without (num_features is then unused, as PyTorch says).
"""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from .. import _C, _args, _trace
from .._instancenorm import instance_norm
from .._tensor import Tensor
from .batchnorm import _BatchNorm, register_running_stats
from .layers import _check_tensor, as_bfloat16, optional_parameter, parameter_dtype
from .module import Module, Parameter, layer_name


class _InstanceNorm(Module):
    _SPATIAL = 1  # spatial axes of the input
    _version = 2  # PyTorch's _NormBase state_dict version (num_batches_tracked is part of it)

    # PyTorch's _NormBase methods, which BatchNorm and InstanceNorm share: running statistics to
    # zeros, ones and 0 (with track_running_stats), weight to ones and bias to zeros (with affine)
    reset_running_stats = _BatchNorm.reset_running_stats
    reset_parameters = _BatchNorm.reset_parameters

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        name = _args.call(type(self).__name__, num_features)
        c = _args.integer(num_features, "num_features", name)
        if momentum is not None:
            momentum = _args.shown(momentum, _args.real(momentum, "momentum", name, minimum=0.0, maximum=1.0,
                                                        fix="momentum=0.1"))
        self.num_features, self.momentum = c, momentum
        self.eps = _args.shown(eps, _args.real(eps, "eps", name, minimum=0.0, fix="eps=1e-5"))
        # as given, as PyTorch keeps them (the repr shows affine=1), read by their truth value
        self.affine, self.track_running_stats = affine, track_running_stats
        with_bias = _args.switch(bias)
        # 0 allowed, as PyTorch's (empty tensors); any size without tensors (PyTorch's: unused then)
        _args.weight_sizes(name, (c,) if self.affine or self.track_running_stats else (), num_features=c)
        dt = parameter_dtype(dtype, name)
        optional_parameter(self, "weight", Parameter(np.ones(c, dt), device=device) if self.affine else None)
        optional_parameter(self, "bias", Parameter(np.zeros(c, dt), device=device) if self.affine and with_bias else None)
        register_running_stats(self, c, dt, device)
        as_bfloat16(self, dtype)

    def forward(self, input: Tensor) -> Tensor:
        _check_tensor(self, input)
        s = self._SPATIAL
        if input.ndim not in (s + 1, s + 2):
            raise _C.ShapeError(f"{layer_name(self)}: expected {s + 1}D or {s + 2}D input (got {input.ndim}D input "
                                f"{list(input.shape)})\n  fix: {self._INPUT} input")
        feature_dim = input.ndim - (s + 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise _C.ShapeError(f"{layer_name(self)}: expected input's size at dim={feature_dim} to match "
                                    f"num_features ({self.num_features}), but got: {input.shape[feature_dim]} (input "
                                    f"{list(input.shape)})\n  fix: build the layer as {type(self).__name__}("
                                    f"{input.shape[feature_dim]}, affine=True)")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=_trace.user_stacklevel())
        unbatched = input.ndim == s + 1
        if unbatched:
            input = input.unsqueeze(0)
        y = instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                          self.training or not self.track_running_stats,
                          self.momentum if self.momentum is not None else 0.0, self.eps)
        return y.squeeze(0) if unbatched else y

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) input: each sample's channel over L."""
    _SPATIAL = 1
    _INPUT = "(N, C, L) or (C, L)"


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) input: each sample's channel over H, W."""
    _SPATIAL = 2
    _INPUT = "(N, C, H, W) or (C, H, W)"


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) input: each sample's channel over D, H, W."""
    _SPATIAL = 3
    _INPUT = "(N, C, D, H, W) or (C, D, H, W)"
