"""torchvision.models' Vision Transformer (Dosovitskiy et al. 2020, "An Image is Worth 16x16 Words"):
vit_b_16, vit_b_32, vit_l_16, vit_l_32, vit_h_14, VisionTransformer and ConvStemConfig, with
torchvision's arguments (image_size, dropout, attention_dropout, num_classes, representation_size,
norm_layer, conv_stem_configs), submodule names and order (conv_proj, class_token, encoder with
pos_embedding and layers.encoder_layer_i, heads) and initialization, so state_dicts load both
ways (torchvision's current layout: MLP blocks' linears are mlp.0 and mlp.3)."""
from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial
from typing import Any, Callable, List, MutableMapping, NamedTuple, Optional

import numpy as np

from ... import _C, _factories, nn
from ..._spatial import cat
from ..._runtime import no_grad
from ..._tensor import Tensor, tensor
from ...nn import functional as F
from ._layers import MLP, Conv2dNormActivation
from ._weights import refuse_pretrained

# interpolate_embeddings is used from this module, as torchvision's (not exported by the package).
__all__ = ["VisionTransformer", "ConvStemConfig", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]

_LayerNorm = partial(nn.LayerNorm, eps=1e-6)


class ConvStemConfig(NamedTuple):
    """One Conv2dNormActivation of a convolutional stem (Xiao et al. 2021)."""
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d
    activation_layer: Callable[..., nn.Module] = nn.ReLU


class MLPBlock(MLP):
    """Linear(in_dim, mlp_dim), GELU, Dropout, Linear(mlp_dim, in_dim), Dropout; linears start as
    xavier_uniform_ weights and normal(std=1e-6) biases."""

    _version = 2

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float) -> None:
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)


def _check_rank(layer: str, x: Tensor) -> None:
    if x.dim() != 3:
        raise _C.ShapeError(f"{layer}: Expected (batch_size, seq_length, hidden_dim) got {tuple(x.shape)}\n"
                            f"  fix: pass the token sequence, e.g. x.flatten(2).transpose(1, 2) of a feature map")


class EncoderBlock(nn.Module):
    """Pre-norm transformer block: x + dropout(self_attention(ln_1(x))), then + mlp(ln_2(.))."""

    def __init__(self, num_heads: int, hidden_dim: int, mlp_dim: int, dropout: float, attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = _LayerNorm) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input: Tensor) -> Tensor:
        _check_rank("EncoderBlock", input)
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """pos_embedding (1, seq_length, hidden_dim), normal(std=0.02), added to the input; dropout;
    num_layers EncoderBlocks named encoder_layer_i; a final norm ln."""

    def __init__(self, seq_length: int, num_layers: int, num_heads: int, hidden_dim: int, mlp_dim: int,
                 dropout: float, attention_dropout: float, norm_layer: Callable[..., nn.Module] = _LayerNorm) -> None:
        super().__init__()
        self.pos_embedding = nn.Parameter(_factories.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential()
        for i in range(num_layers):
            self.layers.add_module(f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                                      attention_dropout, norm_layer))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input: Tensor) -> Tensor:
        _check_rank("Encoder", input)
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """torchvision.models.VisionTransformer(image_size, patch_size, num_layers, num_heads,
    hidden_dim, mlp_dim, dropout=0.0, attention_dropout=0.0, num_classes=1000,
    representation_size=None, norm_layer=LayerNorm(eps=1e-6), conv_stem_configs=None): patches
    (a patch_size stride convolution, or the convolutional stem) as tokens after a class token,
    the encoder, the head on the class token. Inputs must be image_size x image_size."""

    def __init__(self, image_size: int, patch_size: int, num_layers: int, num_heads: int, hidden_dim: int,
                 mlp_dim: int, dropout: float = 0.0, attention_dropout: float = 0.0, num_classes: int = 1000,
                 representation_size: Optional[int] = None, norm_layer: Callable[..., nn.Module] = _LayerNorm,
                 conv_stem_configs: Optional[List[ConvStemConfig]] = None) -> None:
        super().__init__()
        if image_size % patch_size != 0:
            raise _C.InvalidArgumentError(
                f"VisionTransformer: Input shape indivisible by patch size! (image_size {image_size}, patch_size "
                f"{patch_size})\n  fix: an image_size that is a multiple of {patch_size}, e.g. "
                f"{max(1, round(image_size / patch_size)) * patch_size}")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer
        self.conv_proj: nn.Module
        if conv_stem_configs is not None:
            stem = nn.Sequential()
            channels = 3
            for i, cfg in enumerate(conv_stem_configs):
                stem.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                    in_channels=channels, out_channels=cfg.out_channels, kernel_size=cfg.kernel_size,
                    stride=cfg.stride, norm_layer=cfg.norm_layer, activation_layer=cfg.activation_layer))
                channels = cfg.out_channels
            stem.add_module("conv_last", nn.Conv2d(in_channels=channels, out_channels=hidden_dim, kernel_size=1))
            self.conv_proj = stem
        else:
            self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim, kernel_size=patch_size,
                                       stride=patch_size)
        self.class_token = nn.Parameter(_factories.zeros(1, 1, hidden_dim))
        self.seq_length = (image_size // patch_size) ** 2 + 1
        self.encoder = Encoder(self.seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        self.heads = nn.Sequential()
        if representation_size is not None:
            self.heads.add_module("pre_logits", nn.Linear(hidden_dim, representation_size))
            self.heads.add_module("act", nn.Tanh())
        self.heads.add_module("head", nn.Linear(hidden_dim if representation_size is None else representation_size,
                                                num_classes))
        self._init_weights()

    def _init_weights(self) -> None:
        """The patch convolution trunc_normal_(std=sqrt(1 / fan_in)) (a stem's last convolution
        normal(std=sqrt(2 / out_channels))), pre_logits trunc_normal_(std=sqrt(1 / fan_in)), the
        head all zeros; biases 0."""
        last = self.conv_proj if isinstance(self.conv_proj, nn.Conv2d) else self.conv_proj.conv_last
        if isinstance(self.conv_proj, nn.Conv2d):
            fan_in = last.in_channels * last.kernel_size[0] * last.kernel_size[1]
            nn.init.trunc_normal_(last.weight, std=math.sqrt(1 / fan_in))
        else:
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
        if last.bias is not None:
            nn.init.zeros_(last.bias)
        if hasattr(self.heads, "pre_logits"):
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / self.heads.pre_logits.in_features))
            nn.init.zeros_(self.heads.pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x: Tensor) -> Tensor:
        n, _, h, w = x.shape
        if h != self.image_size or w != self.image_size:
            raise _C.ShapeError(
                f"VisionTransformer: Wrong image {'height' if h != self.image_size else 'width'}! Expected "
                f"{self.image_size} but got {h if h != self.image_size else w}! (input {tuple(x.shape)})\n"
                f"  cause: the positional embedding has one row per patch of an image_size x image_size image\n"
                f"  fix: resize the input to {self.image_size}x{self.image_size}, or build the model with "
                f"image_size={h}" + ("" if h == w else " on square inputs"))
        p = self.patch_size
        return self.conv_proj(x).reshape(n, self.hidden_dim, (h // p) * (w // p)).permute(0, 2, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = self._process_input(x)
        x = cat([self.class_token.expand(x.shape[0], -1, -1), x], 1)
        return self.heads(self.encoder(x)[:, 0])


# name: (patch_size, num_layers, num_heads, hidden_dim, mlp_dim).
_CONFIGS = {"vit_b_16": (16, 12, 12, 768, 3072), "vit_b_32": (32, 12, 12, 768, 3072),
            "vit_l_16": (16, 24, 16, 1024, 4096), "vit_l_32": (32, 24, 16, 1024, 4096),
            "vit_h_14": (14, 32, 16, 1280, 5120)}


def _vit(name: str, weights: Any, kwargs: Any) -> VisionTransformer:
    refuse_pretrained(name, weights, kwargs)
    patch_size, num_layers, num_heads, hidden_dim, mlp_dim = _CONFIGS[name]
    return VisionTransformer(image_size=kwargs.pop("image_size", 224), patch_size=patch_size, num_layers=num_layers,
                             num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim, **kwargs)


def vit_b_16(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VisionTransformer:
    """ViT-B/16 (image_size=224 by default)."""
    return _vit("vit_b_16", weights, kwargs)


def vit_b_32(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VisionTransformer:
    """ViT-B/32 (image_size=224 by default)."""
    return _vit("vit_b_32", weights, kwargs)


def vit_l_16(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VisionTransformer:
    """ViT-L/16 (image_size=224 by default)."""
    return _vit("vit_l_16", weights, kwargs)


def vit_l_32(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VisionTransformer:
    """ViT-L/32 (image_size=224 by default)."""
    return _vit("vit_l_32", weights, kwargs)


def vit_h_14(*, weights: Any = None, progress: bool = True, **kwargs: Any) -> VisionTransformer:
    """ViT-H/14 (image_size=224 by default; torchvision's weights use 518)."""
    return _vit("vit_h_14", weights, kwargs)


def interpolate_embeddings(image_size: int, patch_size: int, model_state: MutableMapping[str, Any],
                           interpolation_mode: str = "bicubic", reset_heads: bool = False) -> MutableMapping[str, Any]:
    """torchvision.models.vision_transformer.interpolate_embeddings: a state_dict (glassgrad's
    tensors, NumPy arrays, or torch's CPU tensors) whose encoder.pos_embedding is resized for
    image_size: the class token's row kept, the patch rows as a square grid interpolated
    (align_corners=True) to image_size // patch_size a side. The new embedding is stored in
    model_state (a float32 glassgrad tensor on the entry's device, or a NumPy array where the
    entry was not a glassgrad tensor); reset_heads=True returns an OrderedDict without the heads."""
    value = model_state["encoder.pos_embedding"]
    pos = np.asarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)
    n, seq_length, hidden_dim = pos.shape
    if n != 1:
        raise _C.ShapeError(f"interpolate_embeddings: Unexpected position embedding shape: {tuple(pos.shape)}\n"
                            f"  fix: pass a ViT state_dict, whose encoder.pos_embedding is (1, seq_length, hidden_dim)")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length != seq_length:
        side = int(math.sqrt(seq_length - 1))
        if side * side != seq_length - 1:
            raise _C.ShapeError(f"interpolate_embeddings: seq_length is not a perfect square! Instead got "
                                f"seq_length_1d * seq_length_1d = {side * side} and seq_length = {seq_length - 1}\n"
                                f"  fix: a state_dict of a model built for square images")
        grid = pos[:, 1:, :].transpose(0, 2, 1).reshape(1, hidden_dim, side, side)
        with no_grad():
            resized = F.interpolate(tensor(grid), size=image_size // patch_size, mode=interpolation_mode,
                                    align_corners=True).numpy(force=True)
        resized = resized.reshape(1, hidden_dim, new_seq_length - 1).transpose(0, 2, 1)
        new = np.concatenate([pos[:, :1, :], resized], 1).astype(np.float32)
        model_state["encoder.pos_embedding"] = tensor(new, device=value.device) if isinstance(value, Tensor) else new
        if reset_heads:
            model_state = OrderedDict((k, v) for k, v in model_state.items() if not k.startswith("heads"))
    return model_state
