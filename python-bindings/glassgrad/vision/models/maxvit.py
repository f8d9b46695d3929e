"""torchvision.models' MaxViT (Tu et al. 2022, "MaxViT: Multi-Axis Vision Transformer"): maxvit_t
and MaxVit, with torchvision's arguments (input_size, stem_channels, partition_size,
block_channels, block_layers, head_dim, stochastic_depth_prob, norm_layer, activation_layer,
squeeze_ratio, expansion_ratio, mlp_ratio, mlp_dropout, attention_dropout, num_classes),
submodule names and order (stem, blocks.i.layers.j.layers.MBconv / window_attention /
grid_attention, classifier) and initialization, so state_dicts load both ways.

Each layer is an MBConv followed by attention within p x p windows ("window") and attention
across a p x p grid of pixels spaced a window apart ("grid"), each with a relative position bias."""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from ... import _C, _factories, nn
from ..._math import add, mul
from ..._shapes import chunk, matmul
from ..._tensor import Tensor, tensor
from ...nn import functional as F
from ._layers import Conv2dNormActivation, SqueezeExcitation, StochasticDepth
from ._weights import refuse_pretrained
from .swin_transformer import _gather_bias, _relative_position_index

__all__ = ["MaxVit", "maxvit_t"]

_Layer = Callable[..., nn.Module]


def _conv_output_shape(size: Tuple[int, int], kernel_size: int, stride: int, padding: int) -> Tuple[int, int]:
    return ((size[0] - kernel_size + 2 * padding) // stride + 1, (size[1] - kernel_size + 2 * padding) // stride + 1)


def _block_input_shapes(input_size: Tuple[int, int], n_blocks: int) -> List[Tuple[int, int]]:
    """The grid each block works on: the stem and every block halve the side (3x3, stride 2, pad 1)."""
    shapes = []
    shape = _conv_output_shape(input_size, 3, 2, 1)
    for _ in range(n_blocks):
        shape = _conv_output_shape(shape, 3, 2, 1)
        shapes.append(shape)
    return shapes


class MBConv(nn.Module):
    """x projected (3x3 average pool stride 2 where strided, 1x1 convolution where the shape
    changes) + stochastic_depth(layers(x)), layers: pre_norm, conv_a (1x1 expand), conv_b (3x3
    depthwise, the stride), squeeze_excitation (SiLU), conv_c (1x1 with bias)."""

    def __init__(self, in_channels: int, out_channels: int, expansion_ratio: float, squeeze_ratio: float,
                 stride: int, activation_layer: _Layer, norm_layer: _Layer, p_stochastic_dropout: float = 0.0) -> None:
        super().__init__()
        self.proj: nn.Module
        if stride != 1 or in_channels != out_channels:
            proj: List[nn.Module] = [nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, bias=True)]
            if stride == 2:
                proj = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] + proj
            self.proj = nn.Sequential(*proj)
        else:
            self.proj = nn.Identity()
        mid = int(out_channels * expansion_ratio)
        self.stochastic_depth: nn.Module = (StochasticDepth(p_stochastic_dropout, mode="row") if p_stochastic_dropout
                                            else nn.Identity())
        self.layers = nn.Sequential()
        self.layers.add_module("pre_norm", norm_layer(in_channels))
        self.layers.add_module("conv_a", Conv2dNormActivation(in_channels, mid, kernel_size=1, stride=1, padding=0,
                                                              activation_layer=activation_layer,
                                                              norm_layer=norm_layer, inplace=None))
        self.layers.add_module("conv_b", Conv2dNormActivation(mid, mid, kernel_size=3, stride=stride, padding=1,
                                                              activation_layer=activation_layer,
                                                              norm_layer=norm_layer, groups=mid, inplace=None))
        self.layers.add_module("squeeze_excitation", SqueezeExcitation(mid, int(out_channels * squeeze_ratio),
                                                                       activation=nn.SiLU))
        self.layers.add_module("conv_c", nn.Conv2d(in_channels=mid, out_channels=out_channels, kernel_size=1,
                                                   bias=True))

    def forward(self, x: Tensor) -> Tensor:
        return add(self.proj(x), self.stochastic_depth(self.layers(x)))


class RelativePositionalMultiHeadAttention(nn.Module):
    """Self-attention over the P = max_seq_len pixels of each partition of a (B, G, P, D) input,
    feat_dim // head_dim heads, keys scaled by feat_dim ** -0.5 (as torchvision scales them), a
    relative position bias table of (2 s - 1)^2 rows for s x s partitions."""

    def __init__(self, feat_dim: int, head_dim: int, max_seq_len: int) -> None:
        super().__init__()
        if feat_dim % head_dim != 0:
            raise _C.InvalidArgumentError(f"RelativePositionalMultiHeadAttention: feat_dim: {feat_dim} must be "
                                          f"divisible by head_dim: {head_dim}\n  fix: a head_dim that divides "
                                          f"{feat_dim}, e.g. {math.gcd(feat_dim, 32)}")
        self.n_heads = feat_dim // head_dim
        self.head_dim = head_dim
        self.size = int(math.sqrt(max_seq_len))
        self.max_seq_len = max_seq_len
        self.to_qkv = nn.Linear(feat_dim, self.n_heads * self.head_dim * 3)
        self.scale_factor = feat_dim ** -0.5
        self.merge = nn.Linear(self.head_dim * self.n_heads, feat_dim)
        rows = (2 * self.size - 1) * (2 * self.size - 1)
        self.relative_position_bias_table = nn.Parameter(_factories.empty(rows, self.n_heads))
        index = _relative_position_index([self.size, self.size]).reshape(max_seq_len, max_seq_len)
        self.register_buffer("relative_position_index", tensor(index))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def get_relative_positional_bias(self) -> Tensor:
        return _gather_bias(self.relative_position_bias_table, self.relative_position_index.view(-1),
                            [self.size, self.size])

    def forward(self, x: Tensor) -> Tensor:
        b, g, p, d = x.shape
        h, dh = self.n_heads, self.head_dim
        q, k, v = (t.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4) for t in chunk(self.to_qkv(x), 3, dim=-1))
        logits = matmul(q, mul(k, self.scale_factor).transpose(-2, -1))
        weights = F.softmax(add(logits, self.get_relative_positional_bias()), dim=-1)
        return self.merge(matmul(weights, v).permute(0, 1, 3, 2, 4).reshape(b, g, p, d))


class SwapAxes(nn.Module):
    """The input with dimensions a and b swapped."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x: Tensor) -> Tensor:
        return x.transpose(self.a, self.b)


class WindowPartition(nn.Module):
    """(B, C, H, W) -> (B, H/p * W/p, p * p, C): non-overlapping p x p windows."""

    def forward(self, x: Tensor, p: int) -> Tensor:
        b, c, h, w = x.shape
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """(B, h_partitions * w_partitions, p * p, C) -> (B, C, H, W), WindowPartition's inverse."""

    def forward(self, x: Tensor, p: int, h_partitions: int, w_partitions: int) -> Tensor:
        b, _, _, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    """x + stochastic_dropout(attn_layer(x)), then + stochastic_dropout(mlp_layer(.)), on the
    pixels of each partition: "window" partitions are p x p windows; "grid" partitions gather
    the pixels that sit at the same place of every window (the partition and pixel axes swapped)."""

    def __init__(self, in_channels: int, head_dim: int, partition_size: int, partition_type: str,
                 grid_size: Tuple[int, int], mlp_ratio: int, activation_layer: _Layer, norm_layer: _Layer,
                 attention_dropout: float, mlp_dropout: float, p_stochastic_dropout: float) -> None:
        super().__init__()
        self.n_heads = in_channels // head_dim
        self.head_dim = head_dim
        self.n_partitions = grid_size[0] // partition_size
        self.partition_type = partition_type
        self.grid_size = grid_size
        if partition_type not in ["grid", "window"]:
            raise _C.InvalidArgumentError(f"PartitionAttentionLayer: partition_type must be either 'grid' or "
                                          f"'window', got {partition_type!r}\n  fix: partition_type='window'")
        if partition_type == "window":
            self.p, self.g = partition_size, self.n_partitions
        else:
            self.p, self.g = self.n_partitions, partition_size
        self.partition_op = WindowPartition()
        self.departition_op = WindowDepartition()
        self.partition_swap: nn.Module = SwapAxes(-2, -3) if partition_type == "grid" else nn.Identity()
        self.departition_swap: nn.Module = SwapAxes(-2, -3) if partition_type == "grid" else nn.Identity()
        self.attn_layer = nn.Sequential(norm_layer(in_channels),
                                        RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size ** 2),
                                        nn.Dropout(attention_dropout))
        self.mlp_layer = nn.Sequential(nn.LayerNorm(in_channels), nn.Linear(in_channels, in_channels * mlp_ratio),
                                       activation_layer(), nn.Linear(in_channels * mlp_ratio, in_channels),
                                       nn.Dropout(mlp_dropout))
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x: Tensor) -> Tensor:
        if self.grid_size[0] % self.p != 0 or self.grid_size[1] % self.p != 0:
            raise _C.ShapeError(f"PartitionAttentionLayer: Grid size must be divisible by partition size. Got grid "
                                f"size of {self.grid_size} and partition size of {self.p}\n"
                                f"  fix: an input_size whose block grids are multiples of the partition size")
        gh, gw = self.grid_size[0] // self.p, self.grid_size[1] // self.p
        x = self.partition_swap(self.partition_op(x, self.p))
        x = add(x, self.stochastic_dropout(self.attn_layer(x)))
        x = add(x, self.stochastic_dropout(self.mlp_layer(x)))
        return self.departition_op(self.departition_swap(x), self.p, gh, gw)


class MaxVitLayer(nn.Module):
    """layers: MBconv, window_attention, grid_attention (attention norms nn.LayerNorm)."""

    def __init__(self, in_channels: int, out_channels: int, squeeze_ratio: float, expansion_ratio: float,
                 stride: int, norm_layer: _Layer, activation_layer: _Layer, head_dim: int, mlp_ratio: int,
                 mlp_dropout: float, attention_dropout: float, p_stochastic_dropout: float, partition_size: int,
                 grid_size: Tuple[int, int]) -> None:
        super().__init__()
        self.layers = nn.Sequential()
        self.layers.add_module("MBconv", MBConv(in_channels=in_channels, out_channels=out_channels,
                                                expansion_ratio=expansion_ratio, squeeze_ratio=squeeze_ratio,
                                                stride=stride, activation_layer=activation_layer,
                                                norm_layer=norm_layer, p_stochastic_dropout=p_stochastic_dropout))
        for kind in ("window", "grid"):
            self.layers.add_module(f"{kind}_attention", PartitionAttentionLayer(
                in_channels=out_channels, head_dim=head_dim, partition_size=partition_size, partition_type=kind,
                grid_size=grid_size, mlp_ratio=mlp_ratio, activation_layer=activation_layer, norm_layer=nn.LayerNorm,
                attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
                p_stochastic_dropout=p_stochastic_dropout))

    def forward(self, x: Tensor) -> Tensor:
        return self.layers(x)


class MaxVitBlock(nn.Module):
    """n_layers MaxVitLayers (a ModuleList named layers); the first halves the grid."""

    def __init__(self, in_channels: int, out_channels: int, squeeze_ratio: float, expansion_ratio: float,
                 norm_layer: _Layer, activation_layer: _Layer, head_dim: int, mlp_ratio: int, mlp_dropout: float,
                 attention_dropout: float, partition_size: int, input_grid_size: Tuple[int, int], n_layers: int,
                 p_stochastic: List[float]) -> None:
        super().__init__()
        if len(p_stochastic) != n_layers:
            raise _C.InvalidArgumentError(f"MaxVitBlock: p_stochastic must have length n_layers={n_layers}, got "
                                          f"p_stochastic={p_stochastic}.\n  fix: one probability per layer")
        self.layers = nn.ModuleList()
        self.grid_size = _conv_output_shape(input_grid_size, kernel_size=3, stride=2, padding=1)
        for idx, p in enumerate(p_stochastic):
            self.layers.append(MaxVitLayer(
                in_channels=in_channels if idx == 0 else out_channels, out_channels=out_channels,
                squeeze_ratio=squeeze_ratio, expansion_ratio=expansion_ratio, stride=2 if idx == 0 else 1,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout, partition_size=partition_size,
                grid_size=self.grid_size, p_stochastic_dropout=p))

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(nn.Module):
    """torchvision.models.MaxVit(input_size, stem_channels, partition_size, block_channels,
    block_layers, head_dim, stochastic_depth_prob, norm_layer=None (BatchNorm2d(eps=1e-3,
    momentum=0.01)), activation_layer=GELU, squeeze_ratio=0.25, expansion_ratio=4, mlp_ratio=4,
    mlp_dropout=0.0, attention_dropout=0.0, num_classes=1000). Built for one input_size: every
    block's grid has to be a multiple of partition_size. Convolutions and linears start as
    normal(std=0.02) with biases 0, norms 1 and 0."""

    def __init__(self, input_size: Tuple[int, int], stem_channels: int, partition_size: int,
                 block_channels: List[int], block_layers: List[int], head_dim: int, stochastic_depth_prob: float,
                 norm_layer: Optional[_Layer] = None, activation_layer: _Layer = nn.GELU,
                 squeeze_ratio: float = 0.25, expansion_ratio: float = 4, mlp_ratio: int = 4,
                 mlp_dropout: float = 0.0, attention_dropout: float = 0.0, num_classes: int = 1000) -> None:
        super().__init__()
        norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01) if norm_layer is None else norm_layer
        sizes = _block_input_shapes(tuple(input_size), len(block_channels))  # type: ignore[arg-type]
        for idx, size in enumerate(sizes):
            if size[0] % partition_size != 0 or size[1] % partition_size != 0:
                raise _C.InvalidArgumentError(
                    f"Input size {size} of block {idx} is not divisible by partition size {partition_size}. "
                    f"Consider changing the partition size or the input size.\n"
                    f"Current configuration yields the following block input sizes: {sizes}.\n"
                    f"  fix: input_size a multiple of {partition_size * 2 ** (len(block_channels) + 1)} on each side "
                    f"(e.g. 224 for partition_size 7 and 4 blocks)")
        self.stem = nn.Sequential(
            Conv2dNormActivation(3, stem_channels, 3, stride=2, norm_layer=norm_layer, activation_layer=activation_layer,
                                 bias=False, inplace=None),
            Conv2dNormActivation(stem_channels, stem_channels, 3, stride=1, norm_layer=None, activation_layer=None,
                                 bias=True))
        grid = _conv_output_shape(tuple(input_size), kernel_size=3, stride=2, padding=1)  # type: ignore[arg-type]
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        probs = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        start = 0
        for c_in, c_out, n in zip([stem_channels] + block_channels[:-1], block_channels, block_layers):
            block = MaxVitBlock(in_channels=c_in, out_channels=c_out, squeeze_ratio=squeeze_ratio,
                                expansion_ratio=expansion_ratio, norm_layer=norm_layer,
                                activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout,
                                partition_size=partition_size, input_grid_size=grid, n_layers=n,
                                p_stochastic=probs[start:start + n])
            self.blocks.append(block)
            grid = block.grid_size
            start += n
        self.classifier = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(block_channels[-1]),
                                        nn.Linear(block_channels[-1], block_channels[-1]), nn.Tanh(),
                                        nn.Linear(block_channels[-1], num_classes, bias=False))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d) and m.weight is not None and m.bias is not None:
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)


def maxvit_t(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> MaxVit:
    """MaxViT-T (input_size=(224, 224) by default; partition size 7)."""
    refuse_pretrained("maxvit_t", weights, kwargs)
    return MaxVit(stem_channels=64, block_channels=[64, 128, 256, 512], block_layers=[2, 2, 5, 2], head_dim=32,
                  stochastic_depth_prob=0.2, partition_size=7, input_size=kwargs.pop("input_size", (224, 224)),
                  **kwargs)
