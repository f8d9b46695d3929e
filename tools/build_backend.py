"""glassgrad's build backend: scikit-build-core, plus one build requirement that depends on the
machine. When the build will compile CUDA 12 images (core-runtime/cmake/cuda_select.py decides,
as GlassgradCuda.cmake will: a Maxwell-to-Volta GPU or a driver older than nvcc's CUDA among
the GPUs visible, GLASSGRAD_CUDA_ARCHS=all, or GLASSGRAD_CUDA_LEGACY=ON), pip also installs CUDA
12's NVRTC (nvidia-cuda-nvrtc-cu12) into the build environment; any other build downloads
nothing more. NVRTC is used at build time only; the wheel does not depend on it.
"""
import importlib.util
import os
import platform
import sys

from scikit_build_core.build import *  # noqa: F403  (the PEP 517/660 hooks)
from scikit_build_core import build as _skbuild

NVRTC = "nvidia-cuda-nvrtc-cu12==12.9.*"


def _cuda_select():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core-runtime", "cmake", "cuda_select.py")
    spec = importlib.util.spec_from_file_location("glassgrad_cuda_select", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wants_nvrtc():
    if os.environ.get("GLASSGRAD_NVRTC"):
        return False  # the build is given its NVRTC
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        return False  # the NVRTC 12 wheels exist for these
    select = _cuda_select()
    try:
        images = select.select(os.environ.get("GLASSGRAD_CUDA", "AUTO"), os.environ.get("GLASSGRAD_CUDA_ARCHS", ""),
                               os.environ.get("GLASSGRAD_CUDA_LEGACY", "AUTO"), select.nvcc_version())
    except ValueError:
        return False  # the configure step reports the setting it cannot read
    return bool(images["nvrtc_sm"] or images["nvrtc_ptx"])


def get_requires_for_build_wheel(config_settings=None):
    return list(_skbuild.get_requires_for_build_wheel(config_settings)) + ([NVRTC] if _wants_nvrtc() else [])


def get_requires_for_build_editable(config_settings=None):
    return list(_skbuild.get_requires_for_build_editable(config_settings)) + ([NVRTC] if _wants_nvrtc() else [])
