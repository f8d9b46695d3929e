"""Building blocks torchvision's mobile networks share (torchvision.ops.Conv2dNormActivation, MLP,
Permute, SqueezeExcitation, StochasticDepth and torchvision.models._utils._make_divisible), with
torchvision's names so state_dict keys match: a Conv2dNormActivation is a Sequential whose layers
are "0" (conv), "1" (norm), "2" (activation)."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ... import _C, _factories, nn
from ..._tensor import Tensor

__all__ = ["Conv2dNormActivation", "MLP", "Permute", "SqueezeExcitation", "StochasticDepth", "init_mobile_weights", "make_divisible"]


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


class MLP(nn.Sequential):
    """torchvision.ops.MLP(in_channels, hidden_channels, norm_layer=None, activation_layer=ReLU,
    inplace=None, bias=True, dropout=0.0): for each hidden width but the last, Linear, the norm
    (where given), the activation and Dropout; then Linear to the last width and Dropout.
    inplace=None keeps the activation's and Dropout's own default."""

    def __init__(self, in_channels: int, hidden_channels: List[int],
                 norm_layer: Optional[Callable[..., nn.Module]] = None,
                 activation_layer: Optional[Callable[..., nn.Module]] = nn.ReLU, inplace: Optional[bool] = None,
                 bias: bool = True, dropout: float = 0.0) -> None:
        params = {} if inplace is None else {"inplace": inplace}
        layers: List[nn.Module] = []
        in_dim = in_channels
        for hidden in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden))
            if activation_layer is not None:
                layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden
        layers += [nn.Linear(in_dim, hidden_channels[-1], bias=bias), nn.Dropout(dropout, **params)]
        super().__init__(*layers)


class Permute(nn.Module):
    """torchvision.ops.Permute(dims): the input with its dimensions permuted (a view)."""

    def __init__(self, dims: List[int]) -> None:
        super().__init__()
        self.dims = list(dims)

    def forward(self, x: Tensor) -> Tensor:
        return x.permute(*self.dims)


class SqueezeExcitation(nn.Module):
    """torchvision.ops.SqueezeExcitation(input_channels, squeeze_channels, activation=ReLU,
    scale_activation=Sigmoid) (Hu et al. 2017): x times scale_activation(fc2(activation(fc1(
    avgpool(x))))), fc1 and fc2 being 1x1 convolutions with bias."""

    def __init__(self, input_channels: int, squeeze_channels: int,
                 activation: Callable[..., nn.Module] = nn.ReLU,
                 scale_activation: Callable[..., nn.Module] = nn.Sigmoid) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x: Tensor) -> Tensor:
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return scale * x


class StochasticDepth(nn.Module):
    """torchvision.ops.StochasticDepth(p, mode) (Huang et al. 2016, "Deep Networks with Stochastic
    Depth"): in training, zeroes the input with probability p, per sample ("row") or for the whole
    batch ("batch"), and scales survivors by 1 / (1 - p); the identity in eval or for p = 0."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        if p < 0.0 or p > 1.0:
            raise _C.InvalidArgumentError(f"StochasticDepth: drop probability has to be between 0 and 1, but got {p}\n"
                                          f"  fix: a p in [0, 1]")
        if mode not in ("batch", "row"):
            raise _C.InvalidArgumentError(f"StochasticDepth: mode has to be either 'batch' or 'row', but got {mode}\n"
                                          f"  fix: mode='row' (per sample) or mode='batch'")
        self.p, self.mode = p, mode

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        survival = 1.0 - self.p
        size = [x.shape[0]] + [1] * (x.dim() - 1) if self.mode == "row" else [1] * x.dim()
        noise = _factories.empty(size, dtype=x.dtype, device=x.device).bernoulli_(survival)
        if survival > 0.0:
            noise = noise / survival
        return x * noise

    def extra_repr(self) -> str:
        return f"p={self.p}, mode={self.mode}"


def init_mobile_weights(model: nn.Module, init_linear: Callable[[Tensor], Any]) -> None:
    """The initialization torchvision's MobileNetV2, MobileNetV3 and EfficientNet share:
    convolutions kaiming_normal_(mode="fan_out"), norms weight 1, linears' weights by init_linear,
    every bias 0."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)) and m.weight is not None and m.bias is not None:
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            init_linear(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
