"""Samplers with torch.utils.data's names and semantics: they say which indices the DataLoader
fetches, in which order, and (BatchSampler) how they group into batches."""
from __future__ import annotations

import itertools
from typing import Any, Generic, Iterable, Iterator, List, Optional, Sequence, Sized, TypeVar

import numpy as np

from ._rng import generator_of
from ._utils.pin_memory import new_tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ (indices, or lists of indices for a batch
    sampler) and usually __len__."""

    def __init__(self, data_source: Optional[Sized] = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order of the indices: a new permutation each pass (without replacement; with
    num_samples > len, whole permutations then part of one), or num_samples draws with
    replacement. generator: a numpy.random.Generator, or None for a fresh seed from glassgrad's
    global generator each pass."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: Optional[int] = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        return itertools.chain.from_iterable(self._draws())

    def _draws(self) -> Iterator[List[int]]:
        """The pass as lists of indices, each list drawn when iteration reaches it (so draws from
        a shared generator happen when they did with one index at a time)."""
        n = len(self.data_source)
        rng = generator_of(self.generator, "RandomSampler")
        if self.replacement:
            # In blocks of 32, as PyTorch draws them: num_samples may be practically endless
            # (minGPT's num_samples=int(1e10) makes an iteration-bounded loader).
            for _ in range(self.num_samples // 32):
                yield rng.integers(0, n, size=32, dtype=np.int64).tolist()
            yield rng.integers(0, n, size=self.num_samples % 32, dtype=np.int64).tolist()
            return
        for _ in range(self.num_samples // n):
            yield rng.permutation(n).tolist()
        yield rng.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (a new one each pass)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in generator_of(self.generator, "SubsetRandomSampler").permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class _InvalidWeights(ValueError, RuntimeError):
    """Weights no multinomial draw can use (a RuntimeError too, as PyTorch's torch.multinomial
    raises for them)."""


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices in [0, len(weights)) drawn with probability proportional to weights
    (with replacement by default; without, an index is drawn at most once). `weights` is kept as
    a float64 tensor, as PyTorch keeps it."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = _weights_array(weights)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights = new_tensor(w)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        rng = generator_of(self.generator, "WeightedRandomSampler")
        w = _weights_array(self.weights)
        # PyTorch's multinomial checks the weights when drawing (the sampler is made unchecked).
        if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise _InvalidWeights(f"WeightedRandomSampler: invalid multinomial distribution: weights must be finite, "
                                  f"non-negative and not all zero (got {w.size} weights summing to "
                                  f"{w.sum() if w.size else 0})\n  fix: pass a weight > 0 for at least one sample "
                                  f"and no NaN, infinite or negative weights")
        if not self.replacement and self.num_samples > w.size:  # PyTorch's multinomial refuses it when drawing
            raise _InvalidWeights(f"WeightedRandomSampler: cannot sample n_sample > prob_dist.size(-1) samples "
                                  f"without replacement ({self.num_samples} from {w.size} weights)\n  fix: "
                                  f"replacement=True, or num_samples <= len(weights)")
        nonzero = int(np.count_nonzero(w))
        if self.replacement or self.num_samples <= nonzero:
            yield from rng.choice(len(w), size=self.num_samples, replace=self.replacement, p=w / w.sum()).tolist()
            return
        # Without replacement and more samples than non-zero weights, PyTorch's multinomial gives
        # every index of non-zero weight (in weighted order), then zero-weight ones (tied, in no
        # particular order: a random one here).
        yield from rng.choice(len(w), size=nonzero, replace=False, p=w / w.sum()).tolist()
        yield from rng.permutation(np.flatnonzero(w == 0))[:self.num_samples - nonzero].tolist()

    def __len__(self) -> int:
        return self.num_samples


def _weights_array(weights) -> np.ndarray:
    return np.asarray(weights.numpy(force=True) if hasattr(weights, "numpy") else weights, dtype=np.float64)


class BatchSampler(Sampler[List[int]]):
    """Groups the indices of `sampler` into lists of batch_size (the last one shorter unless
    drop_last)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        chunks = _chunks_of(self.sampler)
        if chunks is not None:
            yield from _cut(chunks, self.batch_size, self.drop_last)
            return
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def _chunks_of(sampler) -> Optional[Iterator[Any]]:
    """The indices `sampler` would give, as an iterator of lists (a RandomSampler's permutation
    per pass, drawn when iteration reaches it, as its own __iter__ draws) or of one range (a
    SequentialSampler), for the samplers whose iteration is known; else None."""
    if type(sampler).__iter__ is RandomSampler.__iter__ and type(sampler)._draws is RandomSampler._draws:
        return sampler._draws()
    if type(sampler).__iter__ is SequentialSampler.__iter__:
        return iter((range(len(sampler.data_source)),))
    return None


def _cut(chunks: Iterator[Any], size: int, drop_last: bool) -> Iterator[List[int]]:
    """Lists of `size` consecutive indices of the chunks joined, as islice over their chain gives
    them, each batch one slice (the DataLoader's training process draws one batch per step, and
    a call per index cost it about 3 us a batch of 32)."""
    carry: List[int] = []
    for chunk in chunks:
        start, end = 0, len(chunk)
        if carry:
            start = min(size - len(carry), end)
            carry.extend(chunk[:start])
            if len(carry) < size:
                continue
            yield carry
            carry = []
        full = start + (end - start) // size * size
        if type(chunk) is range:
            for i in range(start, full, size):
                yield list(range(chunk[i], chunk[i] + size * chunk.step, chunk.step))
        else:
            for i in range(start, full, size):
                yield chunk[i:i + size]
        carry = list(chunk[full:end])
    if carry and not drop_last:
        yield carry
