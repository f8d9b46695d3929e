"""The roofline columns of the benchmarks (benchmarks/roofline.py, docs/performance.md "How far from
the limit"): FLOP and byte counts, the CPU convolutions' algorithm query, the measured CPU peaks,
the GPU peaks from device properties, and CSVs written before the columns existed."""
import csv
import importlib.util
import math
import os
import sys

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
import common  # noqa: E402
import roofline as R  # noqa: E402
import workloads as W  # noqa: E402

HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture(autouse=True)
def _restore_switches():
    yield
    K.set_cpu_conv_algo("auto")
    gg.backends.cudnn.allow_fast_winograd = False


def brute_multiply_adds(n, c, h, w, k, r, s, p):
    """Multiply-adds of a direct convolution, by enumerating (output pixel, tap) pairs per image
    and channel pair, padding taps included (what every library's direct count includes)."""
    oh = len(range(0, h + 2 * p - r + 1, s))
    ow = len(range(0, w + 2 * p - r + 1, s))
    return n * k * c * oh * ow * r * r


@pytest.mark.parametrize("shape", [(2, 3, 8, 8, 4, 3, 1, 1), (3, 5, 9, 7, 6, 3, 2, 1), (2, 8, 8, 8, 16, 1, 2, 0)])
def test_direct_count_is_two_flops_per_multiply_add(shape):
    assert R.conv_flop(*shape) == 2 * brute_multiply_adds(*shape)


def test_bytes_read_each_operand_once_and_write_the_result_once():
    n, c, h, w, k = 2, 3, 8, 8, 4
    x, wt, y = n * c * h * w, k * c * 9, n * k * 8 * 8
    for direction in R.DIRECTIONS:
        assert R.conv_bytes(n, c, h, w, k, 3, 1, 1, direction) == 4 * (x + wt + y)
    assert R.conv_bytes(n, c, h, w, k, 3, 1, 1, "forward", element=8) == 8 * (x + wt + y)


def test_winograd_counts_its_point_products_per_output_tile():
    # F(2x2, 3x3) on a 5x5 output: 3 x 3 tiles per image, 16 points, C x K products each.
    n, c, hw, k = 2, 8, 5, 16
    assert R.winograd_flop(n, c, hw, hw, k, 1, 2, "forward") == 2 * 16 * (n * 9) * c * k
    assert R.winograd_flop(n, c, hw, hw, k, 1, 4, "weight grad") == 2 * 36 * (n * 4) * c * k
    # the input gradient tiles dx: padding 0 makes the output 3x3 (4 F(2x2) tiles), dx 5x5 (9 tiles)
    assert R.winograd_flop(n, c, hw, hw, k, 0, 2, "forward") == 2 * 16 * (n * 4) * c * k
    assert R.winograd_flop(n, c, hw, hw, k, 0, 2, "input grad") == 2 * 16 * (n * 9) * c * k
    # and it is what algorithm_flop reports for a Winograd choice, the direct count otherwise
    assert R.algorithm_flop("winograd2", n, c, hw, hw, k, 3, 1, 0, "input grad")[0] == 2 * 16 * (n * 9) * c * k
    assert R.algorithm_flop("gemm", n, c, hw, hw, k, 3, 1, 0, "forward")[0] == R.conv_flop(n, c, hw, hw, k, 3, 1, 0)
    # F(2x2, 3x3) at stride 2: 25 points a 2x2 tile of the (strided) output, against the direct 36
    # (8x8 -> 4x4 at padding 1: 4 tiles an image)
    assert R.winograd_flop(n, c, 8, 8, k, 1, 2, "forward", 2) == 2 * 25 * (n * 4) * c * k
    assert R.algorithm_flop("winograd2s2", n, c, 8, 8, k, 3, 2, 1, "weight grad") == (
        2 * 25 * (n * 4) * c * k, "Winograd F(2x2) at stride 2")
    assert R.conv_flop(n, c, 8, 8, k, 3, 2, 1) == 2 * 36 * (n * 4) * c * k


def test_cpu_conv_algorithm_names_what_the_kernels_run():
    # docs/numerics.md "How glassgrad chooses": F(2x2) for float32 3x3 stride-1 layers of 8+ channels
    for op in R.OP_OF.values():
        assert R.cpu_conv_algorithm(op, (4, 64, 16, 16), (64, 64, 3, 3), 1, 1) == "winograd2"
    # at stride 2 the forward and the weight gradient of rows wider than 8 outputs take F(2x2,
    # 3x3) at stride 2, the input gradient (not a stride-1 convolution) and narrower rows the GEMM
    for op in ("Conv2D", "Conv2DBackwardWeight"):
        assert R.cpu_conv_algorithm(op, (4, 64, 32, 32), (128, 64, 3, 3), 2, 1) == "winograd2s2"
        assert R.cpu_conv_algorithm(op, (4, 64, 16, 16), (128, 64, 3, 3), 2, 1) == "gemm"
    assert R.cpu_conv_algorithm("Conv2DBackwardInput", (4, 64, 32, 32), (128, 64, 3, 3), 2, 1) == "gemm"
    assert R.cpu_conv_algorithm("Conv2D", (4, 3, 16, 16), (64, 3, 3, 3), 1, 1) == "direct"
    # the weight gradient by dot products where C*R*S fits one GEMM tile width (NR): 8 here, at
    # most the narrowest kernel's (the generic one's; AVX2's is 16, AVX-512's 32, so a 3x3 layer of
    # 3 channels, 27, takes the dots only with AVX-512)
    assert R.cpu_conv_algorithm("Conv2DBackwardWeight", (4, 2, 16, 16), (64, 2, 2, 2), 1, 1) == "dots"
    attrs = {"stride": [1, 1], "padding": [1, 1, 1, 1]}
    assert _C.cpu_conv_algorithm("Conv2D", [4, 64, 16, 16], [64, 64, 3, 3], attrs, "float64") == "winograd4"
    gg.backends.cudnn.allow_fast_winograd = True
    assert R.cpu_conv_algorithm("Conv2D", (4, 64, 16, 16), (64, 64, 3, 3), 1, 1) == "winograd4"
    gg.backends.cudnn.allow_fast_winograd = False
    K.set_cpu_conv_algo("gemm")
    assert R.cpu_conv_algorithm("Conv2D", (4, 64, 16, 16), (64, 64, 3, 3), 1, 1) == "gemm"
    assert R.cpu_conv_algorithm("Conv2D", (4, 64, 32, 32), (128, 64, 3, 3), 2, 1) == "gemm"


def test_cuda_conv_algorithm_reads_the_autotuners_cached_choice():
    line = ("Conv2DBackwardWeight x [32, 64, 32, 32] w [64, 64, 3, 3] y [32, 64, 32, 32] stride 1x1 pad 1,1 float32 "
            "cuda:0 (8 SMs): winograd F(2x2) tile 64x64, 96 tiles a pass [timed: ...]")
    other = ("Conv2D x [32, 64, 32, 32] w [128, 64, 3, 3] y [32, 128, 16, 16] stride 2x2 pad 1,1 float32 cuda:0 "
             "(8 SMs): implicit GEMM tile 128x128 (target 2048 threads) [heuristic]")
    choices = [other, line]
    assert R.cuda_conv_algorithm(choices, "Conv2DBackwardWeight", 32, 64, 32, 32, 64, 3, 1, 1) == "winograd2"
    assert R.cuda_conv_algorithm(choices, "Conv2D", 32, 64, 32, 32, 128, 3, 2, 1) == "implicit GEMM"
    assert R.cuda_conv_algorithm(choices, "Conv2D", 32, 64, 32, 32, 64, 3, 1, 1) == ""


def test_columns_are_rates_and_fractions_of_the_peak():
    peak = R.Peak(100e9, 10e9, "test")
    row = R.columns(2e9, 0.5, peak, 1e9, algorithm_flop=1e9)
    assert set(row) == set(common.ROOFLINE_COLUMNS)
    assert float(row["gflop_per_s"]) == pytest.approx(4.0)
    assert float(row["gbyte_per_s"]) == pytest.approx(2.0)
    assert float(row["fma_peak_fraction"]) == pytest.approx(0.02)  # the algorithm's 1e9 FLOPs, not the direct 2e9
    assert float(row["bandwidth_peak_fraction"]) == pytest.approx(0.2)
    assert float(R.columns(2e9, 0.5, peak, 1e9)["fma_peak_fraction"]) == pytest.approx(0.04)
    blank = R.columns(2e9, 0.5, None, 1e9)
    assert blank["fma_peak_fraction"] == "" and blank["gflop_per_s"] != ""


def test_cuda_peak_from_device_properties_scales_with_the_multiprocessors_seen():
    info = {"compute_capability": (9, 0), "multiprocessors": 132, "clock_khz": 1980000,
            "memory_clock_khz": 2619000, "memory_bus_width_bits": 6144}
    whole = R.cuda_peak(info)
    assert whole.flops == pytest.approx(132 * 128 * 2 * 1.98e9)
    assert whole.bytes_per_s == pytest.approx(2 * 2.619e9 * 6144 / 8)
    slice8 = R.cuda_peak(dict(info, multiprocessors=8))
    assert slice8.flops == pytest.approx(whole.flops * 8 / 132)
    assert slice8.bytes_per_s == whole.bytes_per_s  # the slice shares the memory system
    assert R.fp32_lanes(7, 0) == 64 and R.fp32_lanes(8, 0) == 64 and R.fp32_lanes(8, 6) == 128
    assert R.fp32_lanes(6, 1) == 128 and R.fp32_lanes(6, 0) == 64


def test_cpu_peak_measures_positive_rates_on_the_threads_asked():
    p = _C.cpu_peak(1, 0.001, 2, 1 << 20)
    assert p["threads"] == 1 and p["isa"] == _C.cpu_isa()
    assert math.isfinite(p["fma_flops"]) and p["fma_flops"] > 0
    assert math.isfinite(p["copy_bytes_per_s"]) and p["copy_bytes_per_s"] > 0
    assert p["fma_iterations"] >= 4096 and p["copy_bytes"] == 1 << 20
    assert _C.cpu_peak(2, 0.001, 1, 1 << 20)["threads"] == 2


def test_step_counts_sum_every_layers_directions():
    gg.manual_seed(0)
    model = W.gg_model(W.SIMPLE_CNN)
    flop, nbytes = R.step_counts(model, (4,) + W.SIMPLE_CNN.input_shape)
    assert flop > 0 and nbytes > 0
    # twice the batch: twice the FLOPs; the bytes grow by less (the weights do not scale)
    flop2, nbytes2 = R.step_counts(model, (8,) + W.SIMPLE_CNN.input_shape)
    assert flop2 == 2 * flop and nbytes < nbytes2 < 2 * nbytes
    # the layers' own forwards are back (the wrappers lived on the instances only)
    layers = [m for m in model.modules() if isinstance(m, (gg.nn.Conv2d, gg.nn.Linear))]
    assert layers and all("forward" not in vars(m) for m in layers)


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not importable")
def test_resnet18_step_count_matches_pytorchs_flop_counter():
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    gg.manual_seed(0)
    model = W.gg_model(W.resnet18(8))
    flop, _ = R.step_counts(model, (2, 3, 32, 32))
    twin = W.torch_model(torch, W.resnet18(8), model.state_dict(), "cpu")
    x, y = torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,))
    with FlopCounterMode(display=False) as fc:
        torch.nn.functional.cross_entropy(twin(x), y).backward()
    assert flop == fc.get_total_flops()


def test_a_csv_with_the_old_header_is_rewritten_with_every_column(tmp_path):
    path = tmp_path / "old.csv"
    old = common.COLUMNS[:11]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=old)
        w.writeheader()
        w.writerow({c: ("1" if c == "value" else "x") for c in old})
    res = common.Results("old", str(path))
    res.add("cpu", "w", "m", 2.0, "us", roofline=R.columns(4e9, 2.0, R.Peak(1e9, 1e9, "t"), 8e9))
    res.write()
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == common.COLUMNS
    assert rows[0]["value"] == "1" and rows[0]["fma_peak_fraction"] == ""
    assert float(rows[1]["fma_peak_fraction"]) == pytest.approx(2.0) and rows[1]["value"] == "2"
    assert np.isclose(float(rows[1]["gflop_per_s"]), 2.0)


@pytest.mark.cuda
def test_cuda_peak_and_conv_choice_on_this_gpu():
    """On a GPU: the peaks come from this device's properties, and after a convolution runs, the
    autotuner's cached line for it is found (the format cuda_conv_algorithm reads)."""
    info = gg.cuda.device_info(0)
    peak = R.device_peak("cuda:0")
    major, minor = info["compute_capability"]
    assert peak.flops == pytest.approx(info["multiprocessors"] * R.fp32_lanes(major, minor) * 2 * info["clock_khz"] * 1e3)
    assert peak.flops > 0 and peak.bytes_per_s > 0
    rng = np.random.default_rng(0)
    x = _C.Tensor.from_numpy(rng.standard_normal((4, 16, 12, 12)).astype(np.float32), "cuda:0")
    w = _C.Tensor.from_numpy(rng.standard_normal((24, 16, 3, 3)).astype(np.float32), "cuda:0")
    _C.run_op("Conv2D", [x, w], {"stride": [1, 1], "padding": [1, 1, 1, 1]}, "")
    gg.cuda.synchronize()
    algo = R.cuda_conv_algorithm(gg.cuda.conv_choices(), "Conv2D", 4, 16, 12, 12, 24, 3, 1, 1)
    assert algo, gg.cuda.conv_choices()
    flop, name = R.algorithm_flop(algo, 4, 16, 12, 12, 24, 3, 1, 1, "forward")
    assert flop > 0 and name
