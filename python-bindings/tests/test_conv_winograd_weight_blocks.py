"""The Winograd weight gradient over blocks of many tiles (core-runtime/kernels/cpu/conv_winograd.cpp):
its transformed gradients Z are the point GEMMs' A, written where the CPU allows it straight in
the GEMM's packed form, cut into blocks of KC tiles (192 with AVX-512) and slivers of 8 channels
(conv_winograd_kernels.h, "packed A"); its transformed inputs V are the GEMMs' B, written in
the GEMM's packed form where the input channels fill whole NR-wide slivers ("packed B": 16 float32
channels with AVX2, so C = 16, 32 and 48 here; 8 float64). These shapes put more tiles than one such block in an
image (the last block partial), output channel counts off the vector width (padding slivers),
at stride 1 (F(2x2) in float32, F(4x4) in float64) and stride 2, on 1 thread (each slot owns some
points) and 2 (each slot its own images), against the float64 formula and PyTorch's values."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

from conv3x3_data import conv3x3_data, restore_threads_and_algo  # noqa: F401 (autouse fixture)

PAD = [1, 1, 1, 1]
# (N, C, H, W, K), stride: tiles per image of the float32 (2x2) tile in the comment
SHAPES = [
    ((2, 8, 30, 30, 20), 1),   # 15 x 15 = 225 tiles: one block of 192 and one of 33
    ((3, 9, 27, 41, 8), 1),    # 14 x 21 = 294; K = 8: half a vector of padding
    ((2, 16, 25, 47, 40), 1),  # 13 x 24 = 312
    ((2, 8, 59, 59, 20), 2),   # 30 x 30 outputs, 15 x 15 = 225 tiles at stride 2
    ((2, 12, 45, 61, 33), 2),  # 23 x 31 outputs, 12 x 16 = 192: exactly one block
    ((2, 32, 25, 31, 24), 1),  # 13 x 16 = 208: V in two slivers of 16 channels
    ((3, 48, 37, 29, 16), 2),  # 19 x 15 outputs, 10 x 8 = 80 tiles: three slivers
]


def _attrs(stride):
    return {"stride": [stride, stride], "padding": PAD}


def _weight_grad(x, gy, k, stride):
    (dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=[k, x.shape[1], 3, 3], **_attrs(stride))
    return np.asarray(dw, np.float64)


def _reference(x, gy, stride):
    """dw[k, c, r, s] = sum_{n, i, j} gy[n, k, i, j] xp[n, c, stride i + r, stride j + s], float64."""
    ho, wo = gy.shape[2:]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    taps = np.stack([np.stack([xp[:, :, r:r + stride * (ho - 1) + 1:stride, s:s + stride * (wo - 1) + 1:stride]
                               for s in range(3)], -1) for r in range(3)], -2)
    return np.einsum("nkhw,nchwrs->kcrs", gy.astype(np.float64), taps)


def _data(shape, stride, dtype):
    n, c, h, w, k = shape
    return conv3x3_data((n, c, h, w, k, PAD), dtype, seed=h + k, stride=stride)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,stride", SHAPES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else f"s{v}")
def test_weight_gradient_over_blocks_of_tiles_matches_the_formula(shape, stride, dtype):
    n, c, h, w, k = shape
    want = {1: {np.float32: "winograd2", np.float64: "winograd4"}[dtype], 2: "winograd2s2"}[stride]
    assert _C.cpu_conv_algorithm("Conv2DBackwardWeight", [n, c, h, w], [k, c, 3, 3], _attrs(stride),
                                 np.dtype(dtype).name) == want
    x, _, gy = _data(shape, stride, dtype)
    ref = _reference(x, gy, stride)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for threads in (1, 2):
        gg.set_num_threads(threads)
        got = _weight_grad(x, gy, k, stride)
        assert np.max(np.abs(got - ref)) <= tol * np.max(np.abs(ref)), (shape, stride, dtype, threads)


@pytest.mark.parametrize("stride", [1, 2])
def test_weight_gradient_over_blocks_agrees_with_the_gemm_path(stride):
    shape = (2, 8, 59, 59, 20) if stride == 2 else (2, 8, 30, 30, 20)
    x, _, gy = _data(shape, stride, np.float64)
    ours = _weight_grad(x, gy, shape[4], stride)
    K.set_cpu_conv_algo("gemm")
    gemm = _weight_grad(x, gy, shape[4], stride)
    np.testing.assert_allclose(ours, gemm, rtol=1e-11, atol=1e-11)


def test_weight_gradient_of_an_all_ones_layer_counts_the_taps_inside():
    """x = ones [1, 8, 30, 30], gy = ones [1, 16, 30, 30] (padding 1, 225 tiles): dw[k, c, r, s]
    counts the outputs whose tap (r, s) lands inside the image, 29 or 30 along each axis (the
    first row or column of taps misses one output, the last too): the outer product of [29, 30, 29]."""
    x = np.ones((1, 8, 30, 30), np.float32)
    gy = np.ones((1, 16, 30, 30), np.float32)
    want = np.outer([29, 30, 29], [29, 30, 29]).astype(np.float32)
    for threads in (1, 2):
        gg.set_num_threads(threads)
        (dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=[16, 8, 3, 3], **_attrs(1))
        np.testing.assert_array_equal(dw, np.broadcast_to(want, (16, 8, 3, 3)))


@pytest.mark.parametrize("stride", [1, 2])
def test_weight_gradient_over_blocks_matches_pytorch(stride):
    torch = pytest.importorskip("torch")
    shape = (2, 16, 25, 47, 40) if stride == 1 else (2, 12, 45, 61, 33)
    x, wt, gy = _data(shape, stride, np.float32)
    theirs = torch.nn.grad.conv2d_weight(torch.from_numpy(x), wt.shape, torch.from_numpy(gy), stride=stride,
                                         padding=1).numpy()
    ours = _weight_grad(x, gy, shape[4], stride)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * np.max(np.abs(theirs)))


@pytest.mark.parametrize("stride", [1, 2])
def test_float64_gradients_match_finite_differences(stride):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 6, 19 if stride == 2 else 7))  # stride 2: 3 x 10 outputs, rows past 8
    w = rng.standard_normal((12, 8, 3, 3)) / np.sqrt(72)
    want = "winograd2s2" if stride == 2 else "winograd4"
    assert _C.cpu_conv_algorithm("Conv2DBackwardWeight", list(x.shape), list(w.shape), _attrs(stride), "float64") == want
    assert gg.debug.gradcheck(lambda a, b: gg.nn.functional.conv2d(a, b, stride=stride, padding=1), [x, w])
