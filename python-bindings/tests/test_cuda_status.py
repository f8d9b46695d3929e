"""The CUDA backend's behaviour that needs no GPU: the module imports anywhere, explains why
CUDA is unavailable, and registers a CUDA kernel next to every CPU kernel when built with
kernels. (The embedded machine code is checked by test_cuda_sass.py.)"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import glassgrad
from glassgrad import _C


def test_cuda_module_imports_without_touching_the_driver():
    assert glassgrad.cuda.__name__ == "glassgrad.cuda"
    assert isinstance(glassgrad.cuda.built_with_kernels(), bool)
    assert isinstance(glassgrad.cuda.device_count(), int)


def test_why_unavailable_is_empty_exactly_when_available():
    reason = glassgrad.cuda.why_unavailable()
    if glassgrad.cuda.is_available():
        assert reason == ""
    else:
        assert len(reason) > 20, reason
        # one of the precise causes, never a bare "CUDA error"
        causes = ("no CUDA kernels", "libcuda.so.1", "cuInit", "no CUDA GPU", "no image for", "JIT",
                  "does not exist", "cannot")
        assert any(c in reason for c in causes), reason


@pytest.mark.cuda_build
def test_built_archs_describe_the_embedded_kernels():
    if not glassgrad.cuda.built_with_kernels():
        assert glassgrad.cuda.built_archs() == ""
        assert len(_C.cuda_fatbin()) == 0
        return
    archs = glassgrad.cuda.built_archs()
    # nvcc's images first ('sm_90 + PTX compute_90'), then NVRTC's ('; NVRTC 12: sm_61'); a build
    # for a Pascal GPU alone holds NVRTC's only, and an empty fatbin.
    assert re.match(r"sm_\d+|NVRTC 12: (sm|compute)_\d+", archs), archs
    nvrtc_bytes = sum(len(data) for _, _, _, data in _C.cuda_legacy_images())
    assert (len(_C.cuda_fatbin()) > 1000) == archs.startswith("sm_"), archs
    assert (nvrtc_bytes > 1000) == ("NVRTC 12: " in archs), archs


@pytest.mark.skipif(glassgrad.cuda.is_available(), reason="a GPU is visible: the unavailable path cannot be seen")
def test_cuda_tensor_without_a_gpu_raises_device_error_with_the_reason():
    with pytest.raises(glassgrad.DeviceError) as e:
        _C.Tensor.from_numpy(np.ones(3, np.float32), "cuda")
    msg = str(e.value)
    assert "cuda:0" in msg
    assert glassgrad.cuda.why_unavailable() in msg
    assert "fix:" in msg


@pytest.mark.skipif(glassgrad.cuda.is_available(), reason="a GPU is visible: the unavailable path cannot be seen")
def test_device_info_without_a_gpu_raises_device_error():
    with pytest.raises(glassgrad.DeviceError, match="cannot be used"):
        glassgrad.cuda.device_info(0)


def test_cpu_only_work_is_unaffected_by_the_cuda_backend():
    x = _C.Tensor.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    (y,) = _C.run_op("MulScalar", [x], {"value": 2.0}, "")
    np.testing.assert_array_equal(y.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) * 2)


def test_unknown_conv_algo_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="auto.*direct.*igemm"):
        glassgrad.cuda.set_conv_algo("winograd")
    assert glassgrad.cuda.conv_algo() == "auto"


def test_conv_algo_accepts_the_few_channel_direct_kernel_and_refuses_other_direct_variants():
    try:
        glassgrad.cuda.set_conv_algo("direct:fewc")
        assert glassgrad.cuda.conv_algo() == "direct:fewc"
        with pytest.raises(ValueError, match="direct:fewc"):
            glassgrad.cuda.set_conv_algo("direct:few")
    finally:
        glassgrad.cuda.set_conv_algo("auto")
    assert glassgrad.cuda.conv_algo() == "auto"


@pytest.mark.cuda_build
@pytest.mark.skipif(not glassgrad.cuda.built_with_kernels(), reason="this build has no CUDA kernels")
def test_every_cpu_kernel_has_a_cuda_kernel():
    have = set(glassgrad.kernels.registered())
    cpu = {(op, dt) for op, dev, dt in have if dev == "cpu"}
    cuda = {(op, dt) for op, dev, dt in have if dev == "cuda"}
    missing = sorted(cpu - cuda)
    assert not missing, f"(op, dtype) with a CPU kernel but no CUDA kernel: {missing}"


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc/self/maps (Linux)")
def test_import_does_not_load_the_driver_library():
    # A fresh interpreter: importing glassgrad and asking what the build holds maps no libcuda.
    code = ("import glassgrad\n"
            "glassgrad.cuda.built_with_kernels(); glassgrad.cuda.built_archs()\n"
            "print([l.split()[-1] for l in open('/proc/self/maps') if 'libcuda.so' in l])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip() == "[]", out.stdout


def _in_fresh_process(code, **env):
    """Runs code in a new interpreter (the driver version is read once, when cuda:0 starts), under
    the real driver unless env forces one (a run of tools/gpu_check.sh --driver exports it)."""
    full = {k: v for k, v in os.environ.items() if k != "GLASSGRAD_CUDA_DRIVER_VERSION"}
    full.update(PYTHONPATH=os.pathsep.join(sys.path), **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=300)


def test_the_build_note_says_whether_the_build_has_kernels():
    note = glassgrad.cuda.build_note()
    assert note.startswith("CUDA kernels for " if glassgrad.cuda.built_with_kernels() else "no CUDA kernels: "), note
    if not glassgrad.cuda.built_with_kernels() and not glassgrad.cuda.is_available():
        assert glassgrad.cuda.why_unavailable().startswith("this build of glassgrad has " + note)


@pytest.mark.cuda
@pytest.mark.skipif(not glassgrad.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_driver_older_than_580_runs_the_cuda_12_image_of_the_gpu():
    """GLASSGRAD_CUDA_DRIVER_VERSION=550: the loader chooses as under a 550 driver, which cannot
    load CUDA 13's machine code, so NVRTC 12's cubin of the GPU's architecture runs, and computes
    what the CPU does."""
    major, minor = glassgrad.cuda.device_info()["compute_capability"]
    own = f"sm_{major}{minor}"
    if own not in [name for name, _, _, _ in _C.cuda_legacy_images()]:
        pytest.skip(f"this build has no CUDA 12 image of {own} ({glassgrad.cuda.built_archs()}); a wheel or "
                    "GLASSGRAD_CUDA_ARCHS=all with GLASSGRAD_CUDA_LEGACY=ON builds them")
    code = ("import numpy as np, glassgrad as gg\n"
            "x = np.random.default_rng(0).standard_normal((64, 48)).astype(np.float32)\n"
            "y = (gg.tensor(x, device='cuda') @ gg.tensor(x.T.copy(), device='cuda')).relu().cpu().numpy()\n"
            "np.testing.assert_allclose(y, np.maximum(x @ x.T, 0), rtol=1e-4, atol=1e-4)\n"
            "print(gg.cuda.device_info()['kernel_image'])\n")
    for forced in ("550", "12.4", "12040"):
        out = _in_fresh_process(code, GLASSGRAD_CUDA_DRIVER_VERSION=forced)
        assert out.returncode == 0, out.stderr
        assert f"{own} machine code (NVRTC 12); chosen for a driver of CUDA 12.4 (driver 550)" in out.stdout, out.stdout
    out = _in_fresh_process(code)  # the real driver (580 or newer on a GPU machine): nvcc's image
    assert out.returncode == 0 and "NVRTC" not in out.stdout.split("; chosen")[0], out.stdout + out.stderr
    bad = _in_fresh_process("import glassgrad; print(glassgrad.cuda.why_unavailable())",
                            GLASSGRAD_CUDA_DRIVER_VERSION="newest")
    assert "GLASSGRAD_CUDA_DRIVER_VERSION: 'newest' is not a driver version" in bad.stdout, bad.stdout + bad.stderr
