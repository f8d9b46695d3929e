"""Fetchers: one batch (or sample) of a data set, collated, with torch.utils.data's rules.

Map-style: dataset.__getitems__(indices) when the data set has it, else dataset[i] for each
index; iterable-style: the next batch_size samples of the data set's iterator. A TensorDataset
(or a Subset of one) collated by default_collate is fetched by one gather per tensor instead:
the same batch, without making each sample first; in a worker the gather writes into the
shared-memory slot the batch travels in (transport.py). `current` names the index being fetched
(or the batch's indices), so an error can say which sample failed."""
from __future__ import annotations

from typing import Callable, Optional


from ..dataset import Subset, TensorDataset
from . import collate as _collate
from .pin_memory import new_tensor


def _gather_function(dataset) -> Optional[Callable]:
    """A function (indices, make_arrays) -> tuple of (array, device) that default_collate's
    result is made of, when `dataset` is a TensorDataset or a Subset of one that no subclass
    changed (see TensorDataset._fetch_batch for make_arrays)."""
    if type(dataset).__getitem__ is TensorDataset.__getitem__ and isinstance(dataset, TensorDataset) \
            and not hasattr(dataset, "__getitems__"):
        return dataset._fetch_batch
    if isinstance(dataset, Subset) and type(dataset).__getitem__ is Subset.__getitem__ \
            and type(dataset).__getitems__ is Subset.__getitems__:
        inner = _gather_function(dataset.dataset)
        if inner is not None:
            return lambda indices, make_arrays=None: inner([dataset.indices[i] for i in indices], make_arrays)
    return None


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool,
                 make_arrays: Optional[Callable] = None):
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, drop_last
        self.current = None
        self._gather = _gather_function(dataset) if (auto_collation and collate_fn is _collate.default_collate) \
            else None
        self._make_arrays = make_arrays
        self._getitems = getattr(dataset, "__getitems__", None) if auto_collation else None

    def fetch(self, possibly_batched_index):
        if self._gather is not None:
            self.current = possibly_batched_index
            return [new_tensor(a, d, owned=True) for a, d in self._gather(possibly_batched_index, self._make_arrays)]
        if self.auto_collation:
            if self._getitems:
                self.current = possibly_batched_index
                data = self._getitems(possibly_batched_index)
            else:
                data = []
                for idx in possibly_batched_index:
                    self.current = idx
                    data.append(self.dataset[idx])
        else:
            self.current = possibly_batched_index
            data = self.dataset[possibly_batched_index]
        self.current = possibly_batched_index
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool,
                 make_arrays: Optional[Callable] = None):
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False
        self.current = None

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        self.current = possibly_batched_index
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def create_fetcher(iterable: bool, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool,
                   make_arrays: Optional[Callable] = None):
    """make_arrays: in a worker, its Sender.arrays (a gathered batch is written straight into
    shared memory)."""
    cls = _IterableDatasetFetcher if iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last, make_arrays)


def describe_index(fetcher, error: BaseException) -> str:
    """Which sample an error of fetcher.fetch came from, e.g. "index 37" or "index 37 (entry 5 of
    the batch [32, ..., 63])"; "" when unknown (an iterable data set's batch)."""
    current = getattr(fetcher, "current", None)
    if isinstance(fetcher, _IterableDatasetFetcher) or current is None:
        return ""
    if isinstance(current, list):
        entry = getattr(error, "entry", None)
        shown = current if len(current) <= 8 else current[:3] + ["..."] + current[-2:]
        batch = "[" + ", ".join(str(i) for i in shown) + "]"
        if isinstance(entry, int) and 0 <= entry < len(current):
            return f"index {current[entry]} (entry {entry} of the batch {batch})"
        return f"the batch of indices {batch}"
    return f"index {current}"


