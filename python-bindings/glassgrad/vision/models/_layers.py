"""Building blocks torchvision's mobile networks share (torchvision.ops.Conv2dNormActivation and
torchvision.models._utils._make_divisible), with torchvision's names so state_dict keys match:
a Conv2dNormActivation is a Sequential whose layers are "0" (conv), "1" (norm), "2" (activation)."""
from __future__ import annotations

from typing import Callable, List, Optional

from ... import nn

__all__ = ["Conv2dNormActivation", "make_divisible"]


def make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    """v rounded to the nearest multiple of divisor (at least min_value, default divisor), moved up
    one multiple if rounding lost more than 10%."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


class Conv2dNormActivation(nn.Sequential):
    """torchvision.ops.Conv2dNormActivation(in_channels, out_channels, kernel_size=3, stride=1,
    padding=None, groups=1, norm_layer=BatchNorm2d, activation_layer=ReLU, dilation=1,
    inplace=True, bias=None): Conv2d (padding (kernel_size - 1) // 2 * dilation by default, a bias
    only without a norm), then the norm and the activation where given."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 1,
                 padding: Optional[int] = None, groups: int = 1,
                 norm_layer: Optional[Callable[..., nn.Module]] = nn.BatchNorm2d,
                 activation_layer: Optional[Callable[..., nn.Module]] = nn.ReLU, dilation: int = 1,
                 inplace: Optional[bool] = True, bias: Optional[bool] = None) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers: List[nn.Module] = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                                             dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer() if inplace is None else activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels
