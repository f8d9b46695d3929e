"""The CPU convolutions that pack their weights once a call as the GEMM's A (docs/cpu-threads.md,
"The weights packed once a call") pack wide layers on every thread, a range of MR-row slivers
each: the 3x3 stride-2 forward by tap groups (ResNet-18's layer3.0.conv1 and layer4.0.conv1), the
GEMM forward of other layers and the input gradient (A = the weights transposed). Output channels
that leave a partial last sliver, on 1, 2 and 3 threads: the same bits on every thread count, and
the float64 direct formula."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

from conv3x3_data import restore_threads_and_algo  # noqa: F401 (autouse fixture)

# (N, C, H, W, K, R, stride, padding, the algorithm the CPU takes): K * C * R * S large enough that
# the packed weights are shared by the threads; K leaves a partial sliver for MR = 6 and MR = 8.
CASES = [
    (3, 96, 8, 8, 141, 3, 2, 1),      # tap groups (rows of 4 outputs)
    (2, 72, 14, 14, 133, 3, 2, 1),    # tap groups (rows of 7 outputs)
    (2, 40, 12, 12, 203, 5, 1, 2),    # a 5x5 layer: the im2col GEMM
    (3, 256, 8, 8, 141, 1, 2, 0),     # the 1x1 stride-2 shortcut
]


def _attrs(r, stride, pad):
    return {"stride": [stride, stride], "padding": [pad] * 4}


def _data(case, dtype):
    n, c, h, w, k, r, stride, pad = case
    rng = np.random.default_rng(n * c + k)
    ho, wo = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - r) // stride + 1
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = (rng.standard_normal((k, c, r, r)) / np.sqrt(c * r * r)).astype(dtype)
    gy = rng.standard_normal((n, k, ho, wo)).astype(dtype)
    return x, wt, gy


def _taps(x, r, stride, pad, ho, wo):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    return np.stack([np.stack([xp[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride] for j in range(r)], -1)
                     for i in range(r)], -2)  # [N, C, Ho, Wo, R, S]


def _run(direction, case, x, wt, gy):
    n, c, h, w, k, r, stride, pad = case
    if direction == "forward":
        (y,) = K.run_numpy("Conv2D", x, wt, **_attrs(r, stride, pad))
    else:
        (y,) = K.run_numpy("Conv2DBackwardInput", gy, wt, input_shape=[n, c, h, w], **_attrs(r, stride, pad))
    return np.asarray(y)


def _ref(direction, case, x, wt, gy):
    n, c, h, w, k, r, stride, pad = case
    if direction == "forward":
        return np.einsum("nchwrs,kcrs->nkhw", _taps(x, r, stride, pad, gy.shape[2], gy.shape[3]), wt.astype(np.float64))
    # dx is the adjoint of the forward: scatter gy through every tap.
    dx = np.zeros((n, c, h + 2 * pad, w + 2 * pad))
    g64, w64 = gy.astype(np.float64), wt.astype(np.float64)
    for i in range(r):
        for j in range(r):
            dx[:, :, i:i + stride * gy.shape[2]:stride, j:j + stride * gy.shape[3]:stride] += \
                np.einsum("nkhw,kc->nchw", g64, w64[:, :, i, j])
    return dx[:, :, pad:pad + h, pad:pad + w]


def test_the_cases_take_a_gemm_with_weights_packed_once():
    for case in CASES:
        n, c, h, w, k, r, stride, pad = case
        algo = _C.cpu_conv_algorithm("Conv2D", [n, c, h, w], [k, c, r, r], _attrs(r, stride, pad), "float32")
        assert algo == "gemm", (case, algo)


@pytest.mark.parametrize("direction", ["forward", "input_grad"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weights_packed_by_every_thread_give_one_threads_bits(direction, case, dtype):
    x, wt, gy = _data(case, dtype)
    ref = _ref(direction, case, x, wt, gy)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    results = []
    for threads in (1, 2, 3):
        gg.set_num_threads(threads)
        got = _run(direction, case, x, wt, gy)
        assert got.shape == ref.shape
        assert np.max(np.abs(got - ref)) <= tol * np.max(np.abs(ref)), (direction, case, dtype, threads)
        results.append(got)
    for got in results[1:]:
        np.testing.assert_array_equal(got, results[0])
