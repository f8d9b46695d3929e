"""Which padded positions PyTorch's TransformerEncoder returns as zeros: when its nested-tensor
fast path runs (inference: eval mode, no gradient needed, batch_first layers that allow nested
tensors, a left-aligned src_key_padding_mask and no src mask), the padded positions of the
sequences never exist inside the layers and come back as 0.0 (before the final norm). glassgrad
computes every position; the encoder zeroes these to give PyTorch's output (docs/porting.md)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .._runtime import records_grad
from .._tensor import Tensor


def nested_padding(encoder, src: Tensor, mask, src_key_padding_mask) -> Optional[Tensor]:
    """The bool [N, S] padded positions when PyTorch's encoder would take its nested path, else
    None. Its conditions, in its order: use_nested_tensor (set when built), the first layer in
    eval mode, a 3-D src, a key padding mask, left-aligned when mask_check, no src mask, autocast
    off, and no gradient needed (grad mode off, or neither src nor the first layer's parameters
    require it)."""
    from ..amp.autocast_mode import is_autocast_enabled  # CUDA's autocast, as torch.is_autocast_enabled()
    if not getattr(encoder, "use_nested_tensor", False) or not encoder.layers:
        return None
    first = encoder.layers[0]
    if first.training or not isinstance(src, Tensor) or src.ndim != 3 or src_key_padding_mask is None:
        return None
    kpm = src_key_padding_mask
    padded = kpm if kpm.dtype == "bool" else kpm != 0  # a float mask: nonzero where not allowed
    valid = ~padded.numpy(force=True).astype(bool)
    if encoder.mask_check and not bool(np.all(valid[:, 1:] <= valid[:, :-1])):  # each row: valid, then padded
        return None
    if mask is not None or is_autocast_enabled():
        return None
    if records_grad() and (src.requires_grad or any(p.requires_grad for p in first.parameters())):
        return None
    return padded
