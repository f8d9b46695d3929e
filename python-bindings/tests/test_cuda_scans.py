"""CPU vs CUDA parity of the scan family beyond the op table's small shapes: lines longer than a
block (the bitonic network's threads loop over the padded line), more lines than the sort's
grid (blocks walk lines grid-stride), lines along an inner axis (strided), ties and NaNs, and
the cumulative product's backward with zeros. Runs on the GPU machine: pytest -m cuda."""
import numpy as np
import pytest

from glassgrad.testing import run_kernel
from test_cuda_ops import assert_parity

pytestmark = pytest.mark.cuda

SHAPES = [((3, 1000), 1), ((300, 37), 1), ((5, 70, 3), 1), ((2049,), 0), ((1, 1), 1), ((600, 5), 0)]


def _data(rng, dtype, shape):
    if dtype == "int64":
        return rng.integers(-50, 50, shape).astype(dtype)  # many ties
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[:: 97] = np.nan
    x.reshape(-1)[5:: 31] = x.reshape(-1)[0]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_cpu(dtype, shape, dim, descending):
    x = _data(np.random.default_rng(0), dtype, shape)
    for cpu, gpu in zip(run_kernel("Sort", [x], {"dim": dim, "descending": descending}, device="cpu"),
                        run_kernel("Sort", [x], {"dim": dim, "descending": descending}, device="cuda")):
        assert_parity(cpu, gpu, dtype, f"Sort {shape} dim {dim}")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_topk_matches_cpu(dtype, shape, dim):
    x = _data(np.random.default_rng(1), dtype, shape)
    k = min(5, shape[dim])
    for largest in (True, False):
        attrs = {"dim": dim, "k": k, "largest": largest}
        for cpu, gpu in zip(run_kernel("TopK", [x], attrs, device="cpu"), run_kernel("TopK", [x], attrs, device="cuda")):
            assert_parity(cpu, gpu, dtype, f"TopK {shape} {attrs}")


@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_scans_match_cpu(op, shape, dim):
    rng = np.random.default_rng(2)
    x = rng.uniform(0.9, 1.1, shape) * rng.choice([-1, 1], shape)
    for dtype in ("float32", "float64"):
        attrs = {"dim": dim, "reverse": True} if op == "CumSum" else {"dim": dim}
        cpu = run_kernel(op, [x.astype(dtype)], attrs, device="cpu")[0]
        gpu = run_kernel(op, [x.astype(dtype)], attrs, device="cuda")[0]
        assert_parity(cpu, gpu, dtype, f"{op} {shape} dim {dim}", rtol=1e-3 if dtype == "float32" else 1e-9)


def test_cumprod_backward_with_zeros_matches_cpu():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (40, 300))
    x[::3, 7] = 0.0
    x[::5, 100] = 0.0
    y = np.cumprod(x, 1)
    g = rng.standard_normal(x.shape)
    cpu = run_kernel("CumProdBackward", [g, x, y], {"dim": 1}, device="cpu")[0]
    gpu = run_kernel("CumProdBackward", [g, x, y], {"dim": 1}, device="cuda")[0]
    assert_parity(cpu, gpu, "float64", "CumProdBackward")
