"""torch.distributed's questions about groups and backends: new_group, get_process_group_ranks,
get_global_rank, get_group_rank, get_node_local_rank, is_nccl_available and the other
is_*_available, is_torchelastic_launched."""
from __future__ import annotations

import os
from typing import List, Optional, Sequence

from .. import _C
from . import _group
from ._types import ProcessGroup


def new_group(ranks: Optional[Sequence[int]] = None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc: Optional[str] = None, device_id=None,
              sort_ranks: bool = True) -> ProcessGroup:
    """torch.distributed.new_group: glassgrad has the default group only, so ranks must be every
    rank (or None); the handle returned is group.WORLD."""
    g = _group._require()
    if ranks is not None and sorted(int(r) for r in ranks) != list(range(g.world_size)):
        raise _C.UnsupportedError(f"glassgrad.distributed.new_group: a group of ranks {list(ranks)} out of "
                                  f"{g.world_size}: glassgrad has one process group, of every rank\n  fix: run the "
                                  f"collective on the default group and keep the ranks' results you need")
    handle = _group.world_handle()
    assert handle is not None
    return handle


def get_process_group_ranks(group: Optional[ProcessGroup]) -> List[int]:
    _group._check_group(group)
    return list(range(_group._require().world_size))


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The rank in the default group of group's rank group_rank (the same: one group)."""
    _group._check_group(group)
    if not 0 <= group_rank < _group._require().world_size:
        raise ValueError(f"Group rank {group_rank} is not part of group {group!r}")
    return int(group_rank)


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    _group._check_group(group)
    if not 0 <= global_rank < _group._require().world_size:
        raise ValueError(f"Global rank {global_rank} is not part of group {group!r}")
    return int(global_rank)


def get_node_local_rank(fallback_rank: Optional[int] = None) -> int:
    """torch.distributed.get_node_local_rank: LOCAL_RANK from the launcher, else fallback_rank."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def is_nccl_available() -> bool:
    """Whether the NCCL backend can load libnccl.so.2 (glassgrad loads NCCL at run time)."""
    _group._preload_nccl_wheel()
    return bool(_C.nccl_available()[0])


def is_mpi_available() -> bool:
    """Whether mpi4py, which the MPI backend runs on, is installed."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available() -> bool:
    """False: glassgrad's CPU backend is MPI ("gloo" in init_process_group names it)."""
    return False


def is_ucc_available() -> bool:
    return False


def is_xccl_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return {"nccl": is_nccl_available, "mpi": is_mpi_available}.get(str(backend).lower(), lambda: False)()


def is_torchelastic_launched() -> bool:
    """Whether torchrun (torchelastic) started this process: it sets TORCHELASTIC_RUN_ID."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
