"""Winograd convolutions of wide layers with few tiles (ResNet-18's layer4 at batch 32, any
many-channel 3x3 layer at batch 1) run their forward and input gradient by chunks of output
channels (core-runtime/kernels/cpu/conv_winograd.cpp, filter_chunks_suit; the C++ test
WinogradFilterChunksMatchNaiveFormulas checks that these shapes take that schedule). Here: both
directions against the float64 formula in both dtypes on 1 and 2 threads, float64
finite-difference gradients, the float32 error bound of docs/numerics.md, and PyTorch where it
is importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K

from conv3x3_data import conv3x3_data

# (N, C, H, W, K, [top, bottom, left, right] padding): channel counts off the vector and sliver
# widths, partial tiles, a last chunk narrower than the others, asymmetric padding, and
# ResNet-18's layer4 at a small batch.
SHAPES = [
    (1, 64, 4, 4, 260, [1, 1, 1, 1]),
    (2, 90, 5, 3, 200, [1, 1, 1, 1]),
    (1, 40, 3, 4, 450, [0, 2, 2, 1]),
    (4, 512, 4, 4, 512, [1, 1, 1, 1]),
]


@pytest.fixture
def threads():
    before = gg.get_num_threads()
    yield gg.set_num_threads
    gg.set_num_threads(before)


def _forward_ref(x, w, pad):
    """y[n, k, i, j] = sum_{c, r, s} xpad[n, c, i + r, j + s] w[k, c, r, s], in float64."""
    pt, pb, pl, pr = pad
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ho, wo = xp.shape[2] - 2, xp.shape[3] - 2
    y = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for r in range(3):
        for s in range(3):
            y += np.einsum("nchw,kc->nkhw", xp[:, :, r:r + ho, s:s + wo], w[:, :, r, s].astype(np.float64))
    return y


def _input_grad_ref(gy, w, x_shape, pad):
    """The adjoint of _forward_ref in x: every tap's product added back where it read."""
    pt, pb, pl, pr = pad
    n, c, h, wd = x_shape
    ho, wo = gy.shape[2], gy.shape[3]
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    for r in range(3):
        for s in range(3):
            dxp[:, :, r:r + ho, s:s + wo] += np.einsum("nkhw,kc->nchw", gy.astype(np.float64),
                                                       w[:, :, r, s].astype(np.float64))
    return dxp[:, :, pt:pt + h, pl:pl + wd]


def _data(shape, dtype, seed=0):
    return conv3x3_data(shape, dtype, seed)


def _ours(direction, x, wt, gy, pad):
    attrs = {"stride": [1, 1], "padding": list(pad)}
    if direction == "forward":
        return np.asarray(K.run_numpy("Conv2D", x, wt, **attrs)[0], np.float64)
    return np.asarray(K.run_numpy("Conv2DBackwardInput", gy, wt, input_shape=list(x.shape), **attrs)[0], np.float64)


def _ref(direction, x, wt, gy, pad):
    return _forward_ref(x, wt, pad) if direction == "forward" else _input_grad_ref(gy, wt, x.shape, pad)


@pytest.mark.parametrize("direction", ["forward", "input_grad"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:5])))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chunked_winograd_matches_the_formula_on_one_and_two_threads(threads, direction, shape, dtype):
    x, wt, gy = _data(shape, dtype)
    ref = _ref(direction, x, wt, gy, shape[5])
    tol = 2e-5 if dtype == np.float32 else 1e-12
    got = {}
    for n in (1, 2):
        threads(n)
        got[n] = _ours(direction, x, wt, gy, shape[5])
        assert np.max(np.abs(got[n] - ref)) <= tol * np.max(np.abs(ref)), (direction, shape, dtype, n)
    # Each output is one GEMM's sum in a fixed order, whichever thread computes it.
    np.testing.assert_array_equal(got[1], got[2])


def test_chunked_winograd_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 8, 3, 3))
    w = rng.standard_normal((460, 8, 3, 3)) / np.sqrt(72)
    wt = gg.tensor(w)
    # The gradient in x runs the input gradient by chunks too (460 -> 8 channels, one tile).
    assert gg.debug.gradcheck(lambda t: gg.nn.functional.conv2d(t, wt, padding=1), [x])


@pytest.mark.parametrize("direction", ["forward", "input_grad"])
def test_chunked_winograd_float32_error_within_three_times_a_plain_sum(direction):
    shape = (4, 512, 4, 4, 512, [1, 1, 1, 1])
    x, wt, gy = _data(shape, np.float32, seed=3)
    ref = _ref(direction, x, wt, gy, shape[5])
    # The bound's yardstick: a plain float32 sum of the same products (the GEMM path).
    err_ours = np.max(np.abs(_ours(direction, x, wt, gy, shape[5]) - ref))
    K.set_cpu_conv_algo("gemm")
    try:
        err_gemm = np.max(np.abs(_ours(direction, x, wt, gy, shape[5]) - ref))
    finally:
        K.set_cpu_conv_algo("auto")
    assert err_ours <= 3 * err_gemm, (err_ours, err_gemm)


@pytest.mark.parametrize("direction", ["forward", "input_grad"])
def test_chunked_winograd_matches_pytorch(direction):
    torch = pytest.importorskip("torch")
    shape = (4, 512, 4, 4, 512, [1, 1, 1, 1])
    x, wt, gy = _data(shape, np.float32, seed=5)
    tx, tw, tg = (torch.from_numpy(a) for a in (x, wt, gy))
    if direction == "forward":
        want = torch.nn.functional.conv2d(tx, tw, padding=1).numpy()
    else:
        want = torch.nn.grad.conv2d_input(tx.shape, tw, tg, padding=1).numpy()
    got = _ours(direction, x, wt, gy, shape[5])
    assert np.max(np.abs(got - want)) <= 1e-4 * np.max(np.abs(want))
