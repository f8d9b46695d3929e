"""glassgrad's build backend: scikit-build-core, plus one build requirement that depends on the
machine. When the CUDA kernels will be built (nvcc found, as GlassgradCuda.cmake finds it, or
GLASSGRAD_CUDA=ON) and GLASSGRAD_CUDA_LEGACY is not OFF, pip also installs CUDA 12's NVRTC
(nvidia-cuda-nvrtc-cu12) into the build environment, so the Maxwell/Pascal/Volta images are
built (core-runtime/cmake/GlassgradLegacy.cmake). A CPU-only build downloads nothing more.
NVRTC is used at build time only; the wheel does not depend on it.
"""
import os
import platform
import shutil
import sys

from scikit_build_core.build import *  # noqa: F401,F403  (the PEP 517/660 hooks)
from scikit_build_core import build as _skbuild

NVRTC = "nvidia-cuda-nvrtc-cu12==12.9.*"


def _nvcc_found():
    if shutil.which("nvcc"):
        return True
    roots = (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda")
    return any(r and os.path.exists(os.path.join(r, "bin", "nvcc")) for r in roots)


def _wants_nvrtc():
    cuda = os.environ.get("GLASSGRAD_CUDA", "AUTO").upper()
    legacy = os.environ.get("GLASSGRAD_CUDA_LEGACY", "AUTO").upper()
    if cuda == "OFF" or legacy == "OFF" or os.environ.get("GLASSGRAD_NVRTC"):
        return False
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        return False  # the NVRTC 12 wheels exist for these
    return cuda == "ON" or _nvcc_found()


def get_requires_for_build_wheel(config_settings=None):
    return list(_skbuild.get_requires_for_build_wheel(config_settings)) + ([NVRTC] if _wants_nvrtc() else [])


def get_requires_for_build_editable(config_settings=None):
    return list(_skbuild.get_requires_for_build_editable(config_settings)) + ([NVRTC] if _wants_nvrtc() else [])
