"""nn.MultiheadAttention and F.multi_head_attention_forward with PyTorch's parameters, masks and
return values, on glassgrad's fused attention op (docs/attention.md).

The projections are one MatMul for self-attention (in_proj_weight [3E, E] at once; its q, k and v
parts are column slices of the result, read by the attention kernel through their strides) or
one per input otherwise. Heads are a reshape and a permutation (views); without need_weights the
heads run through scaled_dot_product_attention, which never stores the [L, S] probabilities;
need_weights=True (the layer's default, as in PyTorch) computes them explicitly, because they
are returned.

Masks follow PyTorch's convention for this layer: a bool attn_mask or key_padding_mask is True
where attention is NOT allowed (the opposite of scaled_dot_product_attention's), a float mask is
added to the scores. key_padding_mask [N, S] broadcasts over heads and queries inside the kernel.
"""
from __future__ import annotations

import math
import warnings
from typing import Optional, Tuple

import numpy as np

from .. import _C, _args
from .. import functional as F
from .._attention import scaled_dot_product_attention
from .._sdpa_backends import SDPBackend, sdpa_kernel  # noqa: F401  (torch.nn.attention's names)
from .._padding import pad
from .._spatial import cat, dropout
from .._tensor import Tensor, _op, _scalar_like, tensor
from .._torch_operands import named_node
from .init import constant_, xavier_normal_, xavier_uniform_
from .layers import Linear, as_bfloat16, parameter_dtype
from .module import Module, Parameter

_WHERE = "multi_head_attention_forward"


class AttentionShapeError(_C.ShapeError, AssertionError):
    """A shape PyTorch's multi_head_attention_forward checks with an assert (ranks, embedding
    size, key and value shapes, key_padding_mask's shape): an AssertionError there, glassgrad's
    shape errors are ValueErrors and RuntimeErrors; this is all of them."""


class AttentionMaskDTypeError(_C.DTypeError, AssertionError):
    """A mask that is neither bool nor floating: PyTorch's _canonical_mask asserts it."""


def _float_mask(mask: Optional[Tensor], name: str, like: Tensor) -> Optional[Tensor]:
    """PyTorch's canonical mask: bool True (not allowed) -> -inf, False -> 0; a float mask as it is."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        mask = tensor(mask, device=like.device)
    if mask.dtype == "bool":
        return _op("Where", [mask, _scalar_like(-math.inf, like), _scalar_like(0.0, like)])
    if mask.dtype not in ("float32", "float64"):
        raise AttentionMaskDTypeError(f"{_WHERE}: only bool and floating types of {name} are supported, got "
                                      f"{mask.dtype}\n  fix: {name}.bool() (True = not allowed to attend)")
    return mask if mask.dtype == like.dtype else mask.astype(like.dtype)


def _warn_mismatched_masks(key_padding_mask, attn_mask) -> None:
    """PyTorch's _canonical_mask deprecation: a key_padding_mask of another dtype than attn_mask
    (bool with float, float32 with float64) still works, with this UserWarning."""
    kd, ad = getattr(key_padding_mask, "dtype", None), getattr(attn_mask, "dtype", None)
    if kd is not None and ad is not None and kd != ad:
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both "
                      "instead.", UserWarning, stacklevel=4)


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Whether the input is batched, after PyTorch's rank checks (_mha_shape_check)."""
    def fail(msg):
        raise AttentionShapeError(f"{_WHERE}: {msg}")
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            fail(f"for batched (3-D) query, expected key and value to be 3-D but found {key.ndim}-D and "
                 f"{value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            fail(f"for batched (3-D) query, expected key_padding_mask to be None or 2-D but found "
                 f"{key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            fail(f"for batched (3-D) query, expected attn_mask to be None, 2-D or 3-D but found {attn_mask.ndim}-D "
                 f"tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            fail(f"for unbatched (2-D) query, expected key and value to be 2-D but found {key.ndim}-D and "
                 f"{value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            fail(f"for unbatched (2-D) query, expected key_padding_mask to be None or 1-D but found "
                 f"{key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                fail(f"for unbatched (2-D) query, expected attn_mask to be None, 2-D or 3-D but found "
                     f"{attn_mask.ndim}-D tensor instead")
            want = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != want:
                fail(f"expected attn_mask of shape {want} but got {tuple(attn_mask.shape)}")
        return False
    fail(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor\n"
         f"  fix: pass [L, N, E] (batch_first=False), [N, L, E] (batch_first=True) or [L, E]")


def _project(x: Tensor, w: Tensor, b: Optional[Tensor]) -> Tensor:
    return F.linear(x, w, b)


def _slice_rows(t: Optional[Tensor], i: int, e: int) -> Optional[Tensor]:
    return None if t is None else t[i * e:(i + 1) * e]


def _in_projection(query, key, value, e, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w):
    """q, k, v [N, *, E] from the inputs [N, *, E_in]: one MatMul for self-attention (its result's
    three column blocks are views), two when key is value, three otherwise."""
    if separate:
        return (_project(query, q_w, _slice_rows(in_proj_bias, 0, e)),
                _project(key, k_w, _slice_rows(in_proj_bias, 1, e)),
                _project(value, v_w, _slice_rows(in_proj_bias, 2, e)))
    if query is key and key is value:
        qkv = _project(query, in_proj_weight, in_proj_bias)
        return qkv[..., :e], qkv[..., e:2 * e], qkv[..., 2 * e:]
    w_q, w_kv = in_proj_weight[:e], in_proj_weight[e:]
    b_q, b_kv = (None, None) if in_proj_bias is None else (in_proj_bias[:e], in_proj_bias[e:])
    q = _project(query, w_q, b_q)
    if key is value:
        kv = _project(key, w_kv, b_kv)
        return q, kv[..., :e], kv[..., e:]
    return (q, _project(key, w_kv[:e], None if b_kv is None else b_kv[:e]),
            _project(value, w_kv[e:], None if b_kv is None else b_kv[e:]))


def _heads(x: Tensor, n: int, h: int, hd: int) -> Tensor:
    """[N, T, H * hd] -> [N, H, T, hd] (a reshape and a permutation: views)."""
    return x.reshape(n, x.shape[1], h, hd).permute(0, 2, 1, 3)


def _cat_zero_row(x: Tensor, dim: int) -> Tensor:
    shape = list(x.shape)
    shape[dim] = 1
    return cat([x, tensor(np.zeros(shape, dtype=x.dtype), device=x.device)], dim)


def attention_batch_first(query: Tensor, key: Tensor, value: Tensor, num_heads: int, in_proj_weight, in_proj_bias,
                          bias_k, bias_v, add_zero_attn: bool, dropout_p: float, out_proj_weight, out_proj_bias,
                          training: bool, key_padding_mask, need_weights: bool, attn_mask, separate: bool,
                          q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
                          average_attn_weights: bool, is_causal: bool) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention on batched [N, L, E] query and [N, S, E_k], [N, S, E_v] key and
    value, with masks already checked for rank; returns ([N, L, E], weights or None)."""
    n, tgt_len, e = query.shape
    h = num_heads
    hd = e // h
    _warn_mismatched_masks(key_padding_mask, attn_mask)
    kpm = _float_mask(key_padding_mask, "key_padding_mask", query)
    if is_causal and attn_mask is None:
        raise _C.InvalidArgumentError(
            f"{_WHERE}: Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            f"`generate_square_subsequent_mask` to create this mask.")
    if is_causal and kpm is None and not need_weights:
        mask = None  # the causal kernel path; attn_mask is the hint's causal mask
    else:
        mask = _float_mask(attn_mask, "attn_mask", query)
        if kpm is not None:
            is_causal = False
    q, k, v = _in_projection(query, key, value, e, in_proj_weight, in_proj_bias, separate, q_proj_weight,
                             k_proj_weight, v_proj_weight)
    src_len = key.shape[1]
    if mask is not None:
        want = (tgt_len, src_len) if mask.ndim == 2 else (n * h, tgt_len, src_len)
        if tuple(mask.shape) != want:
            raise _C.ShapeError(f"{_WHERE}: the shape of the {mask.ndim}D attn_mask is {tuple(mask.shape)}, but "
                                f"should be {want}.\n  fix: an [L, S] mask for every head and batch element, or "
                                f"[N * num_heads, L, S]")
        mask = mask.reshape(1, 1, tgt_len, src_len) if mask.ndim == 2 else mask.reshape(n, h, tgt_len, src_len)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise _args.AssertedArgumentError(f"{_WHERE}: bias cannot be added to static key or value")
        k = cat([k, bias_k.reshape(1, 1, e).expand(n, 1, e)], 1)
        v = cat([v, bias_v.reshape(1, 1, e).expand(n, 1, e)], 1)
        mask = None if mask is None else pad(mask, (0, 1))
        kpm = None if kpm is None else pad(kpm, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise _args.AssertedArgumentError(f"{_WHERE}: bias_k and bias_v must be given together")
    qh = _heads(q, n, h, hd)
    kh = _heads(k, n, h, hd) if static_k is None else _static(static_k, n, h, hd, "static_k")
    vh = _heads(v, n, h, hd) if static_v is None else _static(static_v, n, h, hd, "static_v")
    if add_zero_attn:
        kh, vh = _cat_zero_row(kh, 2), _cat_zero_row(vh, 2)
        mask = None if mask is None else pad(mask, (0, 1))
        kpm = None if kpm is None else pad(kpm, (0, 1))
    src_len = kh.shape[2]
    if kpm is not None:
        if tuple(kpm.shape) != (n, src_len):
            raise AttentionShapeError(f"{_WHERE}: expected key_padding_mask of shape {(n, src_len)}, got "
                                      f"{tuple(kpm.shape)}\n  fix: one row per batch element, True at padded keys")
        kpm4 = kpm.reshape(n, 1, 1, src_len)
        mask = kpm4 if mask is None else mask + kpm4
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (qh * math.sqrt(1.0 / hd)) @ kh.transpose(-2, -1)
        if mask is not None:
            scores = scores + mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights @ vh
        if average_attn_weights:
            weights = weights.mean(dim=1)
        else:  # PyTorch's per-head weights: the view of its (N H, L, S) batch as (N, H, L, S)
            weights = named_node(weights, "ViewBackward0")
    else:
        out = scaled_dot_product_attention(qh, kh, vh, mask, dropout_p, is_causal)
        weights = None
    out = out.permute(0, 2, 1, 3).reshape(n * tgt_len, e)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(n, tgt_len, e)
    return out, weights


def _static(t: Tensor, n: int, h: int, hd: int, name: str) -> Tensor:
    if t.ndim != 3 or t.shape[0] != n * h or t.shape[2] != hd:
        raise AttentionShapeError(f"{_WHERE}: expecting {name} of shape ({n * h}, S, {hd}), got {tuple(t.shape)}")
    return t.reshape(n, h, t.shape[1], hd)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
                                 bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
                                 training: bool = True, key_padding_mask: Optional[Tensor] = None,
                                 need_weights: bool = True, attn_mask: Optional[Tensor] = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
                                 k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
                                 static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
                                 average_attn_weights: bool = True, is_causal: bool = False):
    """PyTorch's F.multi_head_attention_forward: query [L, N, E] (or unbatched [L, E]), key and
    value [S, N, E_k|E_v]; returns (attn_output [L, N, E], attn_output_weights [N, L, S] averaged
    over heads, [N, H, L, S] with average_attn_weights=False, or None without need_weights)."""
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    out, weights = _batch_first_call(query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1),
                                     embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                                     add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training,
                                     key_padding_mask, need_weights, attn_mask, use_separate_proj_weight,
                                     q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
                                     average_attn_weights, is_causal)
    # PyTorch computes in (L, N, E), its output the view of the out-projection's rows (ViewBackward0)
    out = named_node(out.transpose(0, 1), "ViewBackward0")
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights


def _batch_first_call(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                      add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask,
                      need_weights, attn_mask, separate, q_proj_weight, k_proj_weight, v_proj_weight, static_k,
                      static_v, average_attn_weights, is_causal):
    """Checks the sizes PyTorch checks, then attention_batch_first."""
    n, _, e = query.shape
    if e != embed_dim_to_check:
        raise AttentionShapeError(f"{_WHERE}: was expecting embedding dimension of {embed_dim_to_check}, but got "
                                  f"{e}\n  query: {list(query.shape)}\n  fix: give the query {embed_dim_to_check} "
                                  f"features in its last axis")
    if e % num_heads:
        raise _args.AssertedArgumentError(f"{_WHERE}: embed_dim {e} not divisible by num_heads {num_heads}")
    if separate:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AttentionShapeError(f"{_WHERE}: key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                      f"match value's {tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AttentionShapeError(f"{_WHERE}: key shape {tuple(key.shape)} does not match value shape "
                                  f"{tuple(value.shape)}\n  fix: build the layer with kdim and vdim for keys and "
                                  f"values of other sizes")
    if key.shape[0] != n:
        raise _C.ShapeError(f"{_WHERE}: query has batch size {n} but key has {key.shape[0]}")
    dropout_p = _args.real(dropout_p, "dropout_p", _WHERE, minimum=0.0, maximum=1.0)
    return attention_batch_first(query, key, value, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                                 add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask,
                                 need_weights, attn_mask, separate, q_proj_weight, k_proj_weight, v_proj_weight,
                                 static_k, static_v, average_attn_weights, is_causal)


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's out_proj: a Linear under the class name PyTorch gives it (so the layer
    prints, and scripts that test its type behave, as in PyTorch)."""


class MultiheadAttention(Module):
    """Multi-head attention (PyTorch's nn.MultiheadAttention, same parameters and names):

        out = concat_h(softmax(Q_h K_h^T / sqrt(d) + mask) V_h) W_o^T + b_o,
        Q = query W_q^T + b_q,  K = key W_k^T + b_k,  V = value W_v^T + b_v,  d = embed_dim / num_heads

    with W_q, W_k, W_v the row blocks of in_proj_weight [3 E, E] (or q_proj_weight, k_proj_weight
    and v_proj_weight when kdim or vdim differ from embed_dim) and out_proj a Linear(E, E).
    forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False) -> (attn_output, attn_output_weights or None);
    inputs are [L, N, E] ([N, L, E] with batch_first=True) or unbatched [L, E]."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device=None, dtype=None):
        super().__init__()
        where = _args.call("MultiheadAttention", embed_dim, num_heads)
        says = f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead"
        self.embed_dim = _args.integer_as_pytorch(embed_dim, "embed_dim", where, 1, says, fix="MultiheadAttention(512, 8)")
        self.num_heads = _args.integer_as_pytorch(num_heads, "num_heads", where, 1, says, fix="MultiheadAttention(512, 8)")
        self.kdim = self.embed_dim if kdim is None else _args.integer(kdim, "kdim", where, minimum=1)
        self.vdim = self.embed_dim if vdim is None else _args.integer(vdim, "vdim", where, minimum=1)
        self._qkv_same_embed_dim = self.kdim == self.embed_dim and self.vdim == self.embed_dim
        self.dropout = _args.real(dropout, "dropout", where, minimum=0.0, maximum=1.0)
        self.batch_first = _args.switch(batch_first)
        self.add_zero_attn = _args.switch(add_zero_attn)
        bias = _args.switch(bias)
        add_bias_kv = _args.switch(add_bias_kv)
        self.head_dim = self.embed_dim // self.num_heads
        if self.head_dim * self.num_heads != self.embed_dim:
            raise _args.AssertedArgumentError(
                f"{where}: embed_dim must be divisible by num_heads (each head gets embed_dim / num_heads features)"
                f"\n  fix: MultiheadAttention({self.embed_dim - self.embed_dim % self.num_heads or self.num_heads}, "
                f"{self.num_heads})")
        e = self.embed_dim
        dt = parameter_dtype(dtype, where)

        def empty(*shape):  # filled by _reset_parameters
            return Parameter(np.zeros(shape, dt), device=device)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * e, e)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:  # PyTorch's order of _parameters: the three, then in_proj_weight declared as None
            self.q_proj_weight = empty(e, e)
            self.k_proj_weight = empty(e, self.kdim)
            self.v_proj_weight = empty(e, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = empty(3 * e)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(e, e, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = empty(1, 1, e)
            self.bias_v = empty(1, 1, e)
        else:
            self.bias_k = self.bias_v = None
        self._reset_parameters()
        as_bfloat16(self, dtype)

    def _reset_parameters(self) -> None:
        """PyTorch's: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k and bias_v."""
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                xavier_uniform_(w)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
            xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None,
                need_weights: bool = True, attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> Tuple[Tensor, Optional[Tensor]]:
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention expects glassgrad Tensors, got {type(t).__name__} for {name}\n"
                                f"  fix: {name} = glassgrad.tensor({name})")
        batched = _shape_check(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        args = dict(embed_dim_to_check=self.embed_dim, num_heads=self.num_heads, in_proj_weight=self.in_proj_weight,
                    in_proj_bias=self.in_proj_bias, bias_k=self.bias_k, bias_v=self.bias_v,
                    add_zero_attn=self.add_zero_attn, dropout_p=self.dropout, out_proj_weight=self.out_proj.weight,
                    out_proj_bias=self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
                    need_weights=_args.switch(need_weights),
                    attn_mask=attn_mask, separate=not self._qkv_same_embed_dim,
                    q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                    v_proj_weight=self.v_proj_weight, static_k=None, static_v=None,
                    average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not (self.batch_first and batched):
            args["use_separate_proj_weight"] = args.pop("separate")
            return multi_head_attention_forward(query, key, value, **args)
        out, weights = _batch_first_call(query, key, value, **args)
        # PyTorch's batch_first layer transposes F.multi_head_attention_forward's output back
        return named_node(out, "TransposeBackward0"), weights
