"""The forward of a 1x1 convolution at a stride above 1 without padding (ResNet's downsampling
shortcuts) gathers the GEMM's packed B panels straight from the image, one strided run per
output row (core-runtime/kernels/cpu/im2col_panels.h, StridedPointwisePanels; docs/cpu-threads.md,
"The 1x1 stride-2 forward: im2col in the panels"): no im2col matrix is stored. Exact values of an
identity filter over an image of distinct integers, the float64 formula in both dtypes on 1 and 2
threads (odd sizes, strides 2 and 3 and unequal ones, groups, bias, several images a GEMM whose
runs the GEMM's slivers cut), the baseline kernels against this CPU's, float64 finite
differences, the workspace, and PyTorch's conv2d."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C, debug

from isa_runs import assert_runs_agree, outputs_by_isa

# (N, C, H, W, K, (sh, sw), groups)
SHAPES = [
    (1, 3, 2, 2, 5, (2, 2), 1),
    (3, 7, 9, 11, 9, (2, 2), 1),  # odd sizes: the last row and column are never read
    (13, 16, 8, 8, 20, (2, 2), 1),  # 4x4 outputs, several images a GEMM
    (5, 33, 16, 16, 40, (2, 2), 1),
    (4, 6, 10, 13, 8, (3, 3), 1),
    (2, 5, 7, 12, 6, (2, 3), 1),
    (3, 4, 6, 9, 7, (1, 2), 1),  # strided along W only
    (2, 8, 12, 10, 12, (2, 2), 4),  # groups
    (37, 9, 8, 8, 24, (2, 2), 1),
]


@pytest.fixture(autouse=True)
def restore_threads():
    before = gg.get_num_threads()
    yield
    gg.set_num_threads(before)


def _ids(s):
    n, c, h, w, k, (sh, sw), groups = s
    return f"{n}x{c}x{h}x{w}-k{k}-s{sh}x{sw}-g{groups}"


def _data(shape, dtype, seed=0):
    n, c, h, w, k, _, groups = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = (rng.standard_normal((k, c // groups, 1, 1)) / np.sqrt(c // groups)).astype(dtype)
    b = rng.standard_normal(k).astype(dtype)
    return x, wt, b


def _attrs(stride, groups):
    return {"stride": list(stride), "padding": [0, 0, 0, 0], "groups": groups}


def _ours(x, wt, b, stride, groups):
    (y,) = K.run_numpy("Conv2D", x, wt, b, **_attrs(stride, groups))
    return y


def _reference(x, wt, b, stride, groups):
    """y[n, k, i, j] = b[k] + sum_c x[n, c, i*sh, j*sw] w[k, c] within k's group, in float64."""
    xs = x.astype(np.float64)[:, :, ::stride[0], ::stride[1]]
    n, c, ho, wo = xs.shape
    k = wt.shape[0]
    xg = xs.reshape(n, groups, c // groups, ho, wo)
    wg = wt.astype(np.float64).reshape(groups, k // groups, c // groups)
    y = np.einsum("ngchw,gkc->ngkhw", xg, wg).reshape(n, k, ho, wo)
    return y + b.astype(np.float64)[None, :, None, None]


def test_the_shapes_take_the_gemm():
    for n, c, h, w, k, stride, groups in SHAPES:
        assert _C.cpu_conv_algorithm("Conv2D", [n, c, h, w], [k, c // groups, 1, 1], _attrs(stride, groups),
                                     "float32") == "gemm"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
def test_strided_pointwise_forward_matches_the_formula_on_one_and_two_threads(shape, dtype):
    stride, groups = shape[5], shape[6]
    x, wt, b = _data(shape, dtype)
    want = _reference(x, wt, b, stride, groups)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for threads in (1, 2):
        gg.set_num_threads(threads)
        got = _ours(x, wt, b, stride, groups)
        assert got.shape == want.shape and got.dtype == dtype
        assert np.max(np.abs(got - want)) <= tol * np.max(np.abs(want)), (shape, dtype, threads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
def test_identity_filters_read_every_pixel_from_its_place(shape, dtype):
    """Output channel c of the identity filter is x[:, c, ::sh, ::sw] exactly (an image of distinct
    integers, so a value read from the wrong pixel, image or channel shows)."""
    n, c, h, w, _, stride, groups = shape
    x = (np.arange(n * c * h * w) + 1).reshape(n, c, h, w).astype(dtype)
    wt = np.eye(c, dtype=dtype).reshape(c, c, 1, 1)
    for threads in (1, 2):
        gg.set_num_threads(threads)
        y = _ours(x, wt, np.zeros(c, dtype), stride, 1)
        np.testing.assert_array_equal(y, x[:, :, ::stride[0], ::stride[1]])


def test_identity_reference_values():
    """The expectation above for one 1-channel 5x5 image of 1 .. 25 at stride 2, written out."""
    x = np.arange(1, 26, dtype=np.float32).reshape(1, 1, 5, 5)
    y = _ours(x, np.ones((1, 1, 1, 1), np.float32), np.zeros(1, np.float32), (2, 2), 1)
    np.testing.assert_array_equal(y[0, 0], [[1, 3, 5], [11, 13, 15], [21, 23, 25]])


_CHILD = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import test_conv_strided_pointwise as t
out = {}
for dtype in (np.float32, np.float64):
    for i, shape in enumerate(t.SHAPES):
        x, wt, b = t._data(shape, dtype, seed=3)
        out[f"{np.dtype(dtype).name}_{i}"] = t._ours(x, wt, b, shape[5], shape[6])
np.savez(sys.argv[2], **out)
"""


def test_baseline_kernels_agree_with_this_cpus(tmp_path):
    """The same convs with the kernels capped at the baseline ISA and on this CPU's."""
    assert_runs_agree(outputs_by_isa(_CHILD, tmp_path))


def test_strided_pointwise_float64_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 6, 7, 9))
    w = rng.standard_normal((5, 6, 1, 1)) / np.sqrt(6)
    assert gg.debug.gradcheck(lambda a, b: gg.nn.functional.conv2d(a, b, stride=2), [x, w])


def _forward_workspace(x, w, **kw):
    plan = debug.explain(gg.nn.functional.conv2d(x, w, **kw))
    sizes = {b["id"]: b["bytes"] for b in plan.buffers}
    (ws,) = [sizes[s["workspace"]] for s in plan.steps if s["op"] == "Conv2D"]
    return ws


@pytest.mark.parametrize("threads", [1, 2])
def test_the_forward_workspace_holds_no_im2col_matrix(threads):
    """ResNet-18's layer4.0 shortcut ([32,256,8,8] -> 512, stride 2): its forward runs the same
    GEMMs as the 1x1 stride-2 conv with padding 1 of [32,256,6,6] (4x4 outputs too, as many images
    a GEMM), whose im2col writes the padding's zeros into a stored matrix, [256, images x 16] for
    each thread's slot; the unpadded one's workspace holds no such matrix (at least one image's,
    [256, 16] float32, less)."""
    gg.set_num_threads(threads)
    w = gg.randn(512, 256, 1, 1)
    strided = _forward_workspace(gg.randn(32, 256, 8, 8), w, stride=2)
    padded = _forward_workspace(gg.randn(32, 256, 6, 6), w, stride=2, padding=1)
    one_image_im2col = 256 * 16 * 4
    assert strided + one_image_im2col <= padded, (strided, padded)


def test_strided_pointwise_forward_matches_pytorch():
    torch = pytest.importorskip("torch")
    x, wt, b = _data((13, 16, 8, 8, 20, (2, 2), 1), np.float32, seed=5)
    want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(wt), torch.from_numpy(b), stride=2)
    got = _ours(x, wt, b, (2, 2), 1)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5 * np.abs(want.numpy()).max())
