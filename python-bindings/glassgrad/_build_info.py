"""What PyTorch reports about its build, for glassgrad's: torch.has_lapack, has_mkl, has_openmp,
has_spectral (module flags), compiled_with_cxx11_abi() and is_vulkan_available(). A script reads
them to pick a code path; the answers say what glassgrad provides, not how it is built."""
from __future__ import annotations

__all__ = ["compiled_with_cxx11_abi", "has_lapack", "has_mkl", "has_openmp", "has_spectral", "is_vulkan_available"]

has_lapack = True    # glassgrad.linalg: solve, inv, qr, svd, eigh, ... (docs/linalg.md)
has_mkl = False      # no Intel MKL: glassgrad's own CPU kernels
has_openmp = False   # CPU parallelism is glassgrad's own thread pool (set_num_threads)
has_spectral = False  # no torch.fft


def compiled_with_cxx11_abi() -> bool:
    """torch.compiled_with_cxx11_abi: True (glassgrad's C++ is built with the C++11 ABI, as every
    build with a modern GCC)."""
    return True


def is_vulkan_available() -> bool:
    """torch.is_vulkan_available: False, glassgrad has no Vulkan backend."""
    return False
