"""glassgrad.nn.parallel: torch.nn.parallel's names.

DataParallel runs its module on one device: a pass-through there (same outputs, state_dict
keys prefixed with "module." as PyTorch's). Training on several GPUs is DistributedDataParallel
(one process a GPU; docs/distributed.md), which this module exports too."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


def __getattr__(name):
    # Imported on first use: glassgrad.distributed imports glassgrad.nn, which imports this module.
    if name == "DistributedDataParallel":
        from ...distributed.ddp import DistributedDataParallel
        return DistributedDataParallel
    raise AttributeError(f"module 'glassgrad.nn.parallel' has no attribute '{name}'")
