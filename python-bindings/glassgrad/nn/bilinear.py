"""nn.Bilinear and nn.ChannelShuffle: glassgrad/_bilinear.py's functions as layers, with
PyTorch's arguments, initialization (U(-1/sqrt(in1), 1/sqrt(in1)) for weight and bias) and repr."""
from __future__ import annotations

import math

from .. import _args
from .._bilinear import bilinear, channel_shuffle
from .._random import generator
from .layers import _parameter, as_bfloat16, optional_parameter, parameter_dtype
from .module import Module


class Bilinear(Module):
    """y = x1^T A x2 + b: weight [out_features, in1_features, in2_features], bias [out_features]."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        where = _args.call("Bilinear", in1_features, in2_features, out_features)
        self.in1_features = _args.integer_as_pytorch(
            in1_features, "in1_features", where, 1, f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in2_features = _args.integer(in2_features, "in2_features", where)  # 0 allowed, as PyTorch's
        self.out_features = _args.integer(out_features, "out_features", where)
        bound = 1.0 / math.sqrt(self.in1_features)
        dt = parameter_dtype(dtype, where)
        shape = (self.out_features, self.in1_features, self.in2_features)
        _args.weight_sizes(where, shape, in2_features=self.in2_features, out_features=self.out_features)
        self.weight = _parameter(generator().uniform(-bound, bound, shape), device, dt)
        optional_parameter(self, "bias", _parameter(generator().uniform(-bound, bound, self.out_features), device, dt)
                           if _args.switch(bias) else None)
        as_bfloat16(self, dtype)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def reset_parameters(self) -> None:
        """weight and bias drawn again from U(-1/sqrt(in1_features), 1/sqrt(in1_features)), in
        place (PyTorch's reset_parameters: the same Parameter objects)."""
        from .init import _fill
        bound = 1.0 / math.sqrt(self.weight.shape[1])
        _fill(self.weight, generator().uniform(-bound, bound, tuple(self.weight.shape)))
        if self.bias is not None:
            _fill(self.bias, generator().uniform(-bound, bound, tuple(self.bias.shape)))

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class ChannelShuffle(Module):
    """F.channel_shuffle(input, groups) as a layer."""

    def __init__(self, groups: int):
        super().__init__()
        self.groups = _args.integer(groups, "groups", "ChannelShuffle", minimum=1, fix="ChannelShuffle(2)")

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
