"""Accepting parameters the way users hold them: a Module, model.parameters(),
model.named_parameters(), or a list of tensors."""
from __future__ import annotations

from typing import List, Tuple

from .._tensor import Tensor


def named_tensors(params) -> List[Tuple[str, Tensor]]:
    from ..nn import Module  # imported late: nn imports the tensor module, not debug

    if isinstance(params, Module):
        return list(params.named_parameters())
    if isinstance(params, Tensor):
        params = [params]
    out = []
    for i, p in enumerate(params):
        if isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], Tensor):
            out.append((str(p[0]), p[1]))
        elif isinstance(p, Tensor):
            out.append((p.name or f"parameter {i} {list(p.shape)}", p))
        else:
            raise TypeError(f"expected glassgrad tensors (model.parameters()), got {type(p).__name__} at position {i}")
    return out
