"""torchvision.ops.misc: FrozenBatchNorm2d here; Conv2dNormActivation, Conv3dNormActivation, MLP,
Permute and SqueezeExcitation are the layers glassgrad.vision.models builds its networks of."""
from __future__ import annotations

from ... import _factories, nn
from ..._tensor import Tensor
from ..models._layers import MLP, Conv2dNormActivation, Conv3dNormActivation, Permute, SqueezeExcitation

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "FrozenBatchNorm2d", "MLP", "Permute", "SqueezeExcitation"]


def _drop_batches_tracked(module, state_dict, prefix, *args) -> None:
    """A BatchNorm2d's state_dict loads into a FrozenBatchNorm2d: its counter is not a buffer here."""
    state_dict.pop(prefix + "num_batches_tracked", None)


class FrozenBatchNorm2d(nn.Module):
    """torchvision.ops.FrozenBatchNorm2d(num_features, eps=1e-5): batch norm of [N, C, H, W] with
    fixed statistics and affine parameters, all four buffers (weight, bias, running_mean,
    running_var), not parameters: x * w / sqrt(var + eps) + (b - mean * w / sqrt(var + eps))."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", _factories.ones(num_features))
        self.register_buffer("bias", _factories.zeros(num_features))
        self.register_buffer("running_mean", _factories.zeros(num_features))
        self.register_buffer("running_var", _factories.ones(num_features))
        self.register_load_state_dict_pre_hook(_drop_batches_tracked)

    def forward(self, x: Tensor) -> Tensor:
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        scale = w * (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        return x * scale + (b - self.running_mean.reshape(1, -1, 1, 1) * scale)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.weight.shape[0]}, eps={self.eps})"
