"""torchvision.models' Swin Transformer (Liu et al. 2021, "Swin Transformer: Hierarchical Vision
Transformer using Shifted Windows", and 2022, "Swin Transformer V2"): swin_t, swin_s, swin_b,
swin_v2_t, swin_v2_s, swin_v2_b, SwinTransformer and its blocks, with torchvision's arguments,
submodule names and order (features, norm, permute, avgpool, flatten, head; each block's norm1,
attn with its relative position bias table or continuous-position-bias MLP, norm2, mlp) and
initialization, so state_dicts load both ways.

Windows are cut from channels-last (N, H, W, C) maps padded to a multiple of the window; shifted
blocks roll the map by half a window first and mask attention between pixels that the roll
brought together from different regions (-100 before the softmax), as the papers describe."""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, List, Optional

import numpy as np

from ... import _C, _factories, nn
from ..._math import add, clamp, exp, mul
from ..._runtime import no_grad
from ..._shapes import matmul, roll, unsqueeze
from ..._spatial import cat
from ..._tensor import Tensor, tensor
from ...nn import functional as F
from ._layers import MLP, Permute, StochasticDepth
from ._weights import refuse_pretrained

__all__ = ["SwinTransformer", "shifted_window_attention", "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s",
           "swin_v2_b"]


def _patch_merging_pad(x: Tensor) -> Tensor:
    """(..., H, W, C) -> (..., ceil(H/2), ceil(W/2), 4C): odd sides padded with a zero row or
    column, then the 2x2 neighbours concatenated (top-left, bottom-left, top-right, bottom-right)."""
    h, w = x.shape[-3], x.shape[-2]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]], -1)


class PatchMerging(nn.Module):
    """Halves the resolution and doubles the channels: merge 2x2 neighbours, norm over 4C,
    Linear(4C, 2C) without bias."""

    def __init__(self, dim: int, norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(nn.Module):
    """Swin V2's patch merging: the Linear first, then the norm over 2C."""

    def __init__(self, dim: int, norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_mask(pad_h: int, pad_w: int, window_size: List[int], shift_size: List[int]) -> np.ndarray:
    """(windows, N, N) additive mask: -100 between two pixels of a window that came from
    different regions of the unrolled map, 0 otherwise (N pixels a window). With the shift 0
    along one axis (a window covering that padded side), its last slice (-0, None) spans the
    whole axis, so the regions differ along the other axis only, as in torchvision."""
    region: np.ndarray = np.zeros((pad_h, pad_w), dtype=np.float32)
    h_slices = ((0, -window_size[0]), (-window_size[0], -shift_size[0]), (-shift_size[0], None))
    w_slices = ((0, -window_size[1]), (-window_size[1], -shift_size[1]), (-shift_size[1], None))
    label = 0
    for h in h_slices:
        for w in w_slices:
            region[h[0]:h[1], w[0]:w[1]] = label
            label += 1
    region = region.reshape(pad_h // window_size[0], window_size[0], pad_w // window_size[1], window_size[1])
    region = region.transpose(0, 2, 1, 3).reshape(-1, window_size[0] * window_size[1])
    diff = region[:, None, :] - region[:, :, None]
    return np.where(diff != 0, np.float32(-100.0), np.float32(0.0))


def shifted_window_attention(input: Tensor, qkv_weight: Tensor, proj_weight: Tensor, relative_position_bias: Tensor,
                             window_size: List[int], num_heads: int, shift_size: List[int],
                             attention_dropout: float = 0.0, dropout: float = 0.0, qkv_bias: Optional[Tensor] = None,
                             proj_bias: Optional[Tensor] = None, logit_scale: Optional[Tensor] = None,
                             training: bool = True) -> Tensor:
    """torchvision.models.swin_transformer.shifted_window_attention: multi-head self-attention
    within windows of an (N, H, W, C) input, with the relative position bias, shifted windows
    (shift_size, masked) and Swin V2's scaled cosine attention where logit_scale is given (then the
    key bias is left out). Returns (N, H, W, C)."""
    b, h, w, c = input.shape
    pad_r = (window_size[1] - w % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - h % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    pad_h, pad_w = h + pad_b, w + pad_r
    # A window that covers the whole padded side has nothing to shift along it.
    shift = [0 if window_size[0] >= pad_h else shift_size[0], 0 if window_size[1] >= pad_w else shift_size[1]]
    if sum(shift) > 0:
        x = roll(x, shifts=(-shift[0], -shift[1]), dims=(1, 2))
    num_windows = (pad_h // window_size[0]) * (pad_w // window_size[1])
    n = window_size[0] * window_size[1]
    x = x.view(b, pad_h // window_size[0], window_size[0], pad_w // window_size[1], window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, n, c)
    if logit_scale is not None and qkv_bias is not None:
        keep: np.ndarray = np.ones(qkv_bias.numel(), dtype=np.float32)
        keep[qkv_bias.numel() // 3:2 * qkv_bias.numel() // 3] = 0.0
        qkv_bias = mul(qkv_bias, tensor(keep, dtype=qkv_bias.dtype, device=qkv_bias.device))
    qkv = F.linear(x, qkv_weight, qkv_bias).reshape(b * num_windows, n, 3, num_heads, c // num_heads)
    qkv = qkv.permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:
        attn = matmul(F.normalize(q, dim=-1), F.normalize(k, dim=-1).transpose(-2, -1))
        attn = mul(attn, exp(clamp(logit_scale, max=math.log(100.0))))
    else:
        attn = matmul(mul(q, (c // num_heads) ** -0.5), k.transpose(-2, -1))
    attn = add(attn, relative_position_bias)
    if sum(shift) > 0:
        mask = tensor(_shift_mask(pad_h, pad_w, window_size, shift), dtype=attn.dtype, device=attn.device)
        attn = add(attn.view(b, num_windows, num_heads, n, n), unsqueeze(unsqueeze(mask, 1), 0))
        attn = attn.view(-1, num_heads, n, n)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = matmul(attn, v).transpose(1, 2).reshape(b * num_windows, n, c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, pad_h // window_size[0], pad_w // window_size[1], window_size[0], window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if sum(shift) > 0:
        x = roll(x, shifts=(shift[0], shift[1]), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


def _relative_position_index(window_size: List[int]) -> np.ndarray:
    """(N * N,) int64: for pixels i and j of a window, the row of the bias table holding their
    offset, (dy + Wh - 1) * (2 Ww - 1) + (dx + Ww - 1)."""
    coords = np.indices((window_size[0], window_size[1])).reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0)
    index = (rel[:, :, 0] + window_size[0] - 1) * (2 * window_size[1] - 1) + rel[:, :, 1] + window_size[1] - 1
    return index.reshape(-1).astype(np.int64)


def _gather_bias(table: Tensor, index: Tensor, window_size: List[int]) -> Tensor:
    """(1, heads, N, N) bias from a (rows, heads) table."""
    n = window_size[0] * window_size[1]
    return unsqueeze(table[index].view(n, n, -1).permute(2, 0, 1).contiguous(), 0)


class ShiftedWindowAttention(nn.Module):
    """Window attention with a learned (2 Wh - 1)(2 Ww - 1) x heads relative position bias table
    (trunc_normal_(std=0.02)); qkv and proj Linears."""

    def __init__(self, dim: int, window_size: List[int], shift_size: List[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0) -> None:
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise _C.InvalidArgumentError(
                f"ShiftedWindowAttention: window_size and shift_size must be of length 2, got {list(window_size)} "
                f"and {list(shift_size)}\n  fix: e.g. window_size=[7, 7], shift_size=[3, 3]")
        self.window_size = list(window_size)
        self.shift_size = list(shift_size)
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self) -> None:
        rows = (2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1)
        self.relative_position_bias_table = nn.Parameter(_factories.zeros(rows, self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self) -> None:
        self.register_buffer("relative_position_index", tensor(_relative_position_index(self.window_size)))

    def get_relative_position_bias(self) -> Tensor:
        return _gather_bias(self.relative_position_bias_table, self.relative_position_index, self.window_size)

    def _attention(self, x: Tensor, logit_scale: Optional[Tensor]) -> Tensor:
        return shifted_window_attention(x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(),
                                        self.window_size, self.num_heads, shift_size=self.shift_size,
                                        attention_dropout=self.attention_dropout, dropout=self.dropout,
                                        qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=logit_scale,
                                        training=self.training)

    def forward(self, x: Tensor) -> Tensor:
        return self._attention(x, None)


def _relative_coords_table(window_size: List[int]) -> np.ndarray:
    """(1, 2 Wh - 1, 2 Ww - 1, 2) float32 offsets scaled to [-8, 8] and log-spaced:
    sign(t) * log2(|t| + 1) / 3 (Swin V2), in float32 as torchvision computes them."""
    f32 = np.float32
    offsets: List[np.ndarray] = [np.arange(-(side - 1), side, dtype=f32) for side in window_size]
    table = np.stack(np.meshgrid(offsets[0], offsets[1], indexing="ij")).transpose(1, 2, 0)[None].copy()
    table[..., 0] /= f32(window_size[0] - 1)
    table[..., 1] /= f32(window_size[1] - 1)
    table *= f32(8)
    return (np.sign(table) * np.log2(np.abs(table) + f32(1.0)) / f32(3.0)).astype(f32)


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """Swin V2's window attention: scaled cosine attention (logit_scale per head, starting at
    log 10, capped at log 100), the bias from a continuous-position MLP (cpb_mlp: Linear(2, 512),
    ReLU, Linear(512, heads)) over log-spaced offsets, 16 sigmoid(bias); no key bias."""

    def __init__(self, dim: int, window_size: List[int], shift_size: List[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0) -> None:
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias, proj_bias=proj_bias,
                         attention_dropout=attention_dropout, dropout=dropout)
        self.logit_scale = nn.Parameter(_factories.full((num_heads, 1, 1), math.log(10.0)))
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True),
                                     nn.Linear(512, num_heads, bias=False))
        if self.qkv.bias is not None:
            values = self.qkv.bias.numpy(force=True).copy()
            values[dim:2 * dim] = 0.0
            with no_grad():
                self.qkv.bias.copy_(tensor(values))

    def define_relative_position_bias_table(self) -> None:
        self.register_buffer("relative_coords_table", tensor(_relative_coords_table(self.window_size)))

    def get_relative_position_bias(self) -> Tensor:
        table = self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads)
        return mul(F.sigmoid(_gather_bias(table, self.relative_position_index, self.window_size)), 16)

    def forward(self, x: Tensor) -> Tensor:
        return self._attention(x, self.logit_scale)


class SwinTransformerBlock(nn.Module):
    """x + stochastic_depth(attn(norm1(x))), then + stochastic_depth(mlp(norm2(.))); the MLP
    (GELU, hidden int(dim * mlp_ratio)) starts as xavier_uniform_ weights and normal(1e-6) biases."""

    def __init__(self, dim: int, num_heads: int, window_size: List[int], shift_size: List[int],
                 mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0, norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
                 attn_layer: Callable[..., nn.Module] = ShiftedWindowAttention) -> None:
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads, attention_dropout=attention_dropout,
                               dropout=dropout)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x: Tensor) -> Tensor:
        x = add(x, self.stochastic_depth(self.attn(self.norm1(x))))
        return add(x, self.stochastic_depth(self.mlp(self.norm2(x))))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """Swin V2's residual post-norm block: x + stochastic_depth(norm1(attn(x))), then
    + stochastic_depth(norm2(mlp(.)))."""

    def __init__(self, dim: int, num_heads: int, window_size: List[int], shift_size: List[int],
                 mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0, norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
                 attn_layer: Callable[..., nn.Module] = ShiftedWindowAttentionV2) -> None:
        super().__init__(dim, num_heads, window_size, shift_size, mlp_ratio=mlp_ratio, dropout=dropout,
                         attention_dropout=attention_dropout, stochastic_depth_prob=stochastic_depth_prob,
                         norm_layer=norm_layer, attn_layer=attn_layer)

    def forward(self, x: Tensor) -> Tensor:
        x = add(x, self.stochastic_depth(self.norm1(self.attn(x))))
        return add(x, self.stochastic_depth(self.norm2(self.mlp(x))))


class SwinTransformer(nn.Module):
    """torchvision.models.SwinTransformer(patch_size, embed_dim, depths, num_heads, window_size,
    mlp_ratio=4.0, dropout=0.0, attention_dropout=0.0, stochastic_depth_prob=0.1,
    num_classes=1000, norm_layer=None, block=None, downsample_layer=PatchMerging): a patch
    convolution and norm (channels-last), stages of blocks (every second one shifted by half a
    window; block i of n drops with probability stochastic_depth_prob * i / (n - 1)) with patch
    merging between them, norm, average pool, head. Linears start as trunc_normal_(std=0.02) with
    biases 0."""

    def __init__(self, patch_size: List[int], embed_dim: int, depths: List[int], num_heads: List[int],
                 window_size: List[int], mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.1, num_classes: int = 1000,
                 norm_layer: Optional[Callable[..., nn.Module]] = None,
                 block: Optional[Callable[..., nn.Module]] = None,
                 downsample_layer: Callable[..., nn.Module] = PatchMerging) -> None:
        super().__init__()
        self.num_classes = num_classes
        block = SwinTransformerBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-5) if norm_layer is None else norm_layer
        layers: List[nn.Module] = [nn.Sequential(
            nn.Conv2d(3, embed_dim, kernel_size=(patch_size[0], patch_size[1]), stride=(patch_size[0], patch_size[1])),
            Permute([0, 2, 3, 1]), norm_layer(embed_dim))]
        total = sum(depths)
        index = 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2 ** i_stage
            stage: List[nn.Module] = []
            for i_layer in range(depth):
                stage.append(block(dim, num_heads[i_stage], window_size=window_size,
                                   shift_size=[0 if i_layer % 2 == 0 else s // 2 for s in window_size],
                                   mlp_ratio=mlp_ratio, dropout=dropout, attention_dropout=attention_dropout,
                                   stochastic_depth_prob=stochastic_depth_prob * float(index) / (total - 1),
                                   norm_layer=norm_layer))
                index += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.flatten(self.avgpool(self.permute(self.norm(self.features(x))))))


# name: (embed_dim, depths, num_heads, window side, stochastic depth probability, version 2).
_CONFIGS = {"swin_t": (96, [2, 2, 6, 2], [3, 6, 12, 24], 7, 0.2, False),
            "swin_s": (96, [2, 2, 18, 2], [3, 6, 12, 24], 7, 0.3, False),
            "swin_b": (128, [2, 2, 18, 2], [4, 8, 16, 32], 7, 0.5, False),
            "swin_v2_t": (96, [2, 2, 6, 2], [3, 6, 12, 24], 8, 0.2, True),
            "swin_v2_s": (96, [2, 2, 18, 2], [3, 6, 12, 24], 8, 0.3, True),
            "swin_v2_b": (128, [2, 2, 18, 2], [4, 8, 16, 32], 8, 0.5, True)}


def _swin(name: str, weights: Any, kwargs: Any) -> SwinTransformer:
    refuse_pretrained(name, weights, kwargs)
    embed_dim, depths, num_heads, window, sd_prob, v2 = _CONFIGS[name]
    if v2:
        kwargs = {"block": SwinTransformerBlockV2, "downsample_layer": PatchMergingV2, **kwargs}
    return SwinTransformer(patch_size=[4, 4], embed_dim=embed_dim, depths=depths, num_heads=num_heads,
                           window_size=[window, window], stochastic_depth_prob=sd_prob, **kwargs)


def swin_t(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin-T (window 7, stochastic depth 0.2)."""
    return _swin("swin_t", weights, kwargs)


def swin_s(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin-S (window 7, stochastic depth 0.3)."""
    return _swin("swin_s", weights, kwargs)


def swin_b(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin-B (window 7, stochastic depth 0.5)."""
    return _swin("swin_b", weights, kwargs)


def swin_v2_t(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin V2-T (window 8, stochastic depth 0.2)."""
    return _swin("swin_v2_t", weights, kwargs)


def swin_v2_s(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin V2-S (window 8, stochastic depth 0.3)."""
    return _swin("swin_v2_s", weights, kwargs)


def swin_v2_b(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> SwinTransformer:
    """Swin V2-B (window 8, stochastic depth 0.5)."""
    return _swin("swin_v2_b", weights, kwargs)
