"""CIFAR-10 from the "python version" of the data set (cifar-10-python.tar.gz, extracted).

The directory cifar-10-batches-py holds six pickled batches and a metadata file:

    data_batch_1 .. data_batch_5, test_batch   dicts with
        b'data'        uint8 [10000, 3072]: per image 1024 red, 1024 green, 1024 blue bytes,
                       each plane row-major 32x32, so reshape(-1, 3, 32, 32) is NCHW
        b'labels'      list of 10000 ints in 0..9
        b'batch_label' bytes, e.g. b'training batch 1 of 5'
        b'filenames'   list of 10000 bytes
    batches.meta                                dict with b'label_names': 10 bytes

glassgrad never downloads it: get cifar-10-python.tar.gz from the CIFAR-10 page
(https://www.cs.toronto.edu/~kriz/cifar.html), extract it, and pass the path.

The batches are pickles. Unpickling can run arbitrary code, so they are read with an
unpickler that only accepts the NumPy array reconstruction these files need.
"""
from __future__ import annotations

import os
import pickle
from typing import List, NamedTuple, Sequence, Tuple

import numpy as np

from .errors import DataFormatError, DatasetNotFoundError
from .idx import PathLike, SplitsAsDatasets

CIFAR10_DIRNAME = "cifar-10-batches-py"
_HOW_TO_GET = ("download cifar-10-python.tar.gz from https://www.cs.toronto.edu/~kriz/cifar.html, "
               "extract it with: tar xzf cifar-10-python.tar.gz, and pass load_cifar10() the "
               "cifar-10-batches-py directory (or the directory holding it)")


class _Cifar10Fields(NamedTuple):
    """The fields of Cifar10."""
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: Tuple[str, ...]


class Cifar10(_Cifar10Fields, SplitsAsDatasets):
    """Train and test splits: images uint8 [N, 3, 32, 32], labels int64 [N], and the class names.
    train_set and test_set are data sets of glassgrad.utils.data (TensorDataset) of the same
    arrays, for its DataLoader."""

    __slots__ = ()


def _numpy_multiarray():
    try:
        from numpy._core import multiarray  # NumPy >= 2
    except ImportError:  # pragma: no cover (NumPy 1.x)
        from numpy.core import multiarray
    return multiarray


def _numpy_numeric():
    try:
        from numpy._core import numeric  # NumPy >= 2
    except ImportError:  # pragma: no cover (NumPy 1.x)
        from numpy.core import numeric
    return numeric


class _ArrayOnlyUnpickler(pickle.Unpickler):
    """Resolves only the globals a pickled NumPy array needs; anything else is refused."""

    def find_class(self, module, name):
        if module in ("numpy.core.multiarray", "numpy._core.multiarray") and name in ("_reconstruct", "scalar"):
            return getattr(_numpy_multiarray(), name)
        if module in ("numpy.core.numeric", "numpy._core.numeric") and name == "_frombuffer":
            return _numpy_numeric()._frombuffer
        if module == "numpy" and name in ("ndarray", "dtype"):
            return getattr(np, name)
        if module == "_codecs" and name == "encode":  # how protocol 2 stores bytes from Python 3
            import codecs
            return codecs.encode
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name}: a CIFAR-10 batch holds only "
                                     f"a dict, lists, bytes and NumPy arrays")


def _load_pickle(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            obj = _ArrayOnlyUnpickler(f, encoding="bytes").load()
    except FileNotFoundError:
        raise
    except Exception as e:  # any unpickling failure means a damaged or foreign file
        raise DataFormatError(f"{path}: cannot read it as a CIFAR-10 python batch ({type(e).__name__}: {e})\n"
                              f"  cause: a truncated or damaged file, or not the python version of CIFAR-10 "
                              f"(the binary and MATLAB versions have other formats)\n"
                              f"  fix: {_HOW_TO_GET}") from None
    if not isinstance(obj, dict):
        raise DataFormatError(f"{path}: expected a pickled dict, found {type(obj).__name__}")
    return obj


def _key(d: dict, key: bytes, path: str):
    if key in d:
        return d[key]
    if key.decode() in d:  # a batch re-pickled by Python 3 with str keys
        return d[key.decode()]
    raise DataFormatError(f"{path}: the batch has no {key!r} entry (it has {sorted(d.keys())!r})\n"
                          f"  cause: not a CIFAR-10 python batch file")


def _read_batch(path: str, num_classes: int) -> Tuple[np.ndarray, np.ndarray]:
    d = _load_pickle(path)
    data = np.asarray(_key(d, b"data", path))
    labels = np.asarray(_key(d, b"labels", path))
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise DataFormatError(f"{path}: b'data' is {data.dtype} of shape {list(data.shape)}, "
                              f"expected uint8 [N, 3072] (3 color planes of 32x32)")
    if labels.ndim != 1 or labels.shape[0] != data.shape[0]:
        raise DataFormatError(f"{path}: {labels.size} labels for {data.shape[0]} images")
    labels = labels.astype(np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        bad = int(np.flatnonzero((labels < 0) | (labels >= num_classes))[0])
        raise DataFormatError(f"{path}: label {int(labels[bad])} at index {bad} is outside 0..{num_classes - 1}")
    return data.reshape(-1, 3, 32, 32), labels


def _resolve_dir(path: PathLike) -> str:
    directory = os.fspath(path)
    nested = os.path.join(directory, CIFAR10_DIRNAME)
    if os.path.isdir(nested):
        return nested
    if os.path.isdir(directory):
        return directory
    raise DatasetNotFoundError(f"CIFAR-10 directory {directory} does not exist\n  fix: {_HOW_TO_GET}")


def load_cifar10(path: PathLike, train_batches: Sequence[int] = (1, 2, 3, 4, 5)) -> Cifar10:
    """Loads CIFAR-10 from `path`: the cifar-10-batches-py directory or the one holding it.

    Returns Cifar10(x_train uint8 [N, 3, 32, 32], y_train int64 [N], x_test, y_test, classes).
    `train_batches` picks which of data_batch_1..5 to read (fewer for a quick run)."""
    directory = _resolve_dir(path)
    names = [f"data_batch_{i}" for i in train_batches] + ["test_batch", "batches.meta"]
    missing = [n for n in names if not os.path.isfile(os.path.join(directory, n))]
    if missing:
        raise DatasetNotFoundError(f"{directory} is missing {', '.join(missing)}\n"
                                   f"  expected: data_batch_1 .. data_batch_5, test_batch, batches.meta\n"
                                   f"  fix: {_HOW_TO_GET}")
    meta_path = os.path.join(directory, "batches.meta")
    label_names = _key(_load_pickle(meta_path), b"label_names", meta_path)
    classes = tuple(n.decode() if isinstance(n, bytes) else str(n) for n in label_names)
    xs: List[np.ndarray] = []
    ys: List[np.ndarray] = []
    for i in train_batches:
        x, y = _read_batch(os.path.join(directory, f"data_batch_{i}"), len(classes))
        xs.append(x)
        ys.append(y)
    x_test, y_test = _read_batch(os.path.join(directory, "test_batch"), len(classes))
    x_train = np.concatenate(xs) if xs else np.empty((0, 3, 32, 32), np.uint8)
    y_train = np.concatenate(ys) if ys else np.empty((0,), np.int64)
    return Cifar10(x_train, y_train, x_test, y_test, classes)
