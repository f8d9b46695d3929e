"""CPU vs CUDA parity: every op-table entry (op_specs/) on random data (never zeros), odd sizes
and non-contiguous inputs, plus larger shapes that take the kernels' other paths (multi-tile
GEMMs, block reductions, both convolution algorithms, split-K weight gradients, grid-stride
loops past the grid limits: docs/debugging.md section 1). Runs on the GPU machine: pytest -m cuda."""
import numpy as np
import pytest

import glassgrad
from glassgrad import _C
from glassgrad.testing import check_fused_instruction, fused_cases, fused_program, run_kernel, to_tensor
from op_specs import SPECS, case_seed

pytestmark = pytest.mark.cuda

EPS = {"float32": np.finfo(np.float32).eps, "float64": np.finfo(np.float64).eps}


def _scale(a):
    finite = a[np.isfinite(a)]
    return float(np.max(np.abs(finite))) if finite.size else 1.0


def assert_parity(cpu, gpu, dtype, what, rtol=None, atol=None):
    """CUDA output == CPU output: exact for integers and bools; for floats within the spec's
    tolerance plus a few hundred ulps of the output's scale (sums run in another order)."""
    assert gpu.shape == cpu.shape, f"{what}: shape {gpu.shape} != {cpu.shape}"
    assert gpu.dtype == cpu.dtype, f"{what}: dtype {gpu.dtype} != {cpu.dtype}"
    if cpu.dtype.kind != "f":
        np.testing.assert_array_equal(gpu, cpu, err_msg=what)
        return
    assert not np.isnan(gpu).any() or np.isnan(cpu).any(), f"{what}: NaN on the GPU only"
    scale = _scale(cpu)
    eps = EPS.get(str(cpu.dtype), EPS["float32"])
    rtol = rtol if rtol is not None else (1e-4 if cpu.dtype == np.float32 else 1e-9)
    atol = atol if atol is not None else 256 * eps * max(scale, 1.0)
    np.testing.assert_allclose(gpu, cpu, rtol=rtol, atol=atol, err_msg=what)


def run_both(op, arrays, attrs, contiguous=True):
    cpu = run_kernel(op, arrays, attrs, device="cpu", contiguous=contiguous)
    gpu = run_kernel(op, arrays, attrs, device="cuda", contiguous=contiguous)
    return cpu, gpu


CASES = [(s, dt, n) for s in SPECS for dt in s.dtypes for n in s.sizes]


@pytest.mark.parametrize("spec,dtype,n", CASES, ids=[f"{s.id}-{d}-{n}" for s, d, n in CASES])
def test_cuda_matches_cpu_on_the_op_table(spec, dtype, n):
    rng = np.random.default_rng(case_seed(spec.id, dtype, n, "cuda"))
    arrays = spec.inputs(rng, dtype, n)
    attrs = spec.attrs_for(n)
    if spec.cuda_unsupported:  # refused with a reason, never computed wrong
        with pytest.raises(glassgrad.UnsupportedError, match="fix:"):
            run_kernel(spec.op, arrays, attrs, device="cuda")
        return
    for contiguous in ([True, False] if spec.noncontiguous else [True]):
        cpu, gpu = run_both(spec.op, arrays, attrs, contiguous)
        idx = spec.outputs if spec.outputs is not None else range(len(cpu))
        for k in idx:
            # The spec's own tolerance bounds CUDA's rounding too (BatchNorm on data offset by
            # 1000 cancels about 3 digits in x - mean, whichever order the sums run in).
            scale_atol = 256 * EPS.get(dtype, EPS["float32"]) * max(_scale(cpu[k]), 1.0) if cpu[k].dtype.kind == "f" else 0.0
            assert_parity(cpu[k], gpu[k], dtype, f"{spec.id} n={n} output {k} contiguous={contiguous}",
                          rtol=max(spec.rtol.get(dtype, 0.0), 1e-4 if dtype == "float32" else 1e-9),
                          atol=max(spec.atol.get(dtype, 0.0), scale_atol))


def _rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape,b_shape", [
    ((70, 130), (130, 65)),            # several 64x64 tiles, ragged edges
    ((3, 1, 33, 17), (1, 2, 17, 40)),  # broadcast batch axes
    ((1, 130), (130, 9)),              # row @ matrix
    ((5, 64, 64), (64, 1)),            # batch @ column
    ((1, 1), (1, 1)),
])
def test_cuda_matmul_matches_cpu_on_larger_and_broadcast_shapes(rng, dtype, a_shape, b_shape):
    a, b = _rand(rng, *a_shape, dtype=dtype), _rand(rng, *b_shape, dtype=dtype)
    cpu, gpu = run_both("MatMul", [a, b], {})
    assert_parity(cpu[0], gpu[0], dtype, f"MatMul {a_shape} @ {b_shape}")


def test_cuda_matmul_reads_transposed_views_without_copying(rng):
    a = _rand(rng, 90, 70)
    b = _rand(rng, 50, 90)
    ta = _C.Tensor.from_numpy(a, "cuda").transpose(0, 1)   # [70, 90], column-major
    tb = _C.Tensor.from_numpy(b, "cuda").transpose(0, 1)   # [90, 50]
    (out,) = _C.run_op("MatMul", [ta, tb], {}, "")
    assert_parity(a.T.astype(np.float64) @ b.T.astype(np.float64) * 1.0, out.numpy().astype(np.float64),
                  "float64", "MatMul of transposed views", rtol=1e-4, atol=1e-3)



def _operand(arr, transposed, offset):
    """A CUDA view of `arr` (rows x cols): stored transposed (its rows contiguous along the
    other axis) and/or starting `offset` elements into a larger buffer (not 16-byte aligned)."""
    stored = np.ascontiguousarray(arr.T) if transposed else arr
    if offset:
        flat = np.concatenate([np.full(offset, 7.0, arr.dtype), stored.ravel()])
        t = _C.Tensor.from_numpy(flat, "cuda").slice(0, offset, offset + stored.size).reshape(list(stored.shape))
    else:
        t = _C.Tensor.from_numpy(np.ascontiguousarray(stored), "cuda")
    return t.transpose(0, 1) if transposed else t


# (M, K, N): the register tiles: 128 x 128 (many outputs), 64 x 128 and 32 x 64 with and
# without k split, 128 x 128 with k split (a weight gradient's few outputs over a long k, the
# last three; [384, 384] over k = 16384 splits 14 ways on 132 multiprocessors and 6 on 8, so the
# last partition is shorter than the others); odd and multiple-of-4 extents (the 16-byte loads
# and stores and their fallbacks). The splits follow the device's multiprocessor count.
# float64 has the 32 x 64 tile only: the largest size is float32's alone.
TILED_SIZES = [(2048, 64, 1152), (200, 130, 150), (33, 300, 70), (20, 100, 45), (129, 37, 67), (384, 2048, 384),
               (300, 4000, 270), (384, 16384, 384)]
TILED_CASES = [(d, mkn) for mkn in TILED_SIZES for d in ("float32", "float64") if d == "float32" or mkn[0] < 2048]


@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
@pytest.mark.parametrize("dtype,mkn", TILED_CASES, ids=[f"{d}-{m}x{k}x{n}" for d, (m, k, n) in TILED_CASES])
def test_cuda_matmul_register_tiles_match_numpy_in_every_layout(rng, dtype, layout, mkn):
    m, k, n = mkn
    a, b = _rand(rng, m, k, dtype=dtype), _rand(rng, k, n, dtype=dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for offset in (0, 1):
        ta = _operand(a, layout[0] == "t", offset)
        tb = _operand(b, layout[1] == "t", offset)
        (out,) = _C.run_op("MatMul", [ta, tb], {}, "")
        got = out.numpy()
        assert got.shape == (m, n) and got.dtype == np.dtype(dtype)
        tol = (2e-5 if dtype == "float32" else 1e-12) * np.sqrt(k) * max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=f"MatMul {layout} {mkn} offset {offset}")


# The third case takes the 128 x 128 tiles over batches (6 products of 8 x 9 tiles): the
# 16-byte path of every product reads its operands at batch offsets (docs/cuda.md, "Dense float
# products"). The last two share B across the batch (a Linear layer's W^T), which is copied
# row-major into the workspace first: 36 tiles a product, and edge tiles in every direction.
@pytest.mark.parametrize("a_shape,b_shape", [((3, 1, 70, 37), (1, 2, 37, 90)), ((4, 130, 64), (64, 96)),
                                             ((2, 1, 1024, 68), (1, 3, 68, 1152)), ((4, 512, 68), (68, 1152)),
                                             ((3, 300, 132), (132, 260))])
def test_cuda_matmul_register_tiles_broadcast_batches_of_transposed_views(rng, a_shape, b_shape):
    a, b = _rand(rng, *a_shape), _rand(rng, *b_shape)
    # B stored with its last two axes swapped: each product reads it k-contiguous ('t').
    bt = np.ascontiguousarray(np.swapaxes(b, -1, -2))
    tb = _C.Tensor.from_numpy(bt, "cuda").transpose(len(b_shape) - 2, len(b_shape) - 1)
    (out,) = _C.run_op("MatMul", [_C.Tensor.from_numpy(a, "cuda"), tb], {}, "")
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out.numpy(), want, rtol=0, atol=2e-5 * np.sqrt(a_shape[-1]) * np.abs(want).max())


CONV_SHAPES = [
    # (N, C, H, W), (K, C, R, S), stride, padding [t, b, l, r]
    ((2, 1, 28, 28), (8, 1, 3, 3), [1, 1], [1, 1, 1, 1]),     # first layer: direct
    ((2, 3, 19, 23), (5, 3, 5, 5), [2, 2], [2, 1, 0, 2]),     # stride 2, asymmetric padding
    ((3, 16, 12, 10), (32, 16, 3, 3), [1, 1], [1, 1, 1, 1]),  # implicit GEMM
    ((8, 32, 16, 16), (8, 32, 3, 3), [1, 2], [0, 0, 1, 1]),   # split-K weight gradient
    ((2, 8, 9, 9), (4, 8, 1, 1), [1, 1], [0, 0, 0, 0]),       # 1x1
    ((1, 2, 70, 70), (3, 2, 3, 3), [1, 1], [1, 1, 1, 1]),     # output plane > 1024 pixels (seed 5.1)
    ((16, 8, 32, 32), (96, 8, 3, 3), [1, 1], [1, 1, 1, 1]),   # 128 x 128 GEMM tiles
    ((2, 64, 8, 8), (80, 64, 3, 3), [1, 1], [1, 1, 1, 1]),    # split k in forward and input gradient
    ((4, 40, 7, 9), (48, 40, 3, 3), [2, 1], [1, 0, 2, 1]),    # 64-row tiles, strided input gradient
    ((2, 16, 9, 9), (24, 16, 1, 1), [2, 2], [0, 0, 0, 0]),    # 1x1 stride 2: input-gradient phases with no taps
    ((2, 8, 11, 10), (12, 8, 2, 3), [3, 2], [0, 1, 2, 0]),    # stride 3 x 2, even kernel: 6 phases
]


def _out_hw(x, w, stride, pad):
    return ((x[2] + pad[0] + pad[1] - w[2]) // stride[0] + 1, (x[3] + pad[2] + pad[3] - w[3]) // stride[1] + 1)


# Winograd's transforms round differently from direct summation (kernels/cuda/winograd.cu):
# float32 results within this fraction of the output's largest magnitude ('auto' may pick
# either Winograd).
WINOGRAD_TOL = {"winograd2": 5e-5, "winograd4": 2e-4, "auto": 2e-4,
                "winograd2:32x32k16": 5e-5, "winograd4:32x32k16": 2e-4,
                "winograd2:128x128w": 5e-5, "winograd4:64x128w": 2e-4}


def _conv_parity(rng, algo, dtype, xs, ws, stride, pad):
    x, w, b = _rand(rng, *xs, dtype=dtype), _rand(rng, *ws, dtype=dtype), _rand(rng, ws[0], dtype=dtype)
    oh, ow = _out_hw(xs, ws, stride, pad)
    g = _rand(rng, xs[0], ws[0], oh, ow, dtype=dtype)
    attrs = {"stride": stride, "padding": pad}
    glassgrad.cuda.set_conv_algo(algo)
    try:
        for op, arrays, extra in [("Conv2D", [x, w, b], {}), ("Conv2D", [x, w], {}),
                                  ("Conv2D", [x, w, b], {"activation": "relu"}),
                                  ("Conv2DBackwardInput", [g, w], {"input_shape": list(xs)}),
                                  ("Conv2DBackwardWeight", [x, g], {"weight_shape": list(ws)})]:
            cpu, gpu = run_both(op, arrays, {**attrs, **extra})
            tol = WINOGRAD_TOL.get(algo) if dtype == "float32" else None
            atol = None if tol is None else tol * float(np.max(np.abs(cpu[0])))
            assert_parity(cpu[0], gpu[0], dtype, f"{op} {extra.get('activation', '')} {xs} {ws} algo={algo}",
                          atol=atol)
    finally:
        glassgrad.cuda.set_conv_algo("auto")


@pytest.mark.parametrize("algo", ["auto", "direct", "igemm", "winograd2", "winograd4",
                                  "igemm:32x32k16", "igemm:64x32", "igemm:32x64", "igemm:128x64", "igemm:128x128w",
                                  "igemm:128x64k16"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,stride,pad", CONV_SHAPES, ids=[f"{c[0]}x{c[1]}" for c in CONV_SHAPES])
def test_cuda_conv2d_forward_and_backwards_match_cpu(rng, algo, dtype, xs, ws, stride, pad):
    """Every algorithm on every shape; a forced algorithm that does not apply (Winograd on a
    strided or non-3x3 layer, or float64) runs the implicit GEMM, and a forced product tile that
    a direction has no kernel of ('igemm:32x32k16' and '64x32' are weight-gradient tiles,
    '32x64' and '128x64k16' forward and input-gradient ones) runs the heuristic's tile."""
    _conv_parity(rng, algo, dtype, xs, ws, stride, pad)


FEW_CHANNEL_SHAPES = [
    # 3x3 stride 1 with at most 4 input channels: the few-channel input gradient (32 x 32 tiles)
    ((4, 3, 32, 32), (64, 3, 3, 3), [1, 1], [1, 1, 1, 1]),    # ResNet-18's first layer, smaller batch
    ((3, 1, 28, 28), (16, 1, 3, 3), [1, 1], [0, 0, 0, 0]),    # SimpleCNN's first layer, no padding
    ((2, 2, 45, 33), (6, 2, 3, 3), [1, 1], [2, 0, 0, 1]),     # ragged tiles, K past a step of 4, asymmetric
    ((2, 4, 33, 70), (9, 4, 3, 3), [1, 1], [1, 1, 1, 1]),     # 4 channels, 3 tiles a row
]


@pytest.mark.parametrize("algo", ["direct:fewc", "auto"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,stride,pad", FEW_CHANNEL_SHAPES, ids=[f"{c[0]}x{c[1]}" for c in FEW_CHANNEL_SHAPES])
def test_cuda_few_channel_input_gradient_matches_cpu(rng, algo, dtype, xs, ws, stride, pad):
    """'direct:fewc' forces the few-channel input gradient (float32; float64 runs the direct
    kernels), 'auto' times it against the others; every op of the layer is checked."""
    _conv_parity(rng, algo, dtype, xs, ws, stride, pad)


@pytest.mark.parametrize("fast", [False, True])
def test_cuda_first_layer_input_gradient_heuristic_keeps_the_error_bound(rng, fast):
    """With the autotuner off, the input gradient of a 3x3 stride-1 layer of 3 channels runs the
    implicit GEMM by default (the few-channel kernel's float32 error is over the bound,
    docs/numerics.md), and the few-channel kernel with allow_fast_winograd; both match the CPU."""
    glassgrad.cuda.clear_conv_choices()
    was = glassgrad.cuda.conv_autotune()
    glassgrad.cuda.set_conv_autotune(False)
    glassgrad.backends.cudnn.allow_fast_winograd = fast
    try:
        xs, ws = (2, 3, 20, 18), (8, 3, 3, 3)
        g, w = _rand(rng, 2, 8, 20, 18), _rand(rng, *ws)
        cpu, gpu = run_both("Conv2DBackwardInput", [g, w],
                            {"stride": [1, 1], "padding": [1, 1, 1, 1], "input_shape": list(xs)})
        assert_parity(cpu[0], gpu[0], "float32", "first-layer input gradient, heuristic")
        lines = [c for c in glassgrad.cuda.conv_choices() if c.startswith("Conv2DBackwardInput x [2, 3, 20, 18]")]
        want = "few channels" if fast else "implicit GEMM"
        assert len(lines) == 1 and want in lines[0], glassgrad.cuda.conv_choices()
    finally:
        glassgrad.backends.cudnn.allow_fast_winograd = False
        glassgrad.cuda.set_conv_autotune(was)
        glassgrad.cuda.clear_conv_choices()


def test_cuda_conv_algo_names_a_product_tile_or_is_refused():
    glassgrad.cuda.set_conv_algo("igemm:32x32k16")
    try:
        assert glassgrad.cuda.conv_algo() == "igemm:32x32k16"
        with pytest.raises(ValueError, match="unknown product tile"):
            glassgrad.cuda.set_conv_algo("igemm:7x7")
        with pytest.raises(ValueError, match="unknown product tile"):
            glassgrad.cuda.set_conv_algo("direct:32x64")
        glassgrad.cuda.set_conv_algo("direct:fewc")
        assert glassgrad.cuda.conv_algo() == "direct:fewc"
    finally:
        glassgrad.cuda.set_conv_algo("auto")
    assert glassgrad.cuda.conv_algo() == "auto"


GENERIC_SHAPES = [
    # (N, C, H, W), (K, C/groups, R, S), stride, padding [t, b, l, r], dilation, groups
    ((4, 32, 16, 16), (32, 1, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 32),     # MobileNet depthwise
    ((4, 32, 16, 16), (32, 1, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 32),     # depthwise, stride 2
    ((2, 12, 11, 9), (18, 4, 3, 3), [1, 2], [0, 1, 2, 0], [1, 1], 3),       # grouped, asymmetric
    ((2, 8, 14, 13), (6, 8, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2], 1),        # dilated 'same'
    ((2, 8, 15, 12), (8, 4, 3, 2), [2, 1], [1, 0, 2, 1], [3, 2], 2),        # grouped and dilated
    ((2, 3, 40, 9), (5, 3, 33, 3), [1, 1], [16, 16, 1, 1], [1, 1], 1),      # 33 rows: past the tap masks
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs,ws,stride,pad,dil,groups", GENERIC_SHAPES,
                         ids=[f"{c[0]}x{c[1]}g{c[5]}d{c[4][0]}" for c in GENERIC_SHAPES])
def test_cuda_grouped_and_dilated_convolutions_match_cpu(rng, dtype, xs, ws, stride, pad, dil, groups):
    """The generic kernels (PyTorch's semantics), whatever algorithm is forced: all three ops,
    with bias and the fused ReLU. Filters wider than 32 taps run there too (the implicit GEMM's
    tap masks are 32 bits)."""
    x, w, b = _rand(rng, *xs, dtype=dtype), _rand(rng, *ws, dtype=dtype), _rand(rng, ws[0], dtype=dtype)
    oh = (xs[2] + pad[0] + pad[1] - dil[0] * (ws[2] - 1) - 1) // stride[0] + 1
    ow = (xs[3] + pad[2] + pad[3] - dil[1] * (ws[3] - 1) - 1) // stride[1] + 1
    g = _rand(rng, xs[0], ws[0], oh, ow, dtype=dtype)
    attrs = {"stride": stride, "padding": pad, "dilation": dil, "groups": groups}
    for algo in ("auto", "winograd4"):
        glassgrad.cuda.set_conv_algo(algo)
        try:
            for op, arrays, extra in [("Conv2D", [x, w, b], {}), ("Conv2D", [x, w, b], {"activation": "relu"}),
                                      ("Conv2DBackwardInput", [g, w], {"input_shape": list(xs)}),
                                      ("Conv2DBackwardWeight", [x, g], {"weight_shape": list(ws)})]:
                cpu, gpu = run_both(op, arrays, {**attrs, **extra})
                assert_parity(cpu[0], gpu[0], dtype, f"{op} {xs} {ws} groups={groups} dilation={dil} algo={algo}")
        finally:
            glassgrad.cuda.set_conv_algo("auto")


WINOGRAD_SHAPES = [
    ((4, 64, 16, 16), (64, 64, 3, 3), [1, 1], [1, 1, 1, 1]),      # a ResNet-18 stage-1 layer, smaller batch
    ((2, 130, 6, 5), (70, 130, 3, 3), [1, 1], [0, 2, 1, 1]),      # ragged tiles, asymmetric padding, > 64 rows
    ((3, 256, 4, 4), (256, 256, 3, 3), [1, 1], [1, 1, 1, 1]),     # one 4x4 tile per image (stage 4)
    ((64, 64, 32, 32), (64, 64, 3, 3), [1, 1], [1, 1, 1, 1]),     # over 48 MiB of tiles: several passes
]


@pytest.mark.parametrize("algo", ["winograd2", "winograd4", "auto", "winograd2:32x32k16", "winograd4:32x32k16",
                                  "winograd2:128x128w", "winograd4:64x128w"])
@pytest.mark.parametrize("xs,ws,stride,pad", WINOGRAD_SHAPES, ids=[f"{c[0]}x{c[1]}" for c in WINOGRAD_SHAPES])
def test_cuda_winograd_convolutions_match_cpu(rng, algo, xs, ws, stride, pad):
    """Winograd F(2x2) and F(4x4) in all three directions on layer shapes (passes, splits of the
    weight gradient, every product tile the heuristics pick); 'auto' times the candidates."""
    _conv_parity(rng, algo, "float32", xs, ws, stride, pad)


def test_cuda_conv_autotuner_caches_one_choice_per_shape(rng):
    """The plan-time autotuner times the candidates once and reports its choice; a second call
    of the same shape reuses it (the list does not grow) and the result still matches the CPU."""
    glassgrad.cuda.clear_conv_choices()
    xs, ws = (32, 64, 32, 32), (64, 64, 3, 3)  # 2.4 GFLOP: timed on GPUs of up to ~300 SMs
    x, w = _rand(rng, *xs), _rand(rng, *ws)
    attrs = {"stride": [1, 1], "padding": [1, 1, 1, 1]}
    for _ in range(2):
        cpu, gpu = run_both("Conv2D", [x, w], attrs)
        assert_parity(cpu[0], gpu[0], "float32", "Conv2D tuned", atol=2e-4 * float(np.max(np.abs(cpu[0]))))
    lines = [c for c in glassgrad.cuda.conv_choices() if c.startswith("Conv2D x [32, 64, 32, 32]")]
    assert len(lines) == 1, glassgrad.cuda.conv_choices()
    assert "timed:" in lines[0] and "winograd" in lines[0] and "implicit GEMM" in lines[0], lines[0]


def _choice_of(prefix):
    """The one cached choice line whose problem starts with `prefix`, without its bracketed note."""
    lines = [c for c in glassgrad.cuda.conv_choices() if c.startswith(prefix)]
    assert len(lines) == 1, glassgrad.cuda.conv_choices()
    return lines[0].rsplit(" [", 1)


@pytest.mark.parametrize("switch", ["cudnn.deterministic", "use_deterministic_algorithms"])
@pytest.mark.parametrize("op,extra", [
    ("Conv2D", {}),
    ("Conv2DBackwardInput", {"input_shape": [32, 64, 32, 32]}),
    ("Conv2DBackwardWeight", {"weight_shape": [64, 64, 3, 3]}),
])
def test_cuda_deterministic_conv_choice_is_the_heuristic_and_repeats_bit_for_bit(rng, switch, op, extra):
    """Under either deterministic switch the autotuner does not time (a timed choice could differ
    between runs, docs/numerics.md): on a shape it would time, the choice is the heuristic's (the
    one made with the autotuner off), its note says why, and two runs give the same bits."""
    xs, ws = (32, 64, 32, 32), (64, 64, 3, 3)  # 2.4 GFLOP: timed when tuning is allowed
    attrs = {"stride": [1, 1], "padding": [1, 1, 1, 1], **extra}
    if op == "Conv2D":
        arrays = [_rand(rng, *xs), _rand(rng, *ws)]
    elif op == "Conv2DBackwardInput":
        arrays = [_rand(rng, 32, 64, 32, 32), _rand(rng, *ws)]
    else:
        arrays = [_rand(rng, 32, 64, 32, 32), _rand(rng, *xs)]
    prefix = f"{op} x "
    was_tune = glassgrad.cuda.conv_autotune()
    try:
        glassgrad.cuda.clear_conv_choices()
        glassgrad.cuda.set_conv_autotune(False)
        heuristic_out = run_kernel(op, arrays, attrs, device="cuda")
        heuristic_choice, note = _choice_of(prefix)
        assert note.startswith("heuristic"), note
        glassgrad.cuda.set_conv_autotune(True)
        glassgrad.cuda.clear_conv_choices()
        if switch == "cudnn.deterministic":
            glassgrad.backends.cudnn.deterministic = True
        else:
            glassgrad.use_deterministic_algorithms(True)
        first = run_kernel(op, arrays, attrs, device="cuda")
        choice, note = _choice_of(prefix)
        assert note.startswith("heuristic (deterministic"), note
        assert choice == heuristic_choice, (choice, heuristic_choice)
        glassgrad.cuda.clear_conv_choices()
        second = run_kernel(op, arrays, attrs, device="cuda")
        for a, b, h in zip(first, second, heuristic_out):
            np.testing.assert_array_equal(a, b, err_msg=f"{op}: two deterministic runs differ")
            np.testing.assert_array_equal(a, h, err_msg=f"{op}: deterministic != heuristic choice")
        cpu = run_kernel(op, arrays, attrs, device="cpu")
        assert_parity(cpu[0], first[0], "float32", f"{op} deterministic",
                      atol=2e-4 * float(np.max(np.abs(cpu[0]))))
    finally:
        glassgrad.backends.cudnn.deterministic = False
        glassgrad.use_deterministic_algorithms(False)
        glassgrad.cuda.set_conv_autotune(was_tune)
        glassgrad.cuda.clear_conv_choices()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op,attrs", [
    ("Sum", {"dims": [], "keepdim": False}),
    ("Sum", {"dims": [0], "keepdim": True}),
    ("Mean", {"dims": [1, 2], "keepdim": False}),
    ("Max", {"dims": [2], "keepdim": False}),
    ("Var", {"dims": [0, 2], "keepdim": True, "correction": 1}),
    ("ArgMax", {"dim": 1, "keepdim": False}),
])
@pytest.mark.parametrize("shape", [(3000, 5, 7), (4, 1100, 3), (2, 3, 40000)])
def test_cuda_reductions_match_cpu_on_long_and_short_axes(rng, dtype, op, attrs, shape):
    x = _rand(rng, *shape, dtype=dtype)
    for contiguous in (True, False):
        cpu, gpu = run_both(op, [x], attrs, contiguous)
        assert_parity(cpu[0], gpu[0], dtype, f"{op} {attrs} {shape} contiguous={contiguous}")


@pytest.mark.parametrize("shape,dims,correction", [((4, 1, 3), [1], 1), ((5, 2, 3), [1], 2), ((3, 2, 7), [1], 9),
                                                    ((2, 1, 40000), [1], 1), ((3, 2, 1), [1, 2], 5)])
def test_cuda_variance_without_degrees_of_freedom_matches_cpu(rng, shape, dims, correction):
    # max(0, N - correction) = 0: NaN where N = 1 (every deviation 0), inf elsewhere, on both backends.
    x = _rand(rng, *shape, dtype="float64")
    cpu, gpu = run_both("Var", [x], {"dims": dims, "keepdim": False, "correction": correction})
    want = np.nan if np.prod([shape[d] for d in dims]) == 1 else np.inf
    np.testing.assert_array_equal(cpu[0], np.full(cpu[0].shape, want))
    np.testing.assert_array_equal(gpu[0], cpu[0])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,dim", [((3, 5000), 1), ((4, 7, 5), 1), ((6, 3), 0), ((2, 1, 9), -1)])
def test_cuda_softmax_family_matches_cpu_on_rows_and_columns(rng, op, shape, dim):
    x = _rand(rng, *shape) * 4
    cpu, gpu = run_both(op, [x], {"dim": dim})
    assert_parity(cpu[0], gpu[0], "float32", f"{op} {shape} dim={dim}")
    g = _rand(rng, *shape)
    cpu_b, gpu_b = run_both(op + "Backward", [g, cpu[0]], {"dim": dim})
    assert_parity(cpu_b[0], gpu_b[0], "float32", f"{op}Backward {shape} dim={dim}")


def test_cuda_cross_entropy_reports_a_bad_label_after_the_kernel(rng):
    logits = _rand(rng, 6, 10)
    labels = np.array([1, 2, 3, 10, 4, 11], dtype=np.int64)
    with pytest.raises(glassgrad.GlassgradIndexError) as e:
        _C.run_op("CrossEntropy", [to_tensor(logits, "cuda"), to_tensor(labels, "cuda")],
                  {"reduction": "mean"}, "loss")
    msg = str(e.value)
    assert "CrossEntropy 'loss'" in msg
    assert "label 10 at position 3" in msg and "10 classes" in msg
    assert "fix:" in msg


def test_cuda_cross_entropy_backward_alone_reports_a_bad_label(rng):
    # loss.backward() without reading the loss runs no forward kernel: the backward's own check
    # (a deferred one) raises the forward's error at the next synchronization
    logits = glassgrad.tensor(_rand(rng, 6, 10), device="cuda", requires_grad=True)
    labels = glassgrad.tensor(np.array([1, 2, 3, 10, 4, 11], dtype=np.int64), device="cuda") * 1  # not on the host
    glassgrad.nn.functional.cross_entropy(logits, labels).backward()
    with pytest.raises(glassgrad.GlassgradIndexError, match=r"CrossEntropy: label 10 at position 3 is out of range "
                       r"for 10 classes"):
        logits.grad.cpu().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_cuda_elementwise_past_the_grid_limits(dtype):
    # More elements than 65535 blocks x 1024 threads: the launchers cap the grid and the
    # kernels loop, so there is no "invalid configuration argument".
    n = 65535 * 1024 + 77
    rng = np.random.default_rng(3)
    if dtype == "bool":
        a = rng.random(n) > 0.5
        b = rng.random(n) > 0.5
        op = "Equal"
    else:
        a = (rng.random(n) * 100).astype(dtype)
        b = (rng.random(n) * 100).astype(dtype)
        op = "Add"
    (gpu,) = run_kernel(op, [a, b], {}, device="cuda")
    want = (a == b) if op == "Equal" else (a + b).astype(dtype)
    np.testing.assert_array_equal(gpu, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_cuda_copies_in_every_direction_keep_values(rng, dtype):
    x = (rng.standard_normal((5, 7, 9)) * 50).astype(dtype)
    t = _C.Tensor.from_numpy(x, "cuda")
    assert t.device == "cuda:0"
    np.testing.assert_array_equal(t.numpy(), x)
    view = t.permute([2, 0, 1]).slice(1, 1, 5, 2)          # strided device view
    np.testing.assert_array_equal(view.numpy(), np.transpose(x, (2, 0, 1))[:, 1:5:2])
    np.testing.assert_array_equal(view.contiguous().numpy(), np.transpose(x, (2, 0, 1))[:, 1:5:2])
    host = _C.Tensor.from_numpy(np.zeros_like(x))
    host.permute([2, 0, 1]).copy_from(t.permute([2, 0, 1]))    # strided device -> strided host
    np.testing.assert_array_equal(host.numpy(), x)
    back = _C.Tensor.from_numpy(np.zeros_like(x), "cuda")
    back.slice(0, 0, 5, 2).copy_from(_C.Tensor.from_numpy(x).slice(0, 0, 5, 2))  # strided host -> strided device
    want = np.zeros_like(x)
    want[0:5:2] = x[0:5:2]
    np.testing.assert_array_equal(back.numpy(), want)
    t.fill(3)
    np.testing.assert_array_equal(t.numpy(), np.full_like(x, 3))


def test_cuda_zero_size_ops_launch_nothing(rng):
    x = np.zeros((0, 5), np.float32)
    (y,) = run_kernel("Exp", [x], {}, device="cuda")
    assert y.shape == (0, 5)
    (s,) = run_kernel("Sum", [x], {"dims": [0], "keepdim": False}, device="cuda")
    np.testing.assert_array_equal(s, np.zeros(5, np.float32))


def test_cuda_training_step_matches_cpu():
    """A small CNN's forward, backward and SGD step through the whole stack on both devices."""
    def step(device):
        glassgrad.manual_seed(0)
        model = glassgrad.Sequential(glassgrad.Conv2D(1, 4, 3, padding=1), glassgrad.BatchNorm2D(4), glassgrad.ReLU(),
                                     glassgrad.MaxPool2D(2), glassgrad.Flatten(), glassgrad.Linear(4 * 7 * 7, 10))
        model.to(device)
        rng = np.random.default_rng(5)
        x = glassgrad.tensor(rng.standard_normal((8, 1, 14, 14)).astype(np.float32), device=device)
        y = glassgrad.tensor(rng.integers(0, 10, 8).astype(np.int64), device=device)
        opt = glassgrad.SGD(model.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(3):
            loss = glassgrad.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.item())
        return np.array(losses), [p.detach().cpu().numpy() for p in model.parameters()]

    cpu_l, cpu_p = step("cpu")
    gpu_l, gpu_p = step("cuda")
    np.testing.assert_allclose(gpu_l, cpu_l, rtol=1e-4, atol=1e-5)
    for a, b in zip(cpu_p, gpu_p):
        np.testing.assert_allclose(b, a, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_fused_program_with_every_instruction_matches_cpu(rng, dtype):
    # Each arithmetic op and activation (and its backward map), by name. Inputs r0 [4, 1, 9]
    # (broadcast), r1 [4, 6, 9] transposed view, r2 [9] (broadcast), all positive.
    ins = [("Add", 0, 1, 0), ("Sub", 3, 2, 0), ("Mul", 4, 0, 0), ("Div", 5, 1, 0), ("Maximum", 6, 2, 0),
           ("Minimum", 7, 0, 0), ("Neg", 8, -1, 0), ("Exp", 9, -1, 0), ("Log", 10, -1, 0), ("Sqrt", 1, -1, 0),
           ("ReLU", 6, -1, 0), ("Sigmoid", 11, -1, 0), ("Tanh", 4, -1, 0), ("AddScalar", 14, -1, 0.25),
           ("MulScalar", 15, -1, -1.5), ("PowScalar", 16, -1, 2.0), ("RDivScalar", 16, -1, 3.0),
           ("ReLUBackward", 18, 6, 0), ("SigmoidBackward", 19, 14, 0), ("TanhBackward", 17, 15, 0),
           ("PowScalar", 12, -1, 1.7), ("Add", 20, 21, 0), ("Add", 24, 22, 0), ("Add", 25, 23, 0)]
    attrs = fused_program(ins)
    x0 = (rng.random((4, 1, 9)) + 0.5).astype(dtype)
    x1 = (rng.random((4, 9, 6)) + 0.5).astype(dtype)
    x2 = (rng.random(9) + 0.5).astype(dtype)
    outs = []
    for device in ("cpu", "cuda"):
        t1 = _C.Tensor.from_numpy(x1, device).permute([0, 2, 1])
        (y,) = _C.run_op("FusedElementwise", [_C.Tensor.from_numpy(x0, device), t1, _C.Tensor.from_numpy(x2, device)],
                         attrs, "")
        outs.append(y.numpy())
    assert np.isfinite(outs[0]).all()
    assert_parity(outs[0], outs[1], dtype, "FusedElementwise with every instruction")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_batchnorm_with_fused_relu_matches_cpu(rng, dtype):
    x = _rand(rng, 4, 5, 7, 3, dtype=dtype)
    gamma, beta = _rand(rng, 5, dtype=dtype), _rand(rng, 5, dtype=dtype)
    rm, rv = _rand(rng, 5, dtype=dtype), (rng.random(5) + 0.5).astype(dtype)
    attrs = {"eps": 1e-5, "activation": "relu"}
    cpu, gpu = run_both("BatchNorm2DTrain", [x, gamma, beta], attrs)
    for k in range(3):
        assert_parity(cpu[k], gpu[k], dtype, f"BatchNorm2DTrain relu output {k}")
    assert (gpu[0] >= 0).all() and (gpu[0] == 0).any()
    cpu, gpu = run_both("BatchNorm2DInference", [x, gamma, beta, rm, rv], attrs)
    assert_parity(cpu[0], gpu[0], dtype, "BatchNorm2DInference relu")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n_in,ins", [
    (3, [("Add", 0, 1, 0)]),
    (3, [("Add", 0, 1, 0), ("ReLU", 3, -1, 0)]),                                   # add + ReLU (a residual)
    (3, [("Add", 0, 1, 0), ("Sub", 3, 2, 0), ("Mul", 4, 0, 0), ("Div", 5, 1, 0), ("Maximum", 6, 2, 0)]),
    (3, [("Add", 0, 1, 0), ("Sub", 3, 2, 0), ("Mul", 4, 0, 0), ("Div", 5, 1, 0), ("Maximum", 6, 2, 0),
         ("Minimum", 7, 0, 0), ("Neg", 8, -1, 0), ("MulScalar", 9, -1, 0.5)]),    # 8: the largest register-file program
    (4, [("Add", 0, 1, 0), ("Mul", 4, 2, 0), ("Sub", 5, 3, 0)]),                   # 4 inputs
    (4, [("Add", 0, 1, 0), ("Mul", 4, 2, 0), ("Sub", 5, 3, 0), ("Add", 6, 4, 0), ("Mul", 7, 5, 0),
         ("ReLU", 8, -1, 0), ("AddScalar", 9, -1, 0.5), ("Add", 10, 3, 0), ("Tanh", 11, -1, 0)]),  # 9: general kernel
])
def test_cuda_short_fused_programs_match_cpu(rng, dtype, n_in, ins):
    # Programs of at most 4 inputs and 8 instructions run on the register-file variant
    # (gg_fused_small); longer ones on the general kernel.
    attrs = fused_program(ins)
    shapes = [(4, 1, 9), (4, 6, 9), (9,), (1, 6, 1)][:n_in]
    xs = [(rng.random(s) + 0.5).astype(dtype) for s in shapes]
    outs = []
    for device in ("cpu", "cuda"):
        (y,) = _C.run_op("FusedElementwise", [_C.Tensor.from_numpy(x, device) for x in xs], attrs, "")
        outs.append(y.numpy())
    assert np.isfinite(outs[0]).all()
    assert_parity(outs[0], outs[1], dtype, f"FusedElementwise with {len(ins)} instructions on {n_in} inputs")



FUSED = fused_cases(SPECS)


@pytest.mark.parametrize("spec,dtype", FUSED, ids=[f"{s.id}-{d}" for s, d in FUSED])
def test_cuda_fused_instruction_equals_its_op(spec, dtype):
    # Both CUDA interpreters (a one-instruction program takes the register-file variant) run
    # the row's scalar function, as the unfused kernel does.
    check_fused_instruction(spec, dtype, device="cuda")
