"""Layers on an empty batch (N = 0), as PyTorch runs them: the output is the empty tensor of the
layer's output shape, and backward gives the inputs, weight and bias zero gradients (a sum over
no samples). The convolution kernels' shape rules want sizes >= 1, so the convolutions route an
empty batch here instead of to their ops."""
from __future__ import annotations

from typing import Optional, Sequence

from . import _C
from ._tensor import Tensor


def empty_batch_result(shape: Sequence[int], like: Tensor, *operands: Optional[Tensor]) -> Tensor:
    """Zeros of `shape` (no elements: its batch is 0) in like's dtype and device, connected to the
    operands that require grad through a zero-weighted sum, so each gets a zero gradient."""
    from ._factories import zeros
    out = zeros(shape, dtype=like.dtype, device=like.device)
    linked = [o for o in operands if isinstance(o, Tensor) and o.requires_grad]
    if not linked or not _C.grad_enabled():
        return out
    # (mypy does not see the methods attached to Tensor at import)
    total = linked[0].sum() * 0.0  # type: ignore[attr-defined]
    for o in linked[1:]:
        total = total + o.sum() * 0.0  # type: ignore[attr-defined]
    return out + total.to(out.dtype)
