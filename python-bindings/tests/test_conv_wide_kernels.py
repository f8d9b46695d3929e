"""Convolutions whose kernel is nearly as wide as the image (a text CNN's Conv2d(1, K, (k, E)) over
the [tokens, E] plane of embeddings: one output column of E input columns): the CPU kernels keep
to the real output pixels (conv.cpp's pixel_layout: the flat layout, whose GEMMs also compute the
W - Wo surplus columns of every row, only while at most half its columns are surplus), so their
workspaces hold no [K, (Ho - 1)*W + Wo] product; forward and both gradients match NumPy on 1
and 2 threads."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import debug

# (N, C, H, W, K, (R, S)): text CNNs' windows of 2-4 tokens over 40 embedding columns, one
# window a little narrower than the image (Wo = 3 of W = 40), and a 7x7 kernel over 8x8 images.
SHAPES = [
    (3, 1, 12, 40, 16, (2, 40)),
    (2, 1, 9, 40, 24, (4, 40)),
    (2, 2, 10, 40, 8, (3, 38)),
    (4, 3, 8, 8, 16, (7, 7)),
]


@pytest.fixture(autouse=True)
def restore_threads():
    before = gg.get_num_threads()
    yield
    gg.set_num_threads(before)


def _data(shape, dtype, seed=0):
    n, c, h, w, k, (r, s) = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = (rng.standard_normal((k, c, r, s)) / np.sqrt(c * r * s)).astype(dtype)
    gy = rng.standard_normal((n, k, h - r + 1, w - s + 1)).astype(dtype)
    return x, wt, gy


def _taps(x, r, s):
    """x[n, c, i + a, j + b] as [N, C, Ho, Wo, R, S], float64."""
    ho, wo = x.shape[2] - r + 1, x.shape[3] - s + 1
    return np.stack([np.stack([x[:, :, a:a + ho, b:b + wo] for b in range(s)], -1) for a in range(r)], -2)


def _reference(x, wt, gy):
    t = _taps(x.astype(np.float64), *wt.shape[2:])
    y = np.einsum("nchwrs,kcrs->nkhw", t, wt.astype(np.float64))
    dw = np.einsum("nkhw,nchwrs->kcrs", gy.astype(np.float64), t)
    dx = np.zeros(x.shape)
    for a in range(wt.shape[2]):
        for b in range(wt.shape[3]):
            dx[:, :, a:a + gy.shape[2], b:b + gy.shape[3]] += np.einsum("nkhw,kc->nchw", gy, wt[:, :, a, b])
    return y, dx, dw


def _ours(x, wt, gy):
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0]}
    (y,) = K.run_numpy("Conv2D", x, wt, **attrs)
    (dx,) = K.run_numpy("Conv2DBackwardInput", gy, wt, input_shape=list(x.shape), **attrs)
    (dw,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=list(wt.shape), **attrs)
    return y, dx, dw


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-10), (np.float32, 2e-5)])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:4])) + f"-k{s[4]}-{s[5][0]}x{s[5][1]}")
def test_forward_and_gradients_match_numpy(shape, dtype, tol, threads):
    gg.set_num_threads(threads)
    x, wt, gy = _data(shape, dtype)
    for name, got, want in zip(["y", "dx", "dw"], _ours(x, wt, gy), _reference(x, wt, gy)):
        assert got.shape == want.shape and got.dtype == dtype, name
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max(), err_msg=name)


def _conv_workspaces(plan):
    """The workspace bytes of each Conv2D* step of a plan, by op."""
    sizes = {b["id"]: b["bytes"] for b in plan.buffers}
    return {s["op"]: sizes[s["workspace"]] for s in plan.steps if s["op"].startswith("Conv2D") and s["workspace"] >= 0}


@pytest.mark.parametrize("threads", [1, 2])
def test_a_text_cnn_window_needs_no_workspace_for_the_surplus_columns(threads):
    # 32 tokens of 300-wide embeddings, a window of 3 tokens: 30 output pixels an image, where the
    # flat layout computes (30 - 1) * 300 + 1 = 8701 columns, [64, 8701] float32 = 2.2 MB an image.
    gg.set_num_threads(threads)
    n, length, width, k, window = 2, 32, 300, 64, 3
    flat_product = k * ((length - window) * width + 1) * 4
    x = gg.randn(n, 1, length, width, requires_grad=True)
    conv = gg.nn.Conv2d(1, k, (window, width))
    conv(x).sum().backward()
    workspaces = _conv_workspaces(debug.explain([x.grad, conv.weight.grad]))  # the gradient of a sum needs no y
    workspaces.update(_conv_workspaces(debug.explain(conv(x))))
    assert set(workspaces) == {"Conv2D", "Conv2DBackwardInput", "Conv2DBackwardWeight"}, workspaces
    assert all(size < flat_product for size in workspaces.values()), (workspaces, flat_product)
