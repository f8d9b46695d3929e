"""Building blocks torchvision's mobile networks share (torchvision.ops.Conv2dNormActivation, MLP,
Permute, SqueezeExcitation, StochasticDepth and torchvision.models._utils._make_divisible), with
torchvision's names so state_dict keys match: a Conv2dNormActivation is a Sequential whose layers
are "0" (conv), "1" (norm), "2" (activation)."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from ... import _C, _factories, nn
from ..._tensor import Tensor

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "MLP", "Permute", "SqueezeExcitation", "StochasticDepth", "init_mobile_weights", "make_divisible",
           "stochastic_depth"]


def make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    """v rounded to the nearest multiple of divisor (at least min_value, default divisor), moved up
    one multiple if rounding lost more than 10%."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _same_padding(kernel_size, dilation):
    """(kernel - 1) // 2 * dilation per dimension: the output keeps the input's size at stride 1."""
    if isinstance(kernel_size, int) and isinstance(dilation, int):
        return (kernel_size - 1) // 2 * dilation
    dims = len(kernel_size) if not isinstance(kernel_size, int) else len(dilation)
    ks = [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)
    ds = [dilation] * dims if isinstance(dilation, int) else list(dilation)
    return tuple((k - 1) // 2 * d for k, d in zip(ks, ds))


class _ConvNormActivation(nn.Sequential):
    """_conv (padding (kernel_size - 1) // 2 * dilation by default, a bias only without a norm),
    then the norm (_norm unless norm_layer says otherwise) and the activation where given: layers
    "0", "1", "2"."""

    _conv: Callable[..., nn.Module] = nn.Conv2d
    _norm: Callable[..., nn.Module] = nn.BatchNorm2d

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any = 3, stride: Any = 1,
                 padding: Any = None, groups: int = 1, norm_layer: Any = "default",
                 activation_layer: Optional[Callable[..., nn.Module]] = nn.ReLU, dilation: Any = 1,
                 inplace: Optional[bool] = True, bias: Optional[bool] = None) -> None:
        if isinstance(norm_layer, str) and norm_layer == "default":
            norm_layer = type(self)._norm
        if padding is None:
            padding = _same_padding(kernel_size, dilation)
        if bias is None:
            bias = norm_layer is None
        layers: List[nn.Module] = [type(self)._conv(in_channels, out_channels, kernel_size, stride, padding,
                                                    dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer() if inplace is None else activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels


class Conv2dNormActivation(_ConvNormActivation):
    """torchvision.ops.Conv2dNormActivation(in_channels, out_channels, kernel_size=3, stride=1,
    padding=None, groups=1, norm_layer=BatchNorm2d, activation_layer=ReLU, dilation=1,
    inplace=True, bias=None): Conv2d, then the norm and the activation where given."""


class Conv3dNormActivation(_ConvNormActivation):
    """torchvision.ops.Conv3dNormActivation: Conv2dNormActivation's arguments, with Conv3d and
    norm_layer=BatchNorm3d by default."""

    _conv = nn.Conv3d
    _norm = nn.BatchNorm3d


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


def _check_stochastic_depth(p: float, mode: str, what: str) -> None:
    if p < 0.0 or p > 1.0:
        raise _C.InvalidArgumentError(f"{what}: drop probability has to be between 0 and 1, but got {p}\n"
                                      f"  fix: a p in [0, 1]")
    if mode not in ("batch", "row"):
        raise _C.InvalidArgumentError(f"{what}: mode has to be either 'batch' or 'row', but got {mode}\n"
                                      f"  fix: mode='row' (per sample) or mode='batch'")


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:
    """torchvision.ops.stochastic_depth (Huang et al. 2016, "Deep Networks with Stochastic
    Depth"): in training, zeroes the input with probability p, per sample ("row") or for the
    whole batch ("batch"), and scales survivors by 1 / (1 - p); the input itself when not
    training or for p = 0."""
    _check_stochastic_depth(p, mode, "stochastic_depth")
    if not training or p == 0.0:
        return input
    survival = 1.0 - p
    size = [input.shape[0]] + [1] * (input.dim() - 1) if mode == "row" else [1] * input.dim()
    noise = _factories.empty(size, dtype=input.dtype, device=input.device).bernoulli_(survival)
    if survival > 0.0:
        noise = noise / survival
    return input * noise


class StochasticDepth(nn.Module):
    """torchvision.ops.StochasticDepth(p, mode) (Huang et al. 2016, "Deep Networks with Stochastic
    Depth"): in training, zeroes the input with probability p, per sample ("row") or for the whole
    batch ("batch"), and scales survivors by 1 / (1 - p); the identity in eval or for p = 0."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        _check_stochastic_depth(p, mode, "StochasticDepth")
        self.p, self.mode = p, mode

    def forward(self, x: Tensor) -> Tensor:
        return stochastic_depth(x, self.p, self.mode, self.training)

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
