"""Runs a child script twice, with the CPU kernels capped at the baseline ISA
(GLASSGRAD_CPU_ISA=generic) and on this CPU's own, and returns each run's arrays: the child is
called as `python -c child <tests dir> <out.npz>` and saves its results there."""
import os
import subprocess
import sys

import numpy as np


def outputs_by_isa(child: str, tmp_path):
    """{"generic": npz, "": npz} of the child's two runs."""
    here = os.path.dirname(os.path.abspath(__file__))
    runs = {}
    for cap in ("generic", ""):
        env = dict(os.environ, GLASSGRAD_CPU_ISA=cap, PYTHONPATH=os.pathsep.join(sys.path))
        path = tmp_path / f"out_{cap or 'native'}.npz"
        subprocess.run([sys.executable, "-c", child, here, str(path)], env=env, check=True, timeout=600)
        runs[cap] = np.load(path)
    return runs


def assert_runs_agree(runs, float32_tol=1e-5, float64_tol=1e-12):
    """Every array of the two runs equal up to the float rounding of the products' sums, relative
    to the array's largest value; the child names each array with its dtype first ("float32_...")."""
    for key in runs["generic"].files:
        a, b = runs["generic"][key], runs[""][key]
        tol = float32_tol if key.startswith("float32") else float64_tol
        assert np.max(np.abs(a - b)) <= tol * np.max(np.abs(a)), key
