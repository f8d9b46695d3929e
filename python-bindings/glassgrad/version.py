"""torch.version: the PyTorch release glassgrad.torch follows, and what this build of glassgrad is.

    __version__   '2.14.1', the PyTorch release whose names, signatures and warnings glassgrad.torch
                  follows (docs/porting.md, "Which PyTorch and torchvision"), so scripts that check
                  the version (`torch.__version__.startswith("2.")`) take current PyTorch's branch.
                  glassgrad's own version is glassgrad.__version__.
    cuda          the CUDA version glassgrad's kernels were compiled with, or None for a build without
                  CUDA kernels (as torch.version.cuda is None in a CPU build)
    git_version   the commit this build of glassgrad came from when it was built from a git
                  checkout, else 'Unknown'
    hip, rocm, xpu  None (glassgrad has no ROCm or XPU build)
"""
from __future__ import annotations

from typing import Optional

from . import _C

__all__ = ["__version__", "cuda", "git_version", "hip", "rocm", "xpu", "debug"]

__version__: str = "2.14.1"
cuda: Optional[str] = _C.cuda_built_version() or None
git_version: str = getattr(_C, "__git_version__", "") or "Unknown"
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
debug: bool = False
