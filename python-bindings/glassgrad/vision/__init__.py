"""glassgrad.vision: torchvision's data sets (datasets), architectures (models), transforms, image
readers (io), image utilities (utils) and box operations (ops) with torchvision's names. Images are PIL images, NumPy
arrays or glassgrad Tensors."""
from ..version import __version__  # glassgrad's: vision ships inside it (torchvision.__version__)
from . import datasets, io, models, ops, transforms, utils

__all__ = ["__version__", "datasets", "io", "models", "ops", "transforms", "utils"]
