"""glassgrad.utils.data: torch.utils.data's names and semantics. Data sets and samplers say what
a batch holds; DataLoader fetches the batches (in worker processes with num_workers > 0) and
collates them into glassgrad tensors. docs/data-loading.md shows a DataLoader with workers
feeding the GPU."""
from ._utils.collate import default_collate, default_convert
from ._utils.worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader, _DatasetKind
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "_DatasetKind",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
