"""The CUDA kernel sources build both ways from the same files: nvcc (with the host's headers)
and CUDA 12's NVRTC (core-runtime/cmake/nvrtc_legacy.py: the Maxwell-to-Volta images), which has
no host headers. Checked without either compiler: every .cu file is preprocessed as NVRTC sees it
(__CUDACC__ and __CUDACC_RTC__ defined, no system include directory, only the two include
directories the build passes), for each architecture the images target; an #include of a host
header (<stdint.h>, <cmath>, ...) then fails with the header's name."""
import glob
import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(REPO, "core-runtime", "kernels", "cuda")
ENGINE_INCLUDE = os.path.join(REPO, "autodiff-engine", "include")
CPP = shutil.which("cpp") or shutil.which("g++") or shutil.which("clang++")

pytestmark = pytest.mark.skipif(CPP is None, reason="no C preprocessor (cpp, g++ or clang++) on PATH")


def _preprocess_as_nvrtc(source, cuda_arch):
    cmd = [CPP] + ([] if os.path.basename(CPP) == "cpp" else ["-E"])
    cmd += ["-x", "c++", "-std=c++17", "-nostdinc", "-D__CUDACC__", "-D__CUDACC_RTC__",
            f"-D__CUDA_ARCH__={cuda_arch}", "-I", KERNELS, "-I", ENGINE_INCLUDE, source, "-o", os.devnull]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_the_check_sees_a_host_header(tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('#include "common.cuh"\n#include <stdint.h>\n')
    r = _preprocess_as_nvrtc(str(bad), 500)
    assert r.returncode != 0 and "stdint.h" in r.stderr, (r.returncode, r.stderr)


@pytest.mark.parametrize("cuda_arch", [500, 610, 700])
def test_kernel_sources_include_no_host_header_under_nvrtc(cuda_arch):
    sources = sorted(glob.glob(os.path.join(KERNELS, "*.cu")))
    assert sources, KERNELS
    failures = []
    for src in sources:
        r = _preprocess_as_nvrtc(src, cuda_arch)
        if r.returncode != 0:
            failures.append(f"{os.path.basename(src)}: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else r.returncode}")
    assert not failures, ("kernel sources that NVRTC 12 cannot compile (they include a host header; use "
                          "kernels/cuda/fixed_width.h, or keep the include under #if !defined(__CUDACC__)):\n  "
                          + "\n  ".join(failures))
