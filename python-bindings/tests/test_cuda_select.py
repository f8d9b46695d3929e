"""Which kernel images a build compiles (core-runtime/cmake/cuda_select.py, the rule
GlassgradCuda.cmake and tools/build_backend.py share): by default the GPUs the build machine
shows, none without one; everything when asked; CUDA 12 images for Maxwell to Volta and for
drivers older than nvcc's CUDA. The GPUs are given to the rule here, so no GPU is needed."""
import importlib.util
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "core-runtime", "cmake", "cuda_select.py")
NVCC13, NVCC12 = (13, 0), (12, 4)
H200, T4, GTX1050TI, RTX3090 = ("NVIDIA H200", 9, 0), ("Tesla T4", 7, 5), ("GeForce GTX 1050 Ti", 6, 1), \
    ("GeForce RTX 3090", 8, 6)
DRIVER_580, DRIVER_550 = 13000, 12040


@pytest.fixture(scope="module")
def sel():
    spec = importlib.util.spec_from_file_location("cuda_select", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def images(out):
    return out["nvcc_archs"], out["nvrtc_sm"], out["nvrtc_ptx"]


def test_no_gpu_visible_builds_no_kernels_unless_asked(sel):
    out = sel.select("AUTO", "", "AUTO", NVCC13, probe=(0, []))
    assert images(out) == ([], [], [])
    assert out["note"].startswith("no CUDA kernels: no GPU was visible"), out["note"]
    # Asked: GLASSGRAD_CUDA=ON or GLASSGRAD_CUDA_ARCHS=all build every architecture, NVRTC's too.
    full = ([75, 80, 86, 89, 90, 100, 120], [50, 52, 60, 61, 70, 75, 80, 86, 89, 90], [50])
    assert images(sel.select("ON", "", "AUTO", NVCC13, probe=(0, []))) == full
    assert images(sel.select("AUTO", "all", "AUTO", NVCC13)) == full
    assert "every architecture" in sel.select("ON", "", "AUTO", NVCC13, probe=(0, []))["note"]


def test_the_visible_gpus_are_what_a_default_build_compiles_for(sel):
    out = sel.select("AUTO", "", "AUTO", NVCC13, probe=(DRIVER_580, [H200]))
    assert images(out) == ([90], [], [])
    assert out["note"] == "CUDA kernels for the visible GPU: NVIDIA H200 (9.0), driver CUDA 13.0"
    out = sel.select("AUTO", "", "AUTO", NVCC13, probe=(DRIVER_580, [RTX3090, T4, RTX3090]))
    assert images(out) == ([75, 86], [], [])
    assert "visible GPUs: GeForce RTX 3090 (8.6), Tesla T4 (7.5)" in out["note"]


def test_gpus_nvcc_13_dropped_get_nvrtc_12_images(sel):
    assert images(sel.select("AUTO", "", "AUTO", NVCC13, probe=(12080, [GTX1050TI]))) == ([], [61], [])
    assert images(sel.select("AUTO", "", "AUTO", NVCC13, probe=(DRIVER_580, [GTX1050TI, T4]))) == ([75], [61], [])
    # CUDA 12's nvcc compiles Pascal itself.
    assert images(sel.select("AUTO", "", "AUTO", NVCC12, probe=(12080, [GTX1050TI]))) == ([61], [], [])


def test_a_driver_older_than_nvcc_gets_cuda_12_images_too(sel):
    out = sel.select("AUTO", "", "AUTO", NVCC13, probe=(DRIVER_550, [H200]))
    assert images(out) == ([90], [90], [])
    assert "driver older than nvcc's CUDA 13.0: CUDA 12 images too" in out["note"], out["note"]
    assert images(sel.select("AUTO", "", "OFF", NVCC13, probe=(DRIVER_550, [H200]))) == ([90], [], [])


def test_architecture_lists_in_every_spelling(sel):
    assert sel.parse_archs("75;86") == [75, 86]
    assert sel.parse_archs("8.6 7.5") == [75, 86]
    assert sel.parse_archs("sm_90,sm_61, 90") == [61, 90]
    assert sel.parse_archs("ALL") == "all"
    assert sel.parse_archs("  ") is None
    with pytest.raises(ValueError, match="'ampere' is not a compute capability"):
        sel.parse_archs("ampere")
    out = sel.select("AUTO", "6.1;9.0", "AUTO", NVCC13)
    assert images(out) == ([90], [61], [])
    assert out["note"] == "CUDA kernels for GLASSGRAD_CUDA_ARCHS=61,90"


def test_legacy_switch_on_off(sel):
    out = sel.select("AUTO", "90", "ON", NVCC13)
    assert images(out) == ([90], [90], []) and out["nvrtc_required"]
    assert images(sel.select("AUTO", "all", "OFF", NVCC13)) == ([75, 80, 86, 89, 90, 100, 120], [], [])
    with pytest.raises(ValueError, match="GLASSGRAD_CUDA_LEGACY=OFF forbids CUDA 12's NVRTC"):
        sel.select("AUTO", "61", "OFF", NVCC13)
    with pytest.raises(ValueError, match="needs CUDA 13's nvcc"):
        sel.select("AUTO", "all", "ON", NVCC12)
    with pytest.raises(ValueError, match="GLASSGRAD_CUDA=MAYBE is not AUTO, ON or OFF"):
        sel.select("maybe", "", "AUTO", NVCC13)


def test_off_and_no_nvcc_build_nothing(sel):
    assert sel.select("OFF", "all", "ON", NVCC13)["note"] == "no CUDA kernels: built with GLASSGRAD_CUDA=OFF"
    out = sel.select("AUTO", "", "AUTO", None, probe=(DRIVER_580, [H200]))
    assert images(out) == ([], [], []) and out["note"].startswith("no CUDA kernels: nvcc was not found")


def test_older_toolkits_keep_their_own_full_lists(sel):
    assert sel.nvcc_all((12, 4)) == [50, 52, 60, 61, 70, 75, 80, 86, 89, 90]
    assert sel.nvcc_all((12, 8))[-2:] == [100, 120]
    assert sel.nvcc_all((11, 8))[-2:] == [89, 90]
    assert images(sel.select("ON", "all", "AUTO", NVCC12))[1:] == ([], [])


def test_the_command_line_cmake_reads(sel):
    out = subprocess.run([sys.executable, TOOL, "--cuda", "AUTO", "--archs", "all", "--legacy", "AUTO", "--nvcc", "13.0"],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["nvcc_archs=75;80;86;89;90;100;120", "nvrtc_sm=50;52;60;61;70;75;80;86;89;90",
                                "nvrtc_ptx=50", "nvrtc_required=0", "gpus=",
                                "note=CUDA kernels for every architecture (GLASSGRAD_CUDA_ARCHS=all)"]
    bad = subprocess.run([sys.executable, TOOL, "--archs", "7.x", "--nvcc", "13.0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "GLASSGRAD_CUDA_ARCHS entry '7.x'" in bad.stderr


def test_build_backend_asks_pip_for_nvrtc_exactly_when_the_build_compiles_cuda_12_images(monkeypatch, sel):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        scikit = pytest.importorskip("scikit_build_core.build", reason="tools/build_backend.py wraps scikit-build-core")
        del scikit
        import build_backend
    finally:
        sys.path.pop(0)
    monkeypatch.setattr(sel, "nvcc_version", lambda: NVCC13)
    monkeypatch.setattr(sel, "visible_gpus", lambda: (0, []))
    monkeypatch.setattr(build_backend, "_cuda_select", lambda: sel)
    monkeypatch.delenv("GLASSGRAD_NVRTC", raising=False)
    for env, want in (({}, False), ({"GLASSGRAD_CUDA_ARCHS": "all"}, True), ({"GLASSGRAD_CUDA": "ON"}, True),
                      ({"GLASSGRAD_CUDA_ARCHS": "90"}, False), ({"GLASSGRAD_CUDA_ARCHS": "61"}, True),
                      ({"GLASSGRAD_CUDA_ARCHS": "all", "GLASSGRAD_CUDA_LEGACY": "OFF"}, False),
                      ({"GLASSGRAD_CUDA_ARCHS": "all", "GLASSGRAD_CUDA": "OFF"}, False)):
        for k in ("GLASSGRAD_CUDA", "GLASSGRAD_CUDA_ARCHS", "GLASSGRAD_CUDA_LEGACY"):
            monkeypatch.delenv(k, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert build_backend._wants_nvrtc() is want, env
    monkeypatch.setattr(sel, "visible_gpus", lambda: (DRIVER_550, [H200]))
    for k in ("GLASSGRAD_CUDA", "GLASSGRAD_CUDA_ARCHS", "GLASSGRAD_CUDA_LEGACY"):
        monkeypatch.delenv(k, raising=False)
    assert build_backend._wants_nvrtc() is True  # a 550 driver: the H200 needs a CUDA 12 image
