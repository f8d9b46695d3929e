"""glassgrad.vision: torchvision's data sets (datasets), architectures (models), transforms, image
readers (io), image utilities (utils), box operations (ops) and the tensor types of the v2 transforms
(tv_tensors) with torchvision's names. Images are PIL images, NumPy
arrays or glassgrad Tensors."""
from .version import __version__  # the torchvision release followed (version.py)
from . import datasets, io, models, ops, transforms, tv_tensors, utils, version
from ..jit import is_tracing as _jit_is_tracing

__all__ = ["__version__", "datasets", "io", "models", "ops", "transforms", "tv_tensors", "utils", "version"]


def _is_tracing() -> bool:
    """torchvision._is_tracing(): True while torch.jit.trace runs its example inputs, as
    torch.jit.is_tracing() (detection code takes its export-friendly branch under it: DETR's
    nested_tensor_from_tensor_list)."""
    return _jit_is_tracing()
