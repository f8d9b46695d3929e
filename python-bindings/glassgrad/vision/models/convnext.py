"""torchvision.models' ConvNeXt (Liu et al. 2022, "A ConvNet for the 2020s"): convnext_tiny,
convnext_small, convnext_base, convnext_large, ConvNeXt, CNBlock, CNBlockConfig and LayerNorm2d,
with torchvision's arguments (stochastic_depth_prob, layer_scale, num_classes, block, norm_layer),
submodule names and order (features, avgpool, classifier; blocks' block.0 ... block.5 and
layer_scale) and initialization, so state_dicts load both ways."""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, List, Optional, Sequence

from ... import _C, _factories, nn
from ..._tensor import Tensor
from ...nn import functional as F
from ._layers import Conv2dNormActivation, Permute, StochasticDepth
from ._weights import refuse_pretrained

__all__ = ["ConvNeXt", "CNBlockConfig", "LayerNorm2d", "convnext_tiny", "convnext_small", "convnext_base",
           "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an (N, C, H, W) input, at each position: normalized_shape
    is (C,); the input is permuted to channels-last, normalized and permuted back."""

    def forward(self, x: Tensor) -> Tensor:
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """x + stochastic_depth(layer_scale * block(x)), block: 7x7 depthwise convolution, permute to
    channels-last, norm, Linear(dim, 4 dim), GELU, Linear(4 dim, dim), permute back; layer_scale a
    (dim, 1, 1) parameter starting at layer_scale."""

    def __init__(self, dim: int, layer_scale: float, stochastic_depth_prob: float,
                 norm_layer: Optional[Callable[..., nn.Module]] = None) -> None:
        super().__init__()
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True), Permute([0, 2, 3, 1]),
            norm_layer(dim), nn.Linear(in_features=dim, out_features=4 * dim, bias=True), nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True), Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(_factories.full((dim, 1, 1), float(layer_scale)))
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input: Tensor) -> Tensor:
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    """One stage: num_layers blocks of input_channels, then (unless out_channels is None) a
    downsampling layer to out_channels."""

    def __init__(self, input_channels: int, out_channels: Optional[int], num_layers: int) -> None:
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self) -> str:
        return (f"CNBlockConfig(input_channels={self.input_channels}, out_channels={self.out_channels}, "
                f"num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """torchvision.models.ConvNeXt(block_setting, stochastic_depth_prob=0.0, layer_scale=1e-6,
    num_classes=1000, block=None, norm_layer=None): a 4x4 stride-4 patchify stem with a norm, the
    stages (block i of n drops with probability stochastic_depth_prob * i / (n - 1)) and their
    2x2 stride-2 downsampling, average pool, classifier = [norm, Flatten, Linear]. Convolutions and
    linears start as trunc_normal_(std=0.02) with biases 0."""

    def __init__(self, block_setting: List[CNBlockConfig], stochastic_depth_prob: float = 0.0,
                 layer_scale: float = 1e-6, num_classes: int = 1000, block: Optional[Callable[..., nn.Module]] = None,
                 norm_layer: Optional[Callable[..., nn.Module]] = None, **kwargs: Any) -> None:
        super().__init__()
        if not block_setting:
            raise _C.InvalidArgumentError("ConvNeXt: The block_setting should not be empty\n"
                                          "  fix: a list of CNBlockConfig, e.g. [CNBlockConfig(96, 192, 3), "
                                          "CNBlockConfig(192, None, 3)]")
        if not (isinstance(block_setting, Sequence) and all(isinstance(s, CNBlockConfig) for s in block_setting)):
            raise TypeError(f"ConvNeXt: The block_setting should be List[CNBlockConfig], got "
                            f"{type(block_setting).__name__}\n  fix: build each stage with CNBlockConfig("
                            f"input_channels, out_channels, num_layers)")
        block = CNBlock if block is None else block
        norm_layer = partial(LayerNorm2d, eps=1e-6) if norm_layer is None else norm_layer
        layers: List[nn.Module] = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4, stride=4,
                                                        padding=0, norm_layer=norm_layer, activation_layer=None,
                                                        bias=True)]
        total = sum(cnf.num_layers for cnf in block_setting)
        index = 0
        for cnf in block_setting:
            stage: List[nn.Module] = []
            for _ in range(cnf.num_layers):
                stage.append(block(cnf.input_channels, layer_scale, stochastic_depth_prob * index / (total - 1.0)))
                index += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(norm_layer(cnf.input_channels),
                                            nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        channels = last.out_channels if last.out_channels is not None else last.input_channels
        self.classifier = nn.Sequential(norm_layer(channels), nn.Flatten(1), nn.Linear(channels, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.avgpool(self.features(x)))


# name: (stage widths, blocks per stage, default stochastic depth probability).
_CONFIGS = {"convnext_tiny": ([96, 192, 384, 768], [3, 3, 9, 3], 0.1),
            "convnext_small": ([96, 192, 384, 768], [3, 3, 27, 3], 0.4),
            "convnext_base": ([128, 256, 512, 1024], [3, 3, 27, 3], 0.5),
            "convnext_large": ([192, 384, 768, 1536], [3, 3, 27, 3], 0.5)}


def _convnext(name: str, weights: Any, kwargs: Any) -> ConvNeXt:
    refuse_pretrained(name, weights, kwargs)
    widths, depths, sd_prob = _CONFIGS[name]
    setting = [CNBlockConfig(w, widths[i + 1] if i + 1 < len(widths) else None, d)
               for i, (w, d) in enumerate(zip(widths, depths))]
    return ConvNeXt(setting, stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", sd_prob), **kwargs)


def convnext_tiny(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ConvNeXt:
    """ConvNeXt Tiny (stochastic depth 0.1)."""
    return _convnext("convnext_tiny", weights, kwargs)


def convnext_small(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ConvNeXt:
    """ConvNeXt Small (stochastic depth 0.4)."""
    return _convnext("convnext_small", weights, kwargs)


def convnext_base(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ConvNeXt:
    """ConvNeXt Base (stochastic depth 0.5)."""
    return _convnext("convnext_base", weights, kwargs)


def convnext_large(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> ConvNeXt:
    """ConvNeXt Large (stochastic depth 0.5)."""
    return _convnext("convnext_large", weights, kwargs)
