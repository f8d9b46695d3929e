"""torch.distributed's object collectives: all_gather_object, broadcast_object_list,
gather_object, scatter_object_list. Objects travel pickled, as PyTorch's: the bytes go through
the collectives' exchange (docs/distributed.md, "Collectives"), so any picklable object,
tensors included, arrives as the sender's copy."""
from __future__ import annotations

import io
import pickle
from typing import Any, List, Optional

import numpy as np

from ._collectives import _rank_arg, _world, exchange


def _pickled(obj: Any) -> np.ndarray:
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    return np.frombuffer(f.getvalue(), dtype=np.uint8)


def _unpickled(arr: Optional[np.ndarray]) -> Any:
    assert arr is not None
    return pickle.loads(arr.tobytes())


def all_gather_object(object_list: List[Any], obj: Any, group=None, weights_only: bool = False) -> None:
    """torch.distributed.all_gather_object: object_list[i] becomes rank i's obj, on every rank
    (object_list has world_size entries)."""
    g = _world(group, "all_gather_object")
    if len(object_list) != g.world_size:
        raise ValueError(f"glassgrad.distributed.all_gather_object: object_list has {len(object_list)} entries, "
                         f"world_size is {g.world_size}\n  fix: object_list = [None] * dist.get_world_size()")
    for i, arr in enumerate(exchange(_pickled(obj), g)):
        object_list[i] = _unpickled(arr)


def broadcast_object_list(object_list: List[Any], src: Optional[int] = None, group=None, device=None,
                          group_src: Optional[int] = None, weights_only: bool = False) -> None:
    """torch.distributed.broadcast_object_list: every rank's object_list gets rank src's objects,
    in place (each rank's list has the same length)."""
    g = _world(group, "broadcast_object_list")
    src_ = _rank_arg(src, group_src, "broadcast_object_list", "src", g)
    got = exchange(_pickled(list(object_list)) if g.rank == src_ else None, g, senders=[src_])[src_]
    objects = _unpickled(got)
    if len(objects) != len(object_list):
        raise ValueError(f"glassgrad.distributed.broadcast_object_list: rank {src_} sent {len(objects)} objects, "
                         f"this rank's object_list has {len(object_list)}\n  fix: every rank passes a list of "
                         f"the same length")
    object_list[:] = objects


def gather_object(obj: Any, object_gather_list: Optional[List[Any]] = None, dst: Optional[int] = None, group=None,
                  group_dst: Optional[int] = None, weights_only: bool = False) -> None:
    """torch.distributed.gather_object: on rank dst, object_gather_list[i] becomes rank i's obj."""
    g = _world(group, "gather_object")
    dst_ = _rank_arg(dst, group_dst, "gather_object", "dst", g)
    if g.rank == dst_ and (object_gather_list is None or len(object_gather_list) != g.world_size):
        raise ValueError(f"glassgrad.distributed.gather_object: rank {dst_} needs object_gather_list with "
                         f"world_size = {g.world_size} entries\n  fix: [None] * dist.get_world_size() on rank "
                         f"{dst_}, None elsewhere")
    if g.rank != dst_ and object_gather_list is not None:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    arrays = exchange(_pickled(obj), g)
    if g.rank == dst_:
        for i, arr in enumerate(arrays):
            object_gather_list[i] = _unpickled(arr)  # type: ignore[index]


def scatter_object_list(scatter_object_output_list: List[Any], scatter_object_input_list: Optional[List[Any]] = None,
                        src: Optional[int] = None, group=None, group_src: Optional[int] = None,
                        weights_only: bool = False) -> None:
    """torch.distributed.scatter_object_list: rank i's scatter_object_output_list[0] becomes
    scatter_object_input_list[i] of rank src."""
    g = _world(group, "scatter_object_list")
    src_ = _rank_arg(src, group_src, "scatter_object_list", "src", g)
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    if g.rank == src_ and (scatter_object_input_list is None or len(scatter_object_input_list) != g.world_size):
        raise ValueError(f"glassgrad.distributed.scatter_object_list: rank {src_} needs scatter_object_input_list "
                         f"with world_size = {g.world_size} objects")
    got = exchange(_pickled(list(scatter_object_input_list or [])) if g.rank == src_ else None, g, senders=[src_])[src_]
    scatter_object_output_list[0] = _unpickled(got)[g.rank]
