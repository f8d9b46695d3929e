"""torch.version: what this build of glassgrad is.

    __version__   glassgrad's version ('0.1.0'); also glassgrad.__version__
    cuda          the CUDA version its kernels were compiled with, or None for a build without
                  CUDA kernels (as torch.version.cuda is None in a CPU build)
    git_version   the commit the build came from when it was built from a git checkout, else 'Unknown'
    hip           None (glassgrad has no ROCm build)
"""
from __future__ import annotations

from typing import Optional

from . import _C

__all__ = ["__version__", "cuda", "git_version", "hip", "debug"]

__version__: str = _C.__version__
cuda: Optional[str] = _C.cuda_built_version() or None
git_version: str = getattr(_C, "__git_version__", "") or "Unknown"
hip: Optional[str] = None
debug: bool = False
