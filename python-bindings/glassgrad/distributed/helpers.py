"""Rank-0-only helpers: print and save once per job, not once per rank."""
from __future__ import annotations

import builtins

from . import _group, _ops


def is_main_process() -> bool:
    return _group.get_rank() == 0


def print0(*args, **kwargs) -> None:
    """print() on rank 0 only."""
    if is_main_process():
        builtins.print(*args, **kwargs)


def save_on_rank0(obj, path, **kwargs) -> None:
    """glassgrad.save(obj, path) on rank 0 only, then a barrier so no rank reads it too early."""
    from .. import serialization
    if is_main_process():
        serialization.save(obj, path, **kwargs)
    if _group.is_initialized():
        _ops.barrier()
