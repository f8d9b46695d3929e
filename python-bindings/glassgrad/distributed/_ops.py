"""Collectives on glassgrad tensors, recorded as AllReduce nodes (so they run inside the step's
plan, and differentiate: an all-reduce is its own adjoint)."""
from __future__ import annotations

from .._tensor import Tensor, _op
from . import _group


def all_reduce(t: Tensor, op: str = "sum") -> Tensor:
    """Sum (or "average") of t over all ranks, as a new tensor (PyTorch's all_reduce works in
    place; glassgrad records a node and returns its value)."""
    g = _group._require()
    return _op("AllReduce", [t], {"group": g.gid, "op": op, "world_size": g.world_size, "bucket": -1})


def broadcast(t: Tensor, src: int = 0) -> Tensor:
    """Rank src's t on every rank: the all-reduce of t on src and zeros elsewhere (exact: adding
    zeros changes no bit)."""
    import numpy as np
    g = _group._require()
    contribution = t if g.rank == src else Tensor(np.zeros(t.shape, t.dtype), device=t.device)
    return all_reduce(contribution, "sum")
