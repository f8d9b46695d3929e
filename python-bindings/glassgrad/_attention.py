"""torch.nn.functional.scaled_dot_product_attention on glassgrad's fused attention op.

One ScaledDotProductAttention node computes softmax(scale * Q K^T + mask) V without storing the
[L, S] probabilities (docs/attention.md: the online softmax, its gradient and the kernels); this
module turns PyTorch's arguments into that node's inputs:

- a bool attn_mask (True = take part in attention) becomes the additive mask 0 / -inf, a float
  mask is added as it is; both keep their own shape and broadcast inside the kernel;
- is_causal masks key j > query i (the triangle aligned at the top left, also when L != S);
- grouped-query attention (enable_gqa: fewer key/value heads than query heads) reads each key
  head for its group of query heads through a stride-0 axis: no copy of the keys;
- dropout_p > 0 draws a seed for the kernel's counter-based dropout (a new one each call, from
  glassgrad's generator: glassgrad.manual_seed makes it repeatable), so the backward regenerates
  the forward's mask instead of storing it.
"""
from __future__ import annotations

import math
from typing import Optional

from . import _C, _args, _autocast, _sdpa_backends
from ._random import dropout_seed
from ._tensor import Tensor, _op, _op_multi, _scalar_like, tensor
from ._torch_operands import named_node, node_attrs

_WHERE = "scaled_dot_product_attention"


def _check_tensor(value, name: str) -> Tensor:
    if not isinstance(value, Tensor):
        _args.fail(_WHERE, name, "a glassgrad.Tensor", value, fix=f"{name} = glassgrad.tensor({name})",
                   type_error=True)
    return value


def additive_mask(mask: Tensor, like: Tensor) -> Tensor:
    """The additive form of an attention mask for scores of `like`'s dtype: a bool mask (True =
    attend) as 0 / -inf, a float mask of that dtype as it is."""
    if mask.dtype == "bool":
        return _op("Where", [mask, _scalar_like(0.0, like), _scalar_like(-math.inf, like)])
    if mask.dtype != like.dtype:
        raise _C.DTypeError(f"{_WHERE}: attn_mask must be bool or have the query's dtype {like.dtype}, got "
                            f"{mask.dtype} {list(mask.shape)}\n  fix: attn_mask.to(dtype=query.dtype), or a bool "
                            f"mask (True = attend)")
    return mask


def _group_heads(query: Tensor, key: Tensor, value: Tensor, mask: Optional[Tensor]):
    """enable_gqa: query heads [.., Hq, L, E] in groups of G = Hq / Hk over Hk key heads. With one
    head count for key and value, query (and a per-head mask) are split into [.., Hk, G, L, .]
    and key and value get a size-1 group axis that the op broadcasts; otherwise key and value
    are repeated per group (repeat_interleave, as PyTorch does)."""
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk or hq % hv:
        raise _C.InvalidArgumentError(
            f"{_WHERE}: with enable_gqa=True the number of query heads ({hq}) must be a multiple of the key heads "
            f"({hk}) and the value heads ({hv})\n  query: {list(query.shape)}  key: {list(key.shape)}  value: "
            f"{list(value.shape)}\n  fix: choose num_heads divisible by the number of key/value heads")
    if hk != hv:
        return query, _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv), mask, None
    g = hq // hk
    lead = list(query.shape[:-3])
    q = query.reshape(lead + [hk, g] + list(query.shape[-2:]))
    k = key.unsqueeze(-3)
    v = value.unsqueeze(-3)
    if mask is not None and mask.ndim >= 3:
        if mask.shape[-3] == hq:
            mask = mask.reshape(list(mask.shape[:-3]) + [hk, g] + list(mask.shape[-2:]))
        else:
            mask = mask.unsqueeze(-3)
    shape = list(query.shape[:-1]) + [value.shape[-1]]
    return q, k, v, mask, shape


def _repeat_heads(t: Tensor, times: int) -> Tensor:
    """repeat_interleave(times, dim=-3): each head `times` times in a row."""
    if times == 1:
        return t
    s = list(t.shape)
    grown = t.unsqueeze(-3).expand(s[:-2] + [times] + s[-2:])
    return grown.reshape(s[:-3] + [s[-3] * times] + s[-2:])


@_autocast.op("scaled_dot_product_attention")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + attn_mask) @ value, with dropout on the probabilities
    (PyTorch's F.scaled_dot_product_attention).

    query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev]; the leading axes
    broadcast. attn_mask: bool (True = attend) or float (added to the scores), broadcastable to
    [..., L, S]. is_causal: query i attends keys j <= i (not with attn_mask). scale: default
    1 / sqrt(E). enable_gqa: key and value may have fewer heads (axis -3) than query. Note that
    dropout_p applies whenever it is > 0, in training and evaluation alike, as in PyTorch: pass
    `dropout_p if self.training else 0.0` from a layer."""
    query, key, value = _check_tensor(query, "query"), _check_tensor(key, "key"), _check_tensor(value, "value")
    _sdpa_backends.check(query.device.type)
    p = _args.real(dropout_p, "dropout_p", _WHERE, maximum=1.0, fix="dropout_p=0.1")
    p = max(p, 0.0)  # PyTorch treats a negative probability as no dropout
    causal = _args.flag(is_causal, "is_causal", _WHERE)
    gqa = _args.flag(enable_gqa, "enable_gqa", _WHERE)
    mask = None
    if attn_mask is not None:
        if causal:
            raise _C.InvalidArgumentError(f"{_WHERE}: attn_mask and is_causal=True were both given; PyTorch refuses "
                                          f"the pair\n  fix: pass is_causal=True alone for a causal mask, or fold the "
                                          f"causal triangle into attn_mask")
        mask = additive_mask(_check_tensor(attn_mask, "attn_mask") if isinstance(attn_mask, Tensor)
                             else tensor(attn_mask, device=query.device), query)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1]) if query.ndim and query.shape[-1] else math.inf
    else:
        scale = _args.real(scale, "scale", _WHERE, fix="scale=None uses 1 / sqrt(query.shape[-1])")
    out_shape = None
    heads_differ = min(query.ndim, key.ndim, value.ndim) >= 3 and \
        len({query.shape[-3], key.shape[-3], value.shape[-3]}) > 1
    if gqa and heads_differ:
        query, key, value, mask, out_shape = _group_heads(query, key, value, mask)
    inputs = [query, key, value]
    attrs = {"scale": float(scale), "is_causal": causal}
    if mask is not None:
        inputs.append(mask)
        attrs["masked"] = True
    if p > 0.0:
        inputs.append(dropout_seed(query.device, "attention dropout seed"))
        attrs["dropout_p"] = p
    # PyTorch's CPU node (its flash kernel, which runs without dropout for 3-d and 4-d inputs;
    # a 3-d input is unsqueezed into it and its output squeezed back)
    flash = p == 0.0 and query.device.type == "cpu" and query.ndim in (3, 4) and out_shape is None
    if flash:
        attrs.update(node_attrs("ScaledDotProductFlashAttentionForCpuBackward0", inputs, query, key, value))
    out = _op_multi("ScaledDotProductAttention", inputs, attrs)[0]
    if flash and query.ndim == 3:
        return named_node(out, "SqueezeBackward1", out)
    return out.reshape(out_shape) if out_shape is not None else out
