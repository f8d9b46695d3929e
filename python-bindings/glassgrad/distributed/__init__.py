"""Data-parallel training over several GPUs (NCCL) or CPU processes (MPI through mpi4py), with
torch.distributed's names: the process group, the collectives, DistributedDataParallel.

    python -m glassgrad.distributed.run --nproc-per-node 2 train.py

    import glassgrad.distributed as dist
    dist.init_process_group()                 # rank and world size from the launcher
    model = dist.DistributedDataParallel(model)
    sampler = dist.DistributedSampler(train_set)   # sampler.set_epoch(epoch) every epoch
    dist.all_reduce(total, op=dist.ReduceOp.SUM)   # in place, on every rank

See docs/distributed.md ("Training on several GPUs", "Collectives")."""
from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    batch_isend_irecv,
    broadcast,
    gather,
    irecv,
    isend,
    monitored_barrier,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
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
from ._group_queries import (
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_process_group_ranks,
    is_backend_available,
    is_gloo_available,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    is_ucc_available,
    is_xccl_available,
    new_group,
)
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._ops import broadcast_
from ._types import Backend, GroupMember, P2POp, ProcessGroup, ReduceOp, Work, group, reduce_op
from .ddp import DistributedDataParallel
from .helpers import is_main_process, print0, save_on_rank0
from .sampler import DistributedSampler
from .sync_batchnorm import SyncBatchNorm, convert_sync_batchnorm

__all__ = [
    "Backend", "DistributedDataParallel", "DistributedSampler", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp",
    "SyncBatchNorm", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all",
    "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_", "broadcast_object_list",
    "convert_sync_batchnorm", "destroy_process_group", "device", "gather", "gather_object", "get_backend",
    "get_default_backend_for_device", "get_global_rank", "get_group_rank", "get_local_rank", "get_node_local_rank",
    "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group", "irecv",
    "is_available", "is_backend_available", "is_gloo_available", "is_initialized", "is_main_process",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "is_ucc_available", "is_xccl_available",
    "isend", "monitored_barrier", "new_group", "print0", "recv", "reduce", "reduce_op", "reduce_scatter",
    "reduce_scatter_tensor", "save_on_rank0", "scatter", "scatter_object_list", "send",
]
