"""The Transformer of "Attention Is All You Need" with PyTorch's classes, arguments, submodule
names (so state_dicts load both ways) and masks: TransformerEncoderLayer, TransformerDecoderLayer,
TransformerEncoder, TransformerDecoder and Transformer.

A layer is attention and a feed-forward block, each wrapped in dropout, a residual connection and
a LayerNorm: after the sum (post-norm, norm_first=False, the paper's and PyTorch's default) or
before the block (pre-norm, norm_first=True). A mask equal to generate_square_subsequent_mask's is
recognized (as PyTorch's _detect_is_causal_mask does) and runs on the attention kernel's causal
path, which skips the hidden half of the scores instead of adding -inf to them.
"""
from __future__ import annotations

import copy
import warnings
import weakref
from typing import Callable, Optional, Union

import numpy as np

from .. import _C, _args, _dtypes, _trace
from .. import functional as F
from .._tensor import RefusedValueError, Tensor, tensor
from ._nested_path import nested_padding
from .attention import MultiheadAttention
from .container import ModuleList
from .init import xavier_uniform_
from .layers import GELU, Dropout, LayerNorm, Linear, ReLU
from .module import Module

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _activation(activation, where: str):
    """'relu' or 'gelu' -> the function; a callable (a function or a Module) as it is."""
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RefusedValueError(f"{where}: activation should be relu/gelu, not {activation}\n"
                                f"  fix: activation='gelu', or pass a function such as glassgrad.nn.functional.silu")
    if not callable(activation):
        _args.fail(where, "activation", "'relu', 'gelu' or a callable", activation, type_error=True)
    return activation


def _square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    mask = np.triu(np.full((sz, sz), -np.inf, dtype=np.dtype(_dtypes.plain(dtype or _dtypes.DEFAULT_FLOAT))), k=1)
    return tensor(mask, device=device)


# The last mask _detect_is_causal compared, and the answer: a training loop passes the same mask
# every step, and comparing it reads its values (a realize) each time otherwise.
_causal_seen: dict = {"ref": None, "answer": False}


def _detect_is_causal(mask: Optional[Tensor], is_causal: Optional[bool], size: Optional[int]) -> bool:
    """PyTorch's _detect_is_causal_mask: is_causal when given; else whether `mask` equals
    generate_square_subsequent_mask of its size (float) or its bool twin (True above the
    diagonal)."""
    if is_causal is not None:
        return bool(is_causal)
    if mask is None or mask.ndim != 2:
        return False
    sz = size if size is not None else mask.shape[-2]
    if tuple(mask.shape) != (sz, sz):
        return False
    ref = _causal_seen["ref"]
    if ref is not None and ref() is mask:
        return _causal_seen["answer"]
    values = mask.numpy(force=True)
    upper = np.triu(np.ones((sz, sz), bool), k=1)
    if values.dtype == np.bool_:
        answer = bool(np.array_equal(values, upper))
    else:
        answer = bool(np.all(values[upper] == -np.inf) and np.all(values[~upper] == 0))
    _causal_seen.update(ref=weakref.ref(mask), answer=answer)
    return answer


def _seq_len(x: Tensor, batch_first: bool) -> int:
    if x.ndim == 2:
        return x.shape[0]
    return x.shape[1 if batch_first else 0]


def _build_layer(layer: Module, name: str, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                 batch_first, norm_first, bias, device, dtype, cross: bool) -> None:
    """The submodules of an encoder layer (cross=False) or a decoder layer (cross=True: the
    attention over memory, a third LayerNorm and dropout), assigned in PyTorch's order, which is
    the order of their state_dict entries."""
    where = _args.call(name, d_model, nhead)
    d_model = _args.integer(d_model, "d_model", where, minimum=1)
    dim_feedforward = _args.integer(dim_feedforward, "dim_feedforward", where, minimum=1)
    factory = dict(device=device, dtype=dtype)

    def attention():
        return MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory)

    def norm():
        return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
    layer.self_attn = attention()
    if cross:
        layer.multihead_attn = attention()
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
    layer.norm_first = _args.switch(norm_first)
    for i in range(1, 4 if cross else 3):
        setattr(layer, f"norm{i}", norm())
    for i in range(1, 4 if cross else 3):
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _activation(activation, where)


class TransformerEncoderLayer(Module):
    """self-attention and feed-forward, each with dropout, a residual and a LayerNorm:

        norm_first=False:  x = norm1(x + sa(x));  x = norm2(x + ff(x))
        norm_first=True:   x = x + sa(norm1(x));  x = x + ff(norm2(x))
        sa(x) = dropout1(self_attn(x, x, x)),  ff(x) = dropout2(linear2(dropout(activation(linear1(x)))))

    forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        _build_layer(self, "TransformerEncoderLayer", d_model, nhead, dim_feedforward, dropout, activation,
                     layer_norm_eps, batch_first, norm_first, bias, device, dtype, cross=False)
        # PyTorch's record of the activation (1 relu, 2 gelu, 0 other) that its fast path reads
        act = self.activation
        self.activation_relu_or_gelu = 1 if act is F.relu or isinstance(act, ReLU) else \
            2 if act is F.gelu or isinstance(act, GELU) else 0

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """self-attention, attention over the encoder's output (memory) and feed-forward, each with
    dropout, a residual and a LayerNorm (norm1, norm2, norm3; before the block with norm_first).
    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        _build_layer(self, "TransformerDecoderLayer", d_model, nhead, dim_feedforward, dropout, activation,
                     layer_norm_eps, batch_first, norm_first, bias, device, dtype, cross=True)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _clones(layer: Module, n: int, where: str) -> ModuleList:
    n = _args.integer(n, "num_layers", where, minimum=0)
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer (deep copies: each trains its own parameters), then norm
    (optional). forward(src, mask=None, src_key_padding_mask=None, is_causal=None): is_causal=None
    detects whether mask is the square subsequent mask."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = len(self.layers)
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor  # glassgrad has no nested tensors: _nested_path.py
        self.use_nested_tensor = enable_nested_tensor and not _why_not_nested(encoder_layer, enable_nested_tensor)
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: Optional[bool] = None) -> Tensor:
        batch_first = bool(self.layers) and self.layers[0].self_attn.batch_first
        causal = _detect_is_causal(mask, is_causal, _seq_len(src, batch_first))
        padded = nested_padding(self, src, mask, src_key_padding_mask)
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=causal, src_key_padding_mask=src_key_padding_mask)
        if padded is not None:  # PyTorch's nested-tensor path returns the padded positions as zeros
            out = out.masked_fill(padded.unsqueeze(-1), 0.0)  # type: ignore[attr-defined]  # attached at import
        return self.norm(out) if self.norm is not None else out


def _why_not_nested(layer, enable_nested_tensor: bool) -> str:
    """Why PyTorch's TransformerEncoder would not use nested tensors for `layer` ('' when it
    would), and its UserWarning saying so when enable_nested_tensor asked for them: the warning
    most ported scripts print (batch_first=False is the default). Only the message is kept:
    glassgrad's encoder computes the same values either way."""
    why = _nested_blocker(layer)
    if enable_nested_tensor and why:
        warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                      stacklevel=_trace.user_stacklevel())
    return why


def _nested_blocker(layer) -> str:
    """The first of PyTorch's reasons (its order and words) that `layer` keeps the encoder off
    nested tensors; '' when there is none."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = ((layer.norm_first, "norm_first was True"),
               (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for better inference "
                                      "performance)"),
               (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
               (attn.in_proj_bias is None, "self_attn was passed bias=False"),
               (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
               (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {name}.norm2.eps"),
               (attn.num_heads % 2 == 1, "self_attn.num_heads is odd"))
    return next((f"{name}.{why}" for blocked, why in reasons if blocked), "")


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer, then norm (optional). forward(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    tgt_is_causal=None, memory_is_causal=False)."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Optional[Module] = None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = len(self.layers)
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_first = bool(self.layers) and self.layers[0].self_attn.batch_first
        causal = _detect_is_causal(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=causal, memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder of num_encoder_layers and a decoder of num_decoder_layers, each ending in a
    LayerNorm; every parameter of two or more axes initialized xavier_uniform_ (PyTorch's
    _reset_parameters). forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False) -> the decoder's output."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: Union[str, Callable] = F.relu,
                 custom_encoder: Optional[Module] = None, custom_decoder: Optional[Module] = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        layer_args = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                          layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first, bias=bias,
                          device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **layer_args)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **layer_args)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None, memory_key_padding_mask: Optional[Tensor] = None,
                src_is_causal: Optional[bool] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        batched = src.ndim == 3
        axis = 0 if self.batch_first else 1
        if batched and src.shape[axis] != tgt.shape[axis]:
            raise _C.ShapeError(f"Transformer: the batch number of src and tgt must be equal, got {src.shape[axis]} and "
                                f"{tgt.shape[axis]} (src {list(src.shape)}, tgt {list(tgt.shape)}, "
                                f"batch_first={self.batch_first})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise _C.ShapeError(f"Transformer: the feature number of src and tgt must be equal to d_model "
                                f"({self.d_model}), got {src.shape[-1]} and {tgt.shape[-1]}\n  fix: embed the tokens "
                                f"into d_model features first (e.g. nn.Embedding(vocab, {self.d_model}))")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """[sz, sz] float mask: -inf above the diagonal (position i may not attend to j > i), 0 on
        and below it."""
        sz = _args.integer(sz, "sz", "generate_square_subsequent_mask", minimum=0)
        return _square_subsequent_mask(sz, device, dtype)

