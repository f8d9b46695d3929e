"""Data sets and batching in plain NumPy: MNIST / Fashion-MNIST (IDX files), CIFAR-10 (python
batches), augmentation with a seeded Generator, and a batch iterator. Nothing is downloaded:
loaders read files already on disk and say exactly how to get them when they are missing.
The loaded splits are also data sets of glassgrad.utils.data (`.train_set`, `.test_set`), and
DataLoader given a data set is glassgrad.utils.data.DataLoader (PyTorch's)."""
from .cifar import Cifar10, load_cifar10
from .errors import DataFormatError, DatasetNotFoundError
from .idx import read_idx, write_idx
from .loader import DataLoader
from .mnist import (FASHION_MNIST_CLASSES, FASHION_MNIST_DIR, MNIST_CLASSES, ImageDataset, load_fashion_mnist,
                    load_mnist)
from .transforms import (CIFAR10_MEAN, CIFAR10_STD, augment_cifar, random_crop, random_horizontal_flip,
                         to_float)

__all__ = [
    "Cifar10", "load_cifar10", "DataFormatError", "DatasetNotFoundError", "read_idx", "write_idx",
    "DataLoader", "FASHION_MNIST_CLASSES", "FASHION_MNIST_DIR", "MNIST_CLASSES", "ImageDataset",
    "load_fashion_mnist", "load_mnist", "CIFAR10_MEAN", "CIFAR10_STD", "augment_cifar", "random_crop",
    "random_horizontal_flip", "to_float",
]
