"""glassgrad.vision: torchvision's data sets (datasets), architectures (models), transforms and image utilities (utils)
with torchvision's names. Images are PIL images, NumPy arrays or glassgrad Tensors."""
from . import datasets, models, transforms, utils

__all__ = ["datasets", "models", "transforms", "utils"]
