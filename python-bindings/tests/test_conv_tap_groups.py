"""The 3x3 stride-2 convs of rows of 8 or fewer outputs (ResNet-18's layer3.0.conv1 and
layer4.0.conv1) run one GEMM per tap group whose B panels are gathered from the image
(core-runtime/kernels/cpu/conv_pad_classes.h; docs/performance.md "Padding taps of the stride-2
convolutions"). Every batch and pixel count below leaves a different partial sliver at the end of
a GEMM: the float64 formula in both dtypes on 1 and 2 threads, the baseline copy of the kernels
(GLASSGRAD_CPU_ISA=generic) against this CPU's, float64 finite-difference gradients, and values
PyTorch's documented conv2d gives."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

from conv3x3_data import conv3x3_data, restore_threads_and_algo  # noqa: F401 (autouse fixture)
from test_conv_winograd_stride2 import _ours as stride2_ours, _ref as stride2_ref
from isa_runs import assert_runs_agree, outputs_by_isa

PAD = [1, 1, 1, 1]
# (N, C, H, W, K): even H and W (the padding's taps all at the top and left), 2 to 8 outputs a row
SHAPES = [
    (1, 8, 4, 4, 8),
    (3, 7, 10, 10, 9),
    (7, 16, 8, 12, 20),
    (13, 6, 6, 16, 17),
    (5, 33, 16, 16, 40),
    (37, 9, 8, 8, 24),
]


def _ids(s):
    return "x".join(map(str, s))


def _data(shape, dtype, seed=0):
    return conv3x3_data(tuple(shape) + (PAD,), dtype, seed, stride=2)


def _ours(direction, x, wt, gy):
    return stride2_ours(direction, x, wt, gy, PAD)


def _ref(direction, x, wt, gy):
    return stride2_ref(direction, x, wt, gy, PAD)


def test_the_shapes_take_the_tap_groups_gemm():
    for n, c, h, w, k in SHAPES:
        for op in ("Conv2D", "Conv2DBackwardWeight"):
            assert _C.cpu_conv_algorithm(op, [n, c, h, w], [k, c, 3, 3], {"stride": [2, 2], "padding": PAD},
                                         "float32") == "gemm"


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tap_groups_match_the_formula_on_one_and_two_threads(direction, shape, dtype):
    x, wt, gy = _data(shape, dtype)
    ref = _ref(direction, x, wt, gy)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for threads in (1, 2):
        gg.set_num_threads(threads)
        got = _ours(direction, x, wt, gy)
        assert got.shape == ref.shape
        assert np.max(np.abs(got - ref)) <= tol * np.max(np.abs(ref)), (direction, shape, dtype, threads)


_CHILD = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import test_conv_tap_groups as t
out = {}
for dtype in (np.float32, np.float64):
    for i, shape in enumerate(t.SHAPES):
        x, wt, gy = t._data(shape, dtype, seed=3)
        for d in ("forward", "weight_grad"):
            out[f"{np.dtype(dtype).name}_{i}_{d}"] = t._ours(d, x, wt, gy)
np.savez(sys.argv[2], **out)
"""


def test_baseline_kernels_agree_with_this_cpus(tmp_path):
    """The same convs with the kernels capped at the baseline ISA and on this CPU's (its GEMM
    micro-kernels): equal up to the float rounding of the products' sums."""
    assert_runs_agree(outputs_by_isa(_CHILD, tmp_path))


def test_tap_groups_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 6, 8, 6))  # 4 x 3 outputs
    w = rng.standard_normal((5, 6, 3, 3)) / np.sqrt(54)
    assert gg.debug.gradcheck(lambda a, b: gg.nn.functional.conv2d(a, b, stride=2, padding=1), [x, w])


def test_tap_groups_values_of_an_all_ones_layer():
    """conv2d(ones [3, 8, 8, 8], ones [16, 8, 3, 3], stride 2, padding 1) counts the taps inside
    the image, 8 channels each: the corner window 4 taps (32), the top row and left column 6 (48),
    the rest 9 (72); the weight gradient for gy = ones counts, per tap (r, s), the outputs whose
    tap lands inside, 3 images of 8 channels: 3, 4, 4 rows by 3, 4, 4 columns."""
    x = np.ones((3, 8, 8, 8), np.float32)
    w = np.ones((16, 8, 3, 3), np.float32)
    (y,) = K.run_numpy("Conv2D", x, w, stride=[2, 2], padding=PAD)
    want = np.full((4, 4), 72, np.float32)
    want[0, :], want[:, 0] = 48, 48
    want[0, 0] = 32
    np.testing.assert_array_equal(y, np.broadcast_to(want, (3, 16, 4, 4)))
    (dw,) = K.run_numpy("Conv2DBackwardWeight", x, np.ones((3, 16, 4, 4), np.float32), weight_shape=[16, 8, 3, 3],
                        stride=[2, 2], padding=PAD)
    np.testing.assert_array_equal(dw, np.broadcast_to(3 * np.outer([3, 4, 4], [3, 4, 4]), (16, 8, 3, 3)))


def _taps_by_one_hot_filters(x):
    """conv2d(x, w, stride 2, padding 1) with one filter per (channel, tap), w one-hot: output
    channel (c * 3 + r) * 3 + s of pixel (i, j) is x[c, 2i + r - 1, 2j + s - 1], or 0 in the padding."""
    n, c, h, w = x.shape
    wt = np.zeros((9 * c, c, 3, 3), x.dtype)
    for ch in range(c):
        for t in range(9):
            wt[ch * 9 + t, ch, t // 3, t % 3] = 1
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.empty((n, 9 * c, h // 2, w // 2), x.dtype)
    for t in range(9):
        want[:, t::9] = padded[:, :, t // 3:t // 3 + h:2, t % 3:t % 3 + w:2]
    return wt, want


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,c,h,w", [(1, 3, 4, 4), (5, 2, 6, 6), (3, 4, 8, 10), (7, 3, 10, 12), (2, 5, 12, 14),
                                     (9, 2, 16, 16), (4, 3, 6, 16)])
def test_tap_groups_read_every_tap_from_its_own_pixel(dtype, n, c, h, w):
    """The forward's panels gather each output row's pixels as one run of the image with its
    columns split into even and odd ones (conv_pad_classes.h): every tap of every pixel, read
    through one-hot filters from an image of distinct integers, is the exact value at its place
    (2 to 8 outputs a row, several images a GEMM, runs cut by the GEMM's slivers), on 1 and 2
    threads."""
    x = (np.arange(n * c * h * w) + 1).reshape(n, c, h, w).astype(dtype)
    wt, want = _taps_by_one_hot_filters(x)
    assert _C.cpu_conv_algorithm("Conv2D", [n, c, h, w], list(wt.shape), {"stride": [2, 2], "padding": PAD},
                                 np.dtype(dtype).name) == "gemm"
    for threads in (1, 2):
        gg.set_num_threads(threads)
        (y,) = K.run_numpy("Conv2D", x, wt, stride=[2, 2], padding=PAD)
        np.testing.assert_array_equal(y, want)


def test_tap_groups_one_hot_reference_values():
    """The reference above, for one 1-channel 4x4 image of 1 .. 16, against values written out:
    tap (1, 1) (channel 4) reads the even rows' even columns, tap (2, 2) (channel 8) the odd rows'
    odd columns, tap (0, 0) (channel 0) the padding for the first row and column."""
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    _, want = _taps_by_one_hot_filters(x)
    np.testing.assert_array_equal(want[0, 4], [[1, 3], [9, 11]])
    np.testing.assert_array_equal(want[0, 8], [[6, 8], [14, 16]])
    np.testing.assert_array_equal(want[0, 0], [[0, 0], [0, 6]])


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
def test_tap_groups_match_pytorch(direction):
    torch = pytest.importorskip("torch")
    x, wt, gy = _data((5, 33, 16, 16, 40), np.float32, seed=5)
    tx, tw, tg = (torch.from_numpy(a) for a in (x, wt, gy))
    if direction == "forward":
        want = torch.nn.functional.conv2d(tx, tw, stride=2, padding=1).numpy()
    else:
        want = torch.nn.grad.conv2d_weight(tx, tw.shape, tg, stride=2, padding=1).numpy()
    got = _ours(direction, x, wt, gy)
    assert np.max(np.abs(got - want)) <= 1e-4 * np.max(np.abs(want))
