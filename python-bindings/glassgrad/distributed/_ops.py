"""Collectives on glassgrad tensors, recorded as AllReduce nodes (so they run inside the step's
plan, and differentiate: an all-reduce is its own adjoint), and the ones built on them (a
barrier, the all-reduce of a Python number). The process group (_group.py) knows none of them."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _op, tensor
from . import _group


def all_reduce(t: Tensor, op: str = "sum") -> Tensor:
    """Sum (or "average") of t over all ranks, as a new tensor (PyTorch's all_reduce works in
    place; glassgrad records a node and returns its value)."""
    g = _group._require()
    return _op("AllReduce", [t], {"group": g.gid, "op": op, "world_size": g.world_size, "bucket": -1})


def broadcast_(t: Tensor, src: int = 0) -> None:
    """Gives t (a parameter or buffer) rank src's values on every rank, in place (the tensor
    keeps its identity: optimizers holding it see the new values)."""
    from .. import _C, cuda
    from ..nn.module import assign_data
    g = _group._require()
    raw = _C.Tensor.from_numpy(np.ascontiguousarray(t.numpy(force=True)), t.device)
    on_gpu = t.device.startswith("cuda")
    if on_gpu:
        cuda.synchronize(t.device)
    _C.communicator_broadcast(g.gid, raw, src)
    if on_gpu:
        cuda.synchronize(t.device)
    assign_data(t, raw.numpy())


def all_reduce_numpy_scalar(value: float, op: str = "sum") -> float:
    """Reduces one Python number over the ranks (metrics, barriers)."""
    device = _group.device()
    t = tensor(np.array([value], dtype=np.float64 if device == "cpu" else np.float32), device=device)
    return float(all_reduce(t, op).numpy(force=True)[0])


def barrier() -> None:
    g = _group._require()
    if hasattr(g.comm, "barrier"):
        g.comm.barrier()
    else:  # NCCL: a one-element all-reduce is a barrier
        all_reduce_numpy_scalar(0.0)
