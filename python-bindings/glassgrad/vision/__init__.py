"""glassgrad.vision: torchvision's data sets (datasets), architectures (models), transforms, image
readers (io) and image utilities (utils) with torchvision's names. Images are PIL images, NumPy
arrays or glassgrad Tensors."""
from . import datasets, io, models, transforms, utils

__all__ = ["datasets", "io", "models", "transforms", "utils"]
