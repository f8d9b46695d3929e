"""The debugging switch of MatMul's dense float CUDA products (docs/cuda.md, "Dense float
products"; docs/architecture.md, "Environment variables"): GLASSGRAD_MATMUL_DENSE_TILE=auto leaves
the choice to the launcher (0), 8x16 forces the wide micro-tile, anything else (unset, 8x8) keeps
the 8 x 8 tiles (8), read once; the
setter takes 8, 16 or 0 and refuses another number with a ValueError that names the choices.
The kernels themselves are checked by core-runtime/tests/test_cuda_emulated_step.cpp on the CPU
and, on a GPU, by test_cuda_ops.py's products."""
import os
import subprocess
import sys

import pytest

import glassgrad
from glassgrad import _C

# The directory that holds the glassgrad this process imported (the working tree's, or the installed
# package's under tools/run_tests.sh), so the child process reads the same build.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(glassgrad.__file__)))


def _tile_under(value):
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT)
    env.pop("GLASSGRAD_MATMUL_DENSE_TILE", None)
    if value is not None:
        env["GLASSGRAD_MATMUL_DENSE_TILE"] = value
    out = subprocess.run([sys.executable, "-c", "from glassgrad import _C; print(_C.cuda_dense_matmul_tile())"],
                         env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


@pytest.mark.parametrize("value,tile", [(None, 8), ("8x8", 8), ("auto", 0), ("8x16", 16), ("16", 8), ("wide", 8)])
def test_the_environment_sets_the_default(value, tile):
    assert _tile_under(value) == tile


def test_the_setter_overrides_it_and_refuses_other_tiles():
    was = _C.cuda_dense_matmul_tile()
    try:
        for tile in (8, 16, 0):
            _C.cuda_set_dense_matmul_tile(tile)
            assert _C.cuda_dense_matmul_tile() == tile
        with pytest.raises(ValueError, match=r"(?s)set_dense_matmul_tile\(12\): .*8 x 8 and 8 x 16 .*pass 8 \(8 x 8\), 16 \(8 x 16\) or 0"):
            _C.cuda_set_dense_matmul_tile(12)
        assert _C.cuda_dense_matmul_tile() == 0  # unchanged by the refused call
    finally:
        _C.cuda_set_dense_matmul_tile(was)
