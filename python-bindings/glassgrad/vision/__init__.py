"""glassgrad.vision: torchvision's data sets (datasets), architectures (models), transforms, image
readers (io), image utilities (utils), box operations (ops) and the tensor types of the v2 transforms
(tv_tensors) with torchvision's names. Images are PIL images, NumPy
arrays or glassgrad Tensors."""
from ..version import __version__  # glassgrad's: vision ships inside it (torchvision.__version__)
from . import datasets, io, models, ops, transforms, tv_tensors, utils

__all__ = ["__version__", "datasets", "io", "models", "ops", "transforms", "tv_tensors", "utils"]
