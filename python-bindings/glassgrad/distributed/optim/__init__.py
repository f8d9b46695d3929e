"""torch.distributed.optim: ZeroRedundancyOptimizer (zero_redundancy_optimizer.py). Its other
name, DistributedOptimizer, runs over torch.distributed.rpc, which glassgrad leaves out
(docs/distributed.md)."""
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]


def __getattr__(name: str):
    if name == "DistributedOptimizer":
        raise AttributeError("glassgrad.distributed.optim has no DistributedOptimizer: it steps optimizers over "
                             "torch.distributed.rpc, which glassgrad leaves out\n  fix: an optimizer per rank over "
                             "DistributedDataParallel's averaged gradients, or ZeroRedundancyOptimizer "
                             "(docs/distributed.md)")
    raise AttributeError(f"module 'glassgrad.distributed.optim' has no attribute {name!r}")
