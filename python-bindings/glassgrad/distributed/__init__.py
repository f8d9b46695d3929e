"""Data-parallel training over several GPUs (NCCL) or CPU processes (MPI through mpi4py).

    python -m glassgrad.distributed.run --nproc-per-node 2 train.py

    import glassgrad.distributed as dist
    dist.init_process_group()                 # rank and world size from the launcher
    model = dist.DistributedDataParallel(model)
    sampler = dist.DistributedSampler(train_set)   # sampler.set_epoch(epoch) every epoch

See docs/distributed.md ("Training on several GPUs")."""
from ._group import (
    destroy_process_group,
    device,
    get_backend,
    get_default_backend_for_device,
    get_local_rank,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
)
from ._ops import all_reduce, barrier, broadcast_
from .ddp import DistributedDataParallel
from .helpers import is_main_process, print0, save_on_rank0
from .sampler import DistributedSampler
from .sync_batchnorm import SyncBatchNorm, convert_sync_batchnorm

__all__ = [
    "DistributedDataParallel", "DistributedSampler", "SyncBatchNorm", "all_reduce", "barrier", "broadcast_",
    "convert_sync_batchnorm", "destroy_process_group", "device", "get_backend",
    "get_default_backend_for_device", "get_local_rank", "get_rank",
    "get_world_size", "init_process_group", "is_available", "is_initialized", "is_main_process", "print0",
    "save_on_rank0",
]
