"""torchvision.version: the torchvision release glassgrad.vision follows.

    __version__   '0.29.1', the torchvision release paired with the PyTorch release glassgrad.torch
                  follows (glassgrad.version; docs/porting.md, "Which PyTorch and torchvision"), so
                  checks such as `float(torchvision.__version__.split(".")[1]) < 7` take current
                  torchvision's branch
    git_version   glassgrad's build commit (glassgrad.version.git_version)
    cuda          the CUDA version glassgrad's kernels were compiled with, or None
"""
from __future__ import annotations

from ..version import cuda, git_version

__all__ = ["__version__", "git_version", "cuda"]

__version__: str = "0.29.1"
