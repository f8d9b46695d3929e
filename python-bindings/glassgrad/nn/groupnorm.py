"""Group normalization (Wu and He, 2018) with PyTorch's arguments and semantics
(torch.nn.GroupNorm, torch.nn.functional.group_norm):

    y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c]

for input (N, C, *), with mean and the biased variance of each sample's group of C / num_groups
consecutive channels and the axes after C. Unlike BatchNorm the statistics never mix samples,
so there are no running statistics and training and evaluation compute the same thing.

- group_norm(input, num_groups, weight=None, bias=None, eps=1e-05): weight and bias are [C]
  (either may be None: no scale, no shift).
- GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *,
  bias=True): weight (ones) and bias (zeros) of num_channels when affine (bias=False: no bias),
  else none.

One op, GroupNorm, with CPU and CUDA kernels (its gradient is GroupNormBackward); its shape rule
checks the input against num_groups, weight and bias, worded for the layer that recorded it.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _args, _autocast
from .._batchnorm import _constant
from .._tensor import Tensor, _op_multi
from .._torch_operands import node_attrs
from . import init
from .layers import _check_tensor, as_bfloat16, optional_parameter, parameter_dtype
from .module import Module, Parameter


@_autocast.op("group_norm")
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-05) -> Tensor:
    """PyTorch's torch.nn.functional.group_norm: the same argument order and defaults; returns
    the normalized tensor."""
    where = _args.call("group_norm", num_groups)
    if not isinstance(input, Tensor):
        _args.fail(where, "input", "a glassgrad.Tensor", input, "x = glassgrad.tensor(x)", type_error=True)
    num_groups = _args.integer(num_groups, "num_groups", where, minimum=1)
    eps = _args.real(eps, "eps", where, minimum=0.0, fix="eps=1e-05")
    if weight is None and bias is not None:  # a shift without a scale: scale by ones
        weight = _constant(1.0, input.shape[1] if input.ndim >= 2 else 0, input)
    inputs = [input] + [t for t in (weight, bias) if t is not None]
    # PyTorch's node: NativeGroupNormBackward0 of (input, weight, bias)
    named = node_attrs("NativeGroupNormBackward0", inputs, input, weight, bias)
    y, _mean, _rstd = _op_multi("GroupNorm", inputs, {"num_groups": num_groups, "eps": eps, **named})
    return y


class GroupNorm(Module):
    """Group normalization over (N, C, *) input (PyTorch's nn.GroupNorm): statistics per sample
    over each group of num_channels / num_groups channels and the axes after C."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-05, affine: bool = True,
                 device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        where = _args.call("GroupNorm", num_groups, num_channels)
        self.num_groups = _args.integer(num_groups, "num_groups", where, minimum=1)
        self.num_channels = _args.integer(num_channels, "num_channels", where)  # 0 allowed, as PyTorch's
        if self.num_channels % self.num_groups != 0:
            divisor = max(g for g in range(1, self.num_groups + 1) if self.num_channels % g == 0)
            with _args.pytorch_says(f"num_channels ({self.num_channels}) must be divisible by num_groups "
                                    f"({self.num_groups})"):
                _args.fail(where, "num_channels", f"divisible by num_groups ({self.num_groups})", num_channels,
                           f"GroupNorm({divisor}, {self.num_channels}): num_groups must divide num_channels")
        _args.weight_sizes(where, (self.num_channels,), num_channels=self.num_channels)
        self.eps = _args.shown(eps, _args.real(eps, "eps", where, minimum=0.0, fix="eps=1e-05"))
        self.affine = affine  # as given, as PyTorch keeps it (the repr shows affine=1), read by its truth
        bias = _args.switch(bias)
        dt = parameter_dtype(dtype, where)
        c = self.num_channels
        optional_parameter(self, "weight", Parameter(np.ones(c, dt), device=device) if self.affine else None)
        optional_parameter(self, "bias", Parameter(np.zeros(c, dt), device=device) if self.affine and bias else None)
        as_bfloat16(self, dtype)

    def reset_parameters(self) -> None:
        """weight 1, bias 0 (PyTorch's)."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        _check_tensor(self, input)
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")
