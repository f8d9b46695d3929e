"""The CPU kernels' OpenMP module (core-runtime/src/parallel.cpp): libgomp is loaded at the first
parallel call, after the runtime has bounded GOMP_SPINCOUNT (libgomp reads it once, when it
loads), from the module installed beside _C. Each case runs in a fresh interpreter: what is
checked happens once per process."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import glassgrad

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(glassgrad.__file__)))

PROBE = textwrap.dedent("""
    import ctypes, json, os
    def gomp_loaded():
        with open("/proc/self/maps") as f:
            return "libgomp" in f.read()
    import glassgrad, numpy as np
    after_import = gomp_loaded()
    x = glassgrad.Tensor(np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32))
    y = (x @ x).numpy()
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    spin = libc.getenv(b"GOMP_SPINCOUNT")
    print(json.dumps({"after_import": after_import, "after_matmul": gomp_loaded(),
                      "spin": spin.decode() if spin else None, "backend": glassgrad._C.parallel_backend(),
                      "package": os.path.dirname(os.path.abspath(glassgrad._C.__file__)),
                      "finite": bool(np.isfinite(y).all())}))
""")


def probe(pythonpath=PACKAGE_ROOT, drop=("GOMP_SPINCOUNT",), **env_changes):
    """Runs PROBE in a fresh interpreter importing glassgrad from `pythonpath`, without the
    variables in `drop`: its report and its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_changes)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, env.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def needs_openmp(result):
    if result["backend"].startswith("serial (built without OpenMP"):
        pytest.skip("this build of glassgrad has no OpenMP: " + result["backend"])


def test_import_does_not_load_libgomp_and_the_first_parallel_call_loads_it_with_the_spin_bound():
    got, stderr = probe()
    needs_openmp(got)
    assert got["after_import"] is False
    assert got["after_matmul"] is True
    assert got["spin"] == "20000"
    module = os.path.join(got["package"], "libglassgrad_parallel.so")
    assert got["backend"] == f"OpenMP ({module}), GOMP_SPINCOUNT=20000", got["backend"]
    assert got["finite"] and stderr == ""


def test_a_spin_count_the_user_set_is_kept():
    got, _ = probe(GOMP_SPINCOUNT="777")
    needs_openmp(got)
    assert got["spin"] == "777"
    assert got["backend"].endswith("GOMP_SPINCOUNT=777")


def test_a_missing_module_runs_serially_and_says_how_to_fix_it(tmp_path):
    # A package copy without the module: the runtime finds none (GLASSGRAD_PARALLEL_LIBRARY names a
    # missing file, the loader's search has none), computes correctly on one thread and says so.
    site = tmp_path / "site"
    shutil.copytree(os.path.dirname(os.path.abspath(glassgrad.__file__)), site / "glassgrad",
                    ignore=shutil.ignore_patterns("libglassgrad_parallel*.so", "__pycache__"))
    got, stderr = probe(str(site), drop=("GOMP_SPINCOUNT", "LD_LIBRARY_PATH"),
                        GLASSGRAD_PARALLEL_LIBRARY=str(tmp_path / "nowhere.so"))
    needs_openmp(got)
    assert got["backend"] == "serial (libglassgrad_parallel.so not found)"
    assert got["finite"] and got["after_matmul"] is False
    assert "CPU kernels run on one thread" in stderr and "GLASSGRAD_PARALLEL_LIBRARY" in stderr
    assert stderr.count("CPU kernels run on one thread") == 1
