"""torch.nn.utils.fusion: a Conv or Linear layer followed by a BatchNorm in eval mode folded into
one layer (what inference exports do). With s = bn.weight / sqrt(running_var + eps):

    fused.weight = weight * s   (scaled per output channel: dim 0, or dim 1 for a transposed conv)
    fused.bias   = (bias - running_mean) * s + bn.bias

so fused(x) == bn(layer(x)) for the running statistics. The *_eval functions return a deep copy
of the layer holding the new Parameters; the *_weights functions return the two Parameters."""
from __future__ import annotations

import copy
from typing import Optional, Tuple

from ..._factories import ones_like, zeros_like
from ..._tensor import Tensor
from ..module import Module, Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _eval_only(layer: Module, bn: Module, what: str) -> None:
    if layer.training or bn.training:
        raise AssertionError(f"Fusion only for eval! ({what}: {type(layer).__name__} training={layer.training}, "
                             f"{type(bn).__name__} training={bn.training})\n  fix: call model.eval() first")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError(f"bn.running_mean and bn.running_var must not be None ({what}: {type(bn).__name__} "
                             f"has no running statistics)\n  fix: build it with track_running_stats=True")


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of conv with bn (both in eval mode) folded into its weight and bias."""
    _eval_only(conv, bn, "fuse_conv_bn_eval")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Optional[Tensor], bn_b: Optional[Tensor],
                         transpose: bool = False) -> Tuple[Parameter, Parameter]:
    """The folded (weight, bias) Parameters, in the conv's weight and bias dtypes."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = (bn_rv + bn_eps).rsqrt()
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(b_dtype)
    return Parameter(fused_w.detach(), conv_w.requires_grad), Parameter(fused_b.detach(), conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of linear with bn (both in eval mode; bn over its out_features, or one feature)
    folded into its weight and bias."""
    _eval_only(linear, bn, "fuse_linear_bn_eval")
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor,
                           bn_eps: float, bn_w: Tensor, bn_b: Tensor) -> Tuple[Parameter, Parameter]:
    """The folded (weight, bias) Parameters, in the linear layer's weight and bias dtypes."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(b_dtype)
    return Parameter(fused_w.detach(), linear_w.requires_grad), Parameter(fused_b.detach(), linear_b.requires_grad)
