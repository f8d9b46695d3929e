"""3x3 convolutions at stride 2 by Winograd F(2x2, 3x3) at stride 2 (the forward and the weight
gradient; core-runtime/kernels/winograd_transforms.h, F2Stride2; docs/cpu-threads.md "Winograd
at stride 2"): the float64 formula in both dtypes on 1 and 2 threads (odd sizes, partial tiles,
channel counts off the vector width, every padding up to 2), the GEMM path, float64
finite-difference gradients, the float32 error bound of docs/numerics.md, values PyTorch's
documented conv2d gives, and PyTorch itself where it is importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

from conv3x3_data import conv3x3_data, restore_threads_and_algo  # noqa: F401 (autouse fixture)

# (N, C, H, W, K, [top, bottom, left, right] padding); every output row wider than 8 (narrower
# rows take the tap groups or the panels: conv.cpp's winograd_tile)
SHAPES = [
    (2, 8, 8, 18, 8, [1, 1, 1, 1]),
    (3, 9, 9, 19, 20, [1, 1, 1, 1]),
    (1, 20, 11, 21, 17, [0, 0, 0, 0]),
    (2, 17, 10, 17, 33, [2, 1, 0, 2]),
    (2, 70, 32, 32, 40, [1, 1, 1, 1]),
    (1, 16, 5, 22, 24, [2, 2, 2, 2]),
]


def _taps(x, pad, ho, wo):
    """xp[n, c, 2i + r, 2j + s] as [N, C, Ho, Wo, 3, 3], float64."""
    pt, pb, pl, pr = pad
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    return np.stack([np.stack([xp[:, :, r:r + 2 * ho - 1:2, s:s + 2 * wo - 1:2] for s in range(3)], -1)
                     for r in range(3)], -2)


def _data(shape, dtype, seed=0):
    return conv3x3_data(shape, dtype, seed, stride=2)


def _attrs(pad):
    return {"stride": [2, 2], "padding": list(pad)}


def _ours(direction, x, wt, gy, pad):
    if direction == "forward":
        (y,) = K.run_numpy("Conv2D", x, wt, **_attrs(pad))
    else:
        (y,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=list(wt.shape), **_attrs(pad))
    return np.asarray(y, np.float64)


def _ref(direction, x, wt, gy, pad):
    t = _taps(x, pad, gy.shape[2], gy.shape[3])
    if direction == "forward":
        return np.einsum("nchwrs,kcrs->nkhw", t, wt.astype(np.float64))
    return np.einsum("nkhw,nchwrs->kcrs", gy.astype(np.float64), t)


def _algorithm(op, x_shape, w_shape, pad, dtype="float32"):
    return _C.cpu_conv_algorithm(op, list(x_shape), list(w_shape), _attrs([pad] * 4), dtype)


def test_stride2_3x3_layers_name_the_stride2_tile():
    for op in ("Conv2D", "Conv2DBackwardWeight"):
        for dtype in ("float32", "float64"):
            assert _algorithm(op, (32, 64, 32, 32), (128, 64, 3, 3), 1, dtype) == "winograd2s2"
            assert _algorithm(op, (1, 8, 8, 17), (8, 8, 3, 3), 1, dtype) == "winograd2s2"  # 9 outputs a row
        # rows of 8 or 4 outputs (ResNet-18's layer3.0 and layer4.0) keep the tap groups' GEMMs
        assert _algorithm(op, (32, 128, 16, 16), (256, 128, 3, 3), 1) == "gemm"
        assert _algorithm(op, (32, 256, 8, 8), (512, 256, 3, 3), 1) == "gemm"
    assert _algorithm("Conv2DBackwardInput", (32, 64, 32, 32), (128, 64, 3, 3), 1) == "gemm"
    # fewer than 8 channels, and 1x1 kernels, keep their paths; "gemm" forces the GEMM
    assert _algorithm("Conv2D", (4, 4, 16, 16), (64, 4, 3, 3), 1) != "winograd2s2"
    assert _algorithm("Conv2D", (4, 64, 16, 16), (128, 64, 1, 1), 0) == "gemm"
    K.set_cpu_conv_algo("gemm")
    assert _algorithm("Conv2D", (32, 64, 32, 32), (128, 64, 3, 3), 1) == "gemm"


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:5])) + "p" + "".join(map(str, s[5])))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stride2_winograd_matches_the_formula_on_one_and_two_threads(direction, shape, dtype):
    x, wt, gy = _data(shape, dtype)
    ref = _ref(direction, x, wt, gy, shape[5])
    tol = 2e-5 if dtype == np.float32 else 1e-12
    got = {}
    for n in (1, 2):
        gg.set_num_threads(n)
        got[n] = _ours(direction, x, wt, gy, shape[5])
        assert got[n].shape == ref.shape
        assert np.max(np.abs(got[n] - ref)) <= tol * np.max(np.abs(ref)), (direction, shape, dtype, n)
    if direction == "forward":  # each output is one GEMM's sum in a fixed order on any thread
        np.testing.assert_array_equal(got[1], got[2])


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
def test_stride2_winograd_agrees_with_the_gemm_path(direction):
    assert _algorithm("Conv2D", (2, 24, 12, 22), (32, 24, 3, 3), 1) == "winograd2s2"
    x, wt, gy = _data((2, 24, 12, 22, 32, [1, 1, 1, 1]), np.float64, seed=2)
    ours = _ours(direction, x, wt, gy, [1, 1, 1, 1])
    K.set_cpu_conv_algo("gemm")
    gemm = _ours(direction, x, wt, gy, [1, 1, 1, 1])
    np.testing.assert_allclose(ours, gemm, rtol=1e-11, atol=1e-12)


def test_stride2_values_of_an_all_ones_layer():
    """conv2d(ones [1, 8, 4, 4], ones [8, 8, 3, 3], stride 2, padding 1) counts the taps inside
    the image, 8 channels each: the corner window 4 taps (32), the edges 6 (48), the last 9 (72);
    its weight gradient for gy = ones counts, per tap (r, s), the outputs whose tap lands inside:
    1, 2, 2 along each axis."""
    x = np.ones((1, 8, 4, 20), np.float32)  # 2 x 10 outputs (rows wider than 8: the stride-2 tile)
    w = np.ones((8, 8, 3, 3), np.float32)
    assert _algorithm("Conv2D", x.shape, w.shape, 1) == "winograd2s2"
    (y,) = K.run_numpy("Conv2D", x, w, **_attrs([1, 1, 1, 1]))
    want_y = np.array([[32] + [48] * 9, [48] + [72] * 9], np.float32)
    np.testing.assert_array_equal(y, np.broadcast_to(want_y, (1, 8, 2, 10)))
    (dw,) = K.run_numpy("Conv2DBackwardWeight", x, np.ones((1, 8, 2, 10), np.float32), weight_shape=[8, 8, 3, 3],
                        **_attrs([1, 1, 1, 1]))
    want = np.outer([1, 2, 2], [9, 10, 10]).astype(np.float32)  # rows: 1, 2, 2 outputs; columns: 9, 10, 10
    np.testing.assert_array_equal(dw, np.broadcast_to(want, (8, 8, 3, 3)))


def test_stride2_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 7, 18))  # 4 x 9 outputs
    w = rng.standard_normal((9, 8, 3, 3)) / np.sqrt(72)
    assert _algorithm("Conv2D", x.shape, w.shape, 1, "float64") == "winograd2s2"
    assert gg.debug.gradcheck(lambda a, b: gg.nn.functional.conv2d(a, b, stride=2, padding=1), [x, w])


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
def test_stride2_float32_error_within_three_times_a_plain_sum(direction):
    """docs/numerics.md's bound on ResNet-18-like layers: the error against float64 within 3x
    that of the im2col GEMM's plain float32 sums, on several seeds."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        x = np.maximum(rng.standard_normal((2, 64, 32, 32)), 0).astype(np.float32)
        wt = (rng.standard_normal((128, 64, 3, 3)) * np.sqrt(2 / (64 * 9))).astype(np.float32)
        gy = rng.standard_normal((2, 128, 16, 16)).astype(np.float32)
        ref = _ref(direction, x, wt, gy, [1, 1, 1, 1])
        ours = np.max(np.abs(_ours(direction, x, wt, gy, [1, 1, 1, 1]) - ref))
        K.set_cpu_conv_algo("gemm")
        plain = np.max(np.abs(_ours(direction, x, wt, gy, [1, 1, 1, 1]) - ref))
        K.set_cpu_conv_algo("auto")
        assert ours <= 3 * plain, (seed, ours, plain)


@pytest.mark.parametrize("direction", ["forward", "weight_grad"])
def test_stride2_winograd_matches_pytorch(direction):
    torch = pytest.importorskip("torch")
    x, wt, gy = _data((2, 64, 32, 32, 128, [1, 1, 1, 1]), np.float32, seed=5)
    tx, tw, tg = (torch.from_numpy(a) for a in (x, wt, gy))
    if direction == "forward":
        want = torch.nn.functional.conv2d(tx, tw, stride=2, padding=1).numpy()
    else:
        want = torch.nn.grad.conv2d_weight(tx, tw.shape, tg, stride=2, padding=1).numpy()
    got = _ours(direction, x, wt, gy, [1, 1, 1, 1])
    assert np.max(np.abs(got - want)) <= 1e-4 * np.max(np.abs(want))
