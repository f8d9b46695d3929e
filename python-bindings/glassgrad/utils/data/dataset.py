"""Datasets with torch.utils.data's names and semantics: Dataset, IterableDataset, TensorDataset,
StackDataset, ConcatDataset, ChainDataset, Subset and random_split.

A map-style dataset answers `dataset[i]` for i in range(len(dataset)); an iterable-style one is
iterated. TensorDataset also takes NumPy arrays (its samples are then array rows; the DataLoader's
default_collate turns batches of them into tensors)."""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Callable, Generic, Iterable, List, Optional, Sequence, TypeVar

import numpy as np

from ... import _C, _device
from ._rng import generator_of

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style data set: subclasses define __getitem__(index) and usually __len__(). They may
    define __getitems__(indices) to fetch a batch of samples at once (the DataLoader calls it
    when present)."""

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style data set: subclasses define __iter__() (it is abstract, as in PyTorch,
    where IterableDataset is also a typing.Iterable: a subclass without it cannot be made). With
    DataLoader workers, each worker iterates its own copy; get_worker_info() tells it which share
    to yield."""

    def __add__(self, other: "Dataset") -> "ChainDataset":
        return ChainDataset([self, other])


def _length(t) -> int:
    shape = getattr(t, "shape", None)
    if shape is None or len(shape) == 0:
        raise _NoSampleAxis(f"TensorDataset: every tensor needs a first (sample) axis, got "
                            f"{type(t).__name__} of shape {list(shape) if shape is not None else '?'}\n"
                            f"  fix: pass one row per sample, e.g. t.reshape(-1) or t.unsqueeze(0)")
    return int(shape[0])


class _NoSampleAxis(_C.ShapeError, IndexError):
    """A TensorDataset tensor without a first axis (an IndexError too, as PyTorch's size(0) of a 0-d tensor)."""


class _SizeMismatch(_C.ShapeError, AssertionError):
    """TensorDataset's tensors differ in their first axis (an AssertionError too, as PyTorch's)."""


class TensorDataset(Dataset):
    """TensorDataset(*tensors): sample i is tuple(t[i] for t in tensors). Every tensor (glassgrad
    Tensor or NumPy array) must have the same size in its first axis."""

    def __init__(self, *tensors) -> None:
        sizes = [_length(t) for t in tensors]
        if any(s != sizes[0] for s in sizes):
            shapes = ", ".join(str(list(t.shape)) for t in tensors)
            raise _SizeMismatch(f"TensorDataset: Size mismatch between tensors: first axes {sizes} differ\n"
                                f"  shapes: {shapes}\n  cause: images and labels of different splits or lengths\n"
                                f"  fix: pass tensors with one row per sample, e.g. TensorDataset(x[:n], y[:n])")
        self.tensors = tuple(tensors)
        self._host_arrays: Optional[List[tuple]] = None  # NumPy copies for batched fetches (_fetch_batch), made once

    def __getitem__(self, index):
        self._check_worker_devices()
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        if not self.tensors:
            raise IndexError("TensorDataset: len() of a TensorDataset made of no tensors (PyTorch's raises "
                             "IndexError too)\n  fix: TensorDataset(x, y) with at least one tensor")
        return _length(self.tensors[0])

    def _check_worker_devices(self) -> None:
        """In a DataLoader worker (no CUDA there), GPU tensors are refused with the fix."""
        if _device._cuda_forbidden is None:
            return
        for t in self.tensors:
            d = str(getattr(t, "device", "cpu"))
            if d != "cpu":
                raise _C.DeviceError(f"TensorDataset holds a tensor on {d}: {_device._cuda_forbidden}\n"
                                     f"  or keep the data set on the CPU and use num_workers=0 for data already "
                                     f"on the GPU")

    def _fetch_batch(self, indices: List[int], make_arrays: Optional[Callable] = None):
        """The batch default_collate makes of [self[i] for i in indices], by one gather per
        tensor: a tuple of NumPy arrays and the devices of the tensors they come from.
        make_arrays(specs), given, returns arrays of the (shape, dtype) specs to gather into
        (a DataLoader worker's shared-memory slot), or None for ordinary ones."""
        self._check_worker_devices()
        if self._host_arrays is None:
            self._host_arrays = [(t if isinstance(t, np.ndarray) else t.numpy(force=True), getattr(t, "device", None))
                                 for t in self.tensors]
        arrays = self._host_arrays
        idx = np.asarray(indices, dtype=np.int64)
        if make_arrays is not None and idx.ndim == 1 and idx.size:
            outs = self._gather_into(idx, make_arrays, arrays)
            if outs is not None:
                return outs
        return tuple((a[idx], d) for a, d in arrays)  # out-of-range: NumPy's own IndexError

    def _gather_into(self, idx: np.ndarray, make_arrays: Callable, arrays: List[tuple]):
        """_fetch_batch's result in the arrays make_arrays gives; None when it gives none or an
        index is out of range (the caller's plain gather then raises as dataset[i] would)."""
        n, lo, hi = len(self), int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:
            return None
        if lo < 0:
            idx = np.where(idx < 0, idx + n, idx)
        outs = make_arrays([((idx.size,) + a.shape[1:], a.dtype) for a, _ in arrays])
        if outs is None:
            return None
        # The indices are in range, so "clip" changes none; it lets take() write into `out`
        # directly ("raise" fills a temporary first, as NumPy's take documents).
        for (a, _), out in zip(arrays, outs):
            np.take(a, idx, axis=0, out=out, mode="clip")
        return tuple((out, d) for out, (_, d) in zip(outs, arrays))

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_host_arrays"] = None
        return state


class StackDataset(Dataset):
    """StackDataset(*datasets) or StackDataset(**datasets): sample i is the tuple (or dict) of
    each data set's sample i. All data sets must have the same length."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output,"
                             " but both types are given.")
        datasets = list(args) or list(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        lengths = [len(d) for d in datasets]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"Size mismatch between datasets: lengths {lengths}")
        self._length = lengths[0]
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list):
        def items(d):
            if callable(getattr(d, "__getitems__", None)):
                got = d.__getitems__(indices)
                if len(got) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(got)}")
                return got
            return [d[i] for i in indices]
        if isinstance(self.datasets, dict):
            columns = {k: items(d) for k, d in self.datasets.items()}
            return [{k: columns[k][j] for k in columns} for j in range(len(indices))]
        columns = [items(d) for d in self.datasets]
        return [tuple(c[j] for c in columns) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """The data sets one after another: index i goes to the data set whose range holds it."""

    @staticmethod
    def cumsum(sequence) -> List[int]:
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for {len(self)} samples")
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable data sets one after another (lazily: each is iterated when its turn comes)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When subclassing Subset and "
                f"overriding __getitem__, you must also override __getitems__ to ensure DataLoader works correctly "
                f"with your custom logic. A simple implementation:\n\ndef __getitems__(self, indices):\n"
                f"    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: List[int]) -> list:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence, generator=None) -> List[Subset]:
    """Splits `dataset` into non-overlapping Subsets of the given lengths (counts summing to
    len(dataset), or fractions summing to 1: the remainder of flooring goes round-robin to the
    first splits), at random: generator is a numpy.random.Generator, or None for glassgrad's
    global generator (glassgrad.manual_seed makes the split repeatable)."""
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(n * frac))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths does not equal the length of the input dataset! "
                         f"(lengths {lengths} sum to {sum(lengths)}, the dataset has {n} samples)")
    order = generator_of(generator, "random_split").permutation(n).tolist()
    return [Subset(dataset, order[end - length:end]) for end, length in zip(itertools.accumulate(lengths), lengths)]


