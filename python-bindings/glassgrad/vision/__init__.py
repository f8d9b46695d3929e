"""glassgrad.vision: torchvision's data sets (datasets), transforms and image utilities (utils)
with torchvision's names. Images are PIL images, NumPy arrays or glassgrad Tensors."""
from . import datasets, transforms, utils

__all__ = ["datasets", "transforms", "utils"]
