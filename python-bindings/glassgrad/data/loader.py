"""A minimal batch iterator over NumPy arrays that share their first axis. Given a data set
instead (DataLoader(dataset, batch_size=64, ...)), it is glassgrad.utils.data.DataLoader, with
PyTorch's arguments and worker processes."""
from __future__ import annotations

from typing import Callable, Iterator, Optional, Tuple

import numpy as np


def _is_dataset(obj) -> bool:
    """A map-style or iterable data set (anything but an array of samples)."""
    from ..utils.data import Dataset
    if isinstance(obj, Dataset):
        return True
    return not hasattr(obj, "shape") and hasattr(obj, "__getitem__") and hasattr(obj, "__len__") \
        and not isinstance(obj, (list, tuple))


class DataLoader:
    """Yields tuples of batches (arrays[0][idx], arrays[1][idx], ...).

        loader = DataLoader(x_train, y_train, batch_size=64, shuffle=True, seed=0)
        for epoch in range(3):
            for xb, yb in loader:
                ...

    shuffle: a new permutation every epoch, drawn from one Generator seeded with `seed`, so
    the sequence of epochs is repeatable. drop_last: skip a final batch smaller than
    batch_size (keeps shapes static, so compiled plans are reused). transform(x_batch, rng)
    is applied to the first array's batch (e.g. data.augment_cifar).
    """

    def __new__(cls, *args, **kwargs):
        if args and _is_dataset(args[0]):
            from ..utils.data import DataLoader as TorchStyleDataLoader
            return TorchStyleDataLoader(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *arrays: np.ndarray, batch_size: int, shuffle: bool = False,
                 seed: Optional[int] = None, drop_last: bool = False,
                 transform: Optional[Callable[[np.ndarray, np.random.Generator], np.ndarray]] = None):
        if not arrays:
            raise ValueError("DataLoader: give at least one array, e.g. DataLoader(x, y, batch_size=64)")
        if int(batch_size) < 1:
            raise ValueError(f"DataLoader: batch_size must be >= 1, got {batch_size}")
        n = len(arrays[0])
        for i, a in enumerate(arrays):
            if len(a) != n:
                sizes = ", ".join(str(len(b)) for b in arrays)
                raise ValueError(f"DataLoader: all arrays need the same length, got {sizes} (array {i} differs)\n"
                                 f"  cause: images and labels from different splits")
        self.arrays = arrays
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.transform = transform
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        n = len(self.arrays[0])
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self) -> Iterator[Tuple[np.ndarray, ...]]:
        n = len(self.arrays[0])
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        for b in range(len(self)):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            batch = [a[idx] for a in self.arrays]
            if self.transform is not None:
                batch[0] = self.transform(batch[0], self.rng)
            yield tuple(batch)
