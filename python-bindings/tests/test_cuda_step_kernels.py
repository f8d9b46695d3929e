"""The CUDA kernels of a small training step, against the CPU on random data: multi-tensor
optimizer updates (a plan's consecutive updates in one launch per 28 parameters), BatchNorm at
SimpleCNN's shapes (and a second call giving the same bits), max-pool backward over windows
that tile the input (one thread per window), with and without the fused ReLU backward, and
short-k products (one thread per output: a Linear layer's gradients on a small batch), and the
bias-gradient sums (a block per channel for a conv's; 32 columns a block over chunks of rows for a
Linear's on many rows; four loads in flight per thread, the plain loop's addition order, for the
others), and elementwise ops and copies over several axes (a Linear layer's bias add, the
attention heads' reassembly: the coordinates kept by increments along the grid-stride loop), and
the attention kernels at a GPT's head size (their tiles loaded several groups a thread at once)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _C
from glassgrad.testing import run_kernel
from training_helpers import SmallMLP, train_step

pytestmark = pytest.mark.cuda

# 35 parameters: two multi-tensor tables (28 + 7). 2-D ones get transposed gradients (x @ p.T),
# which the table reads through strides; the others dense ones.
SHAPES = [(7,), (3, 5), (16, 1, 3, 3), (4, 9), (3000,), (1,), (33, 70)] * 5

OPTIMIZERS = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.001)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.05)),
]


def _train(device, dtype, opt_name, kwargs, per_parameter=False, steps=3):
    """Parameters and optimizer state after `steps` updates of a loss with dense and transposed
    gradients; with per_parameter, one optimizer per parameter (one update per plan)."""
    rng = np.random.default_rng(0)
    params = [gg.Parameter(rng.standard_normal(s).astype(dtype), device=device) for s in SHAPES]
    weights = [gg.tensor(rng.standard_normal(s).astype(dtype), device=device) for s in SHAPES]
    inputs = [gg.tensor(rng.standard_normal((4, s[1])).astype(dtype), device=device) if len(s) == 2 else None
              for s in SHAPES]
    make = getattr(gg, opt_name)
    opts = [make([p], **kwargs) for p in params] if per_parameter else [make(params, **kwargs)]
    for _ in range(steps):
        loss = None
        for p, w, x in zip(params, weights, inputs):
            term = ((x @ p.T) * (x @ w.T)).sum() if x is not None else (p * p * w).sum()
            loss = term if loss is None else loss + term
        loss.backward()
        for opt in opts:
            opt.step()
            opt.zero_grad()
    state = [{k: (v.detach().numpy() if hasattr(v, "numpy") else v) for k, v in opt.state[p].items()}
             for opt in opts for p in opt.state]
    return [p.detach().numpy() for p in params], state


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("opt_name,kwargs", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_cuda_multi_tensor_update_matches_cpu(dtype, opt_name, kwargs):
    cpu_p, cpu_s = _train("cpu", dtype, opt_name, kwargs)
    gpu_p, gpu_s = _train("cuda", dtype, opt_name, kwargs)
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-13)
    for k, (a, b) in enumerate(zip(cpu_p, gpu_p)):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, err_msg=f"parameter {k}")
    for k, (a, b) in enumerate(zip(cpu_s, gpu_s)):
        for name in a:
            np.testing.assert_allclose(b[name], a[name], rtol=rtol, atol=atol, err_msg=f"state {k} {name}")


@pytest.mark.parametrize("opt_name,kwargs", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_cuda_multi_tensor_update_equals_the_per_parameter_kernels_bitwise(opt_name, kwargs):
    """One optimizer over every parameter (multi-tensor launches) against one optimizer per
    parameter (a plan of one update runs the per-parameter kernel): the same arithmetic
    (kernels/optimizer_rules.h), so the same bits."""
    together, st_together = _train("cuda", "float32", opt_name, kwargs)
    alone, st_alone = _train("cuda", "float32", opt_name, kwargs, per_parameter=True)
    for k, (a, b) in enumerate(zip(alone, together)):
        np.testing.assert_array_equal(b, a, err_msg=f"parameter {k}")
    for k, (a, b) in enumerate(zip(st_alone, st_together)):
        for name in a:
            np.testing.assert_array_equal(b[name], a[name], err_msg=f"state {k} {name}")


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", dict(lr=0.05, momentum=0.9)), ("Adam", dict(lr=0.003))])
def test_cuda_lr_schedule_reaches_a_replayed_multi_tensor_update(opt_name, kwargs):
    """The learning rate is a device scalar the multi-tensor table points at: a schedule that
    changes it every step changes the replayed graph's updates without capturing again. (A model
    without BatchNorm: a bias before a BatchNorm has a gradient of rounding noise, which Adam
    scales up to full steps in directions that differ between devices.)"""
    def run(device):
        gg.manual_seed(0)
        model = SmallMLP().to(device)
        opt = getattr(gg, opt_name)(model.parameters(), **kwargs)
        sched = gg.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
        step = gg.compile(train_step(model, opt))
        rng = np.random.default_rng(1)
        X = gg.tensor(rng.standard_normal((320, 6)).astype(np.float32), device=device)
        y = gg.tensor(rng.integers(0, 3, 320), device=device)
        losses = []
        for i in range(0, 320, 32):
            losses.append(step(X[i:i + 32], y[i:i + 32]).item())
            sched.step()
        return losses, model.state_dict(), step

    gpu_l, gpu_state, step = run("cuda")
    cpu_l, cpu_state, _ = run("cpu")
    np.testing.assert_allclose(gpu_l, cpu_l, rtol=1e-4, atol=1e-5)
    for k in cpu_state:
        np.testing.assert_allclose(gpu_state[k], cpu_state[k], rtol=1e-4, atol=1e-5, err_msg=k)
    assert step.cuda_graphs["captures"] == 1 and step.cuda_graphs["replays"] >= 4, step.cuda_graphs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(32, 16, 26, 26), (32, 32, 11, 11), (3, 5, 7, 3), (2, 300, 4, 4),
                                   (1, 2, 130, 130), (4, 3, 100, 100), (16, 64, 32, 32)])
def test_cuda_batchnorm_statistics_match_cpu_and_repeat_exactly(rng, dtype, shape):
    """Statistics and backward sums: the forward takes a block per channel for channels of at
    most 32768 values, the backward for at most 8192 (norm.cpp's channel_per_block): SimpleCNN's
    second layer and the small shapes both ways, SimpleCNN's first layer (21632 values a
    channel) and (1, 2, 130, 130) forward only; those two backward, (4, 3, 100, 100) and
    (16, 64, 32, 32) take partitions, merged by every block of the channel. Same numbers as the
    CPU, and a second call gives the same bits (the partitions are merged in a fixed order)."""
    C = shape[1]
    x = rng.standard_normal(shape).astype(dtype) * 3 + 1
    gamma, beta = rng.standard_normal(C).astype(dtype), rng.standard_normal(C).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-11)
    cpu = run_kernel("BatchNorm2DTrain", [x, gamma, beta], {"eps": 1e-5}, device="cpu")
    gpu = run_kernel("BatchNorm2DTrain", [x, gamma, beta], {"eps": 1e-5}, device="cuda")
    again = run_kernel("BatchNorm2DTrain", [x, gamma, beta], {"eps": 1e-5}, device="cuda")
    for k in range(3):
        np.testing.assert_allclose(gpu[k], cpu[k], err_msg=f"BatchNorm2DTrain output {k}", **tol)
        np.testing.assert_array_equal(again[k], gpu[k])
    mean, var = cpu[1], cpu[2]
    bwd = {d: run_kernel("BatchNorm2DBackward", [g, x, gamma, mean, var], {"eps": 1e-5}, device=d)
           for d in ("cpu", "cuda")}
    again = run_kernel("BatchNorm2DBackward", [g, x, gamma, mean, var], {"eps": 1e-5}, device="cuda")
    for k in range(3):
        np.testing.assert_allclose(bwd["cuda"][k], bwd["cpu"][k], err_msg=f"BatchNorm2DBackward output {k}", **tol)
        np.testing.assert_array_equal(again[k], bwd["cuda"][k])
    rm, rv = rng.standard_normal(C).astype(dtype), (rng.random(C) + 0.5).astype(dtype)
    inf = {d: run_kernel("BatchNorm2DInferenceBackward", [g, x, gamma, rm, rv], {"eps": 1e-5}, device=d)
           for d in ("cpu", "cuda")}
    for k in range(5):
        np.testing.assert_allclose(inf["cuda"][k], inf["cpu"][k], err_msg=f"BatchNorm2DInferenceBackward {k}", **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(32, 16, 26, 26), (32, 32, 11, 11), (3, 5, 7, 3), (2, 65, 3, 3), (2, 300, 4, 4),
                                   (4, 3, 100, 100), (16, 64, 32, 32)])
def test_cuda_batchnorm_relu_and_statistic_gradients_match_cpu(rng, dtype, shape):
    """The fused ReLU (the fusion pass's BatchNorm + ReLU) and the grad_mean/grad_var inputs of
    the backward, against the CPU, on both paths (a block per channel; partitions for the last
    two shapes' forward and the first and last two shapes' backward); the backward twice gives
    the same bits."""
    C = shape[1]
    x = rng.standard_normal(shape).astype(dtype) * 2 - 0.5
    gamma, beta = rng.standard_normal(C).astype(dtype), rng.standard_normal(C).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    gmean, gvar = rng.standard_normal(C).astype(dtype), rng.standard_normal(C).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-11)
    relu = {"eps": 1e-5, "activation": "relu"}
    fwd = {d: run_kernel("BatchNorm2DTrain", [x, gamma, beta], relu, device=d) for d in ("cpu", "cuda")}
    for k in range(3):
        np.testing.assert_allclose(fwd["cuda"][k], fwd["cpu"][k], err_msg=f"BatchNorm2DTrain+ReLU output {k}", **tol)
    assert (fwd["cuda"][0] >= 0).all()
    mean, var = fwd["cpu"][1], fwd["cpu"][2]
    inputs = [g, x, gamma, mean, var, gmean, gvar]
    bwd = {d: run_kernel("BatchNorm2DBackward", inputs, {"eps": 1e-5}, device=d) for d in ("cpu", "cuda")}
    again = run_kernel("BatchNorm2DBackward", inputs, {"eps": 1e-5}, device="cuda")
    for k in range(3):
        np.testing.assert_allclose(bwd["cuda"][k], bwd["cpu"][k], err_msg=f"BatchNorm2DBackward output {k}", **tol)
        np.testing.assert_array_equal(again[k], bwd["cuda"][k])


def _pooled(n, k, s, ceil_mode):
    span = n - k
    out = ((span + s - 1) // s if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n:
        out -= 1
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,k,ceil_mode", [
    ((32, 16, 26, 26), 2, False),   # SimpleCNN's first pooling: the windows cover the input
    ((32, 32, 11, 11), 2, False),   # its second: the last row and column belong to no window
    ((2, 3, 10, 7), 3, False),      # 3x3 windows, leftovers of 1 row and 1 column
    ((2, 3, 11, 11), 2, True),      # ceil mode: the last windows overhang the input
    ((1, 1, 1, 1), 1, False),
])
def test_cuda_max_pool_backward_over_tiling_windows_matches_cpu(rng, dtype, shape, k, ceil_mode):
    # Values from a few integers: many ties, which go to the first maximum on both devices.
    x = rng.integers(-2, 3, shape).astype(dtype)
    oh, ow = _pooled(shape[2], k, k, ceil_mode), _pooled(shape[3], k, k, ceil_mode)
    dy = rng.standard_normal((shape[0], shape[1], oh, ow)).astype(dtype)
    attrs = {"kernel": [k, k], "stride": [k, k], "padding": [0, 0], "ceil_mode": ceil_mode}
    cpu = run_kernel("MaxPool2DBackward", [dy, x], attrs, device="cpu")[0]
    gpu = run_kernel("MaxPool2DBackward", [dy, x], attrs, device="cuda")[0]
    np.testing.assert_array_equal(gpu, cpu)


def test_cuda_max_pool_backward_with_nan_and_negative_zero_matches_cpu(rng):
    x = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)
    x[0, 0, 0, 1] = np.nan
    dy = rng.standard_normal((2, 4, 4, 4)).astype(np.float32)
    dy[1, 2, 3, 3] = -0.0
    attrs = {"kernel": [2, 2], "stride": [2, 2]}
    cpu = run_kernel("MaxPool2DBackward", [dy, x], attrs, device="cpu")[0]
    gpu = run_kernel("MaxPool2DBackward", [dy, x], attrs, device="cuda")[0]
    np.testing.assert_array_equal(np.signbit(gpu), np.signbit(cpu))
    np.testing.assert_array_equal(gpu, cpu)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape,b_shape,transpose_a", [
    ((32, 10), (32, 800), True),      # dW = dy^T x of SimpleCNN's fc: a transposed view
    ((32, 10), (10, 800), False),     # dx = dy W
    ((3, 1, 5, 7), (1, 2, 7, 9), False),  # broadcast batch axes
    ((1, 1), (1, 1), False),
    ((4, 32), (32, 3), False),        # k = 32, the longest k of the kernel
])
def test_cuda_short_k_matmul_matches_cpu(rng, dtype, a_shape, b_shape, transpose_a):
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    outs = []
    for device in ("cpu", "cuda"):
        ta = _C.Tensor.from_numpy(a, device)
        if transpose_a:
            ta = ta.permute([1, 0])
        (c,) = _C.run_op("MatMul", [ta, _C.Tensor.from_numpy(b, device)], {}, "")
        outs.append(c.numpy())
    ref = (a.T if transpose_a else a) @ b
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(outs[1], outs[0], **tol)
    np.testing.assert_allclose(outs[1], ref, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("op", ["Sum", "Mean"])
@pytest.mark.parametrize("shape,dims", [
    ((32, 16, 26, 26), [0, 2, 3]),   # conv1's bias gradient: a block per channel, four values a load
    ((32, 32, 11, 11), [0, 2, 3]),   # conv2's: a block per channel, one value a load
    ((2, 3, 200, 200), [0, 2, 3]),   # 80000 values a channel: split across blocks, then combined
    ((4, 40, 30), [0, 2]),           # a 3-d [N, C, L] input
    ((32, 10), [0]),                 # the Linear's: 32 values per output
    ((8, 64, 384), [0, 1]),          # a GPT Linear's bias gradient: 32 columns a block, chunks of rows
    ((3, 301, 47), [0, 1]),          # a last chunk and a last column block in part
    ((300, 33), [0]),                # one chunk, 33 columns
    ((5, 40), [0]),                  # fewer rows than a block's warps
    ((2, 3000, 70), [0, 1]),         # 24 chunks combined in order
    ((64, 32, 384), [0]),            # a position embedding's gradient: 64 rows of 12288 columns
    ((40, 3, 700), [0]),             # 40 rows: a warp adds five
    ((31, 2000), [0]),               # 31 rows of many columns: the cols kernel on a large GPU
    ((3, 5, 7, 2), [0, 3]),          # lengths that leave a remainder after the groups of four
    ((1, 1, 1, 1), [0, 2, 3]),
])
def test_cuda_bias_gradient_sums_match_cpu(rng, dtype, op, shape, dims):
    if op == "Mean" and dtype == "int64":
        pytest.skip("Mean is for floating dtypes")
    x = (rng.integers(-1000, 1000, shape) if dtype == "int64" else rng.standard_normal(shape)).astype(dtype)
    outs = []
    for device in ("cpu", "cuda", "cuda"):
        (y,) = _C.run_op(op, [_C.Tensor.from_numpy(x, device)], {"dims": dims}, "")
        outs.append(y.numpy())
    ref = x.astype(np.float64).sum(axis=tuple(dims))
    if op == "Mean":
        ref = ref / (x.size // ref.size)
    if dtype == "int64":
        np.testing.assert_array_equal(outs[1], outs[0])
        np.testing.assert_array_equal(outs[1], ref.astype(np.int64))
    else:
        tol = dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outs[1], outs[0], **tol)
        np.testing.assert_allclose(outs[1], ref, **tol)
    np.testing.assert_array_equal(outs[2], outs[1])  # a second call gives the same bits


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [32, 256, 257, 3000])
@pytest.mark.parametrize("weighted", [False, True])
def test_cuda_cross_entropy_backward_mean_divisor_matches_cpu(rng, dtype, rows, weighted):
    """The "mean" backward's divisor (the weights of the rows not ignored): each block sums it for
    at most 256 rows, a separate kernel for more; both against the CPU, with ignored rows."""
    C = 10
    z = rng.standard_normal((rows, C)).astype(dtype)
    labels = rng.integers(0, C, rows).astype(np.int64)
    labels[::7] = -100
    inputs = [np.asarray(rng.standard_normal(), dtype=dtype), z, labels]
    if weighted:
        inputs.append((rng.random(C) + 0.5).astype(dtype))
    attrs = {"label_smoothing": 0.1}
    cpu, gpu = (run_kernel("CrossEntropyBackward", inputs, attrs, device=d)[0] for d in ("cpu", "cuda"))
    tol = dict(rtol=1e-4, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gpu, cpu, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,classes", [(1, 10), (32, 10), (256, 32), (257, 10), (40, 33), (3000, 10)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cuda_cross_entropy_reduced_forward_matches_cpu(rng, dtype, rows, classes, reduction, weighted):
    """The reduced forward: at most 256 rows of at most 32 classes run in one block, a warp a row
    (32 classes: every lane holds one); more rows or classes take the per-row kernel and a
    separate sum. Both against the CPU, with ignored rows, smoothing and class weights."""
    z = (rng.standard_normal((rows, classes)) * 3).astype(dtype)
    labels = rng.integers(0, classes, rows).astype(np.int64)
    labels[1::7] = -100
    inputs = [z, labels] + ([(rng.random(classes) + 0.5).astype(dtype)] if weighted else [])
    attrs = {"reduction": reduction, "label_smoothing": 0.1}
    cpu, gpu = (run_kernel("CrossEntropy", inputs, attrs, device=d)[0] for d in ("cpu", "cuda"))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gpu, cpu, **tol)
    again = run_kernel("CrossEntropy", inputs, attrs, device="cuda")[0]
    np.testing.assert_array_equal(again, gpu)  # the same bits on a second call


def test_cuda_cross_entropy_reduced_forward_reports_a_bad_label():
    """The one-block forward records a label outside [0, C) as the per-row kernel does."""
    rng = np.random.default_rng(4)
    z = rng.standard_normal((40, 12)).astype(np.float32)
    labels = rng.integers(0, 12, 40).astype(np.int64)
    labels[17], labels[30] = 12, -3
    with pytest.raises(gg.GlassgradIndexError) as e:
        run_kernel("CrossEntropy", [z, labels], {"reduction": "sum"}, device="cuda")
    assert "label 12 at position 17" in str(e.value)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Maximum"])
@pytest.mark.parametrize("a_shape,b_shape", [
    ((8, 64, 384), (384,)),          # a GPT Linear's bias add: [B*T, N] + a row broadcast
    ((3, 37, 47), (47,)),            # odd sizes: the loop's stride is no multiple of a row
    ((37, 1), (1, 45)),              # an outer sum: both operands broadcast
    ((5, 300), (5, 1)),              # a column broadcast
    ((1, 33), (33,)),
])
@pytest.mark.parametrize("contiguous", [True, False])
def test_cuda_elementwise_over_two_axes_matches_cpu_exactly(rng, dtype, op, a_shape, b_shape, contiguous):
    """Add, Sub and Mul run their own loops, Maximum the op-code switch; every layout here is two
    axes after merging, where the kernels keep (row, column) by increments: exact results."""
    def draw(shape):
        return (rng.integers(-1000, 1000, shape) if dtype == "int64" else rng.standard_normal(shape)).astype(dtype)
    a, b = draw(a_shape), draw(b_shape)
    (cpu,) = run_kernel(op, [a, b], {}, device="cpu", contiguous=contiguous)
    (gpu,) = run_kernel(op, [a, b], {}, device="cuda", contiguous=contiguous)
    want = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Maximum": np.maximum}[op](a, b)
    np.testing.assert_array_equal(gpu, cpu)
    np.testing.assert_array_equal(gpu, want)


def _gelu_float32_atol(x):
    """The absolute error two float32 GELUs may differ by: out = x (1 + erf(x / sqrt 2)) / 2
    cancels where erf approaches -1 (x below about -3), so an error of a few ulps of 1 in erf
    (2^-24 each) reaches the output times |x| / 2 (the CUDA erff against the CPU's own erfc fit,
    docs/gpt-step.md: a GPU machine measured 1.2e-7 at x near -3.5). Four ulps of 1 times max |x|."""
    return 4 * 2.0 ** -24 * max(1.0, float(np.max(np.abs(x))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["Exp", "GELU", "Neg"])
@pytest.mark.parametrize("shape", [(37, 45), (8, 64, 384)])
def test_cuda_unary_over_a_transposed_view_matches_cpu(rng, dtype, op, shape):
    """A transposed input is two axes the kernel walks by increments (the dense one by index)."""
    x = rng.standard_normal(shape).astype(dtype)
    t = _C.Tensor.from_numpy(np.ascontiguousarray(np.swapaxes(x, -1, -2)), "cuda")
    view = t.transpose(len(shape) - 2, len(shape) - 1)
    assert not view.is_contiguous()
    (gpu,) = _C.run_op(op, [view], {}, "")
    (cpu,) = run_kernel(op, [x], {}, device="cpu")
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == "float32" else dict(rtol=1e-13, atol=1e-15)
    if op == "GELU" and dtype == "float32":
        tol["atol"] = _gelu_float32_atol(x)
    np.testing.assert_allclose(gpu.numpy(), cpu, **tol)


def _values(rng, shape, dtype):
    """Random values of `dtype`: normal for floats, integers in range for the integer types."""
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 50).astype(dtype)
    return rng.integers(0, 100, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("rows,widths", [(16384 // 8, (384, 384, 384)), (37, (5, 47, 1)), (1, (3, 4))])
def test_cuda_concat_and_transposed_copies_keep_every_value(rng, dtype, rows, widths):
    """Concat writes each piece into a slice of wider rows, and contiguous() of a transpose reads
    across rows: copies of two axes, whose coordinates the kernel keeps by increments."""
    pieces = [_values(rng, (rows, w), dtype) for w in widths]
    (gpu,) = run_kernel("Concat", pieces, {"dim": 1}, device="cuda")
    np.testing.assert_array_equal(gpu, np.concatenate(pieces, axis=1))
    x = pieces[0]
    t = _C.Tensor.from_numpy(x, "cuda").transpose(0, 1)
    np.testing.assert_array_equal(t.contiguous().numpy(), x.T)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("shape,perm", [
    ((4, 6, 64, 64), (0, 2, 1, 3)),      # attention heads [B, H, T, D] read as [B, T, H, D]
    ((3, 5, 7, 2), (3, 1, 0, 2)),
    ((2, 3, 5, 7, 3), (4, 0, 3, 1, 2)),  # rank 5: the per-element offsets
    ((5, 9, 11), (2, 0, 1)),
])
def test_cuda_permuted_copies_and_elementwise_of_many_axes_match_numpy(rng, dtype, shape, perm):
    x = _values(rng, shape, dtype)
    view = _C.Tensor.from_numpy(x, "cuda").permute(list(perm))
    np.testing.assert_array_equal(view.contiguous().numpy(), np.transpose(x, perm))
    y = _values(rng, np.transpose(x, perm).shape, dtype)
    (gpu,) = _C.run_op("Add", [view, _C.Tensor.from_numpy(y, "cuda")], {}, "")
    np.testing.assert_array_equal(gpu.numpy(), np.transpose(x, perm) + y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("q_shape,kv_len,ev,attrs", [
    ((2, 3, 256, 64), 256, 64, {"scale": 0.125, "is_causal": True, "dropout_p": 0.2}),  # a GPT block's heads
    ((2, 3, 256, 64), 256, 64, {"scale": 0.125, "is_causal": True}),
    ((1, 2, 100, 70), 77, 66, {"scale": 0.3}),        # features and values past the resident chunk
    ((3, 45, 12), 45, 7, {"scale": 0.5, "is_causal": True, "dropout_p": 0.3}),
])
def test_cuda_attention_at_a_gpt_head_size_matches_cpu(rng, dtype, q_shape, kv_len, ev, attrs):
    q = rng.standard_normal(q_shape).astype(dtype)
    k = rng.standard_normal(q_shape[:-2] + (kv_len, q_shape[-1])).astype(dtype)
    v = rng.standard_normal(q_shape[:-2] + (kv_len, ev)).astype(dtype)
    extra = [np.asarray(123456789, dtype=np.int64)] if attrs.get("dropout_p", 0) > 0 else []
    cpu = run_kernel("ScaledDotProductAttention", [q, k, v] + extra, attrs, device="cpu")
    gpu = run_kernel("ScaledDotProductAttention", [q, k, v] + extra, attrs, device="cuda")
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-11)
    for name, a, b in zip(("out", "lse"), cpu, gpu):
        np.testing.assert_allclose(b, a, err_msg=name, **tol)
    g = rng.standard_normal(cpu[0].shape).astype(dtype)
    bin_ = [g, q, k, v, cpu[0], cpu[1]] + extra
    bcpu = run_kernel("ScaledDotProductAttentionBackward", bin_, attrs, device="cpu")
    bgpu = run_kernel("ScaledDotProductAttentionBackward", bin_, attrs, device="cuda")
    for name, a, b in zip(("dq", "dk", "dv"), bcpu, bgpu):
        np.testing.assert_allclose(b, a, err_msg=name, **tol)


@pytest.mark.parametrize("n", [1, 3, 1027, 6 * 1024 * 1024 + 5])
@pytest.mark.parametrize("offset", [0, 1])
def test_cuda_dense_float32_elementwise_four_at_a_time_matches_cpu(rng, n, offset):
    """Dense float32 operands 16-byte aligned run four elements a load, then the n % 4 tail; an
    offset of one element (a slice) takes the scalar loop. Add and Mul exact, GELU within ulps."""
    a = rng.standard_normal(n + 1).astype("float32")
    b = rng.standard_normal(n + 1).astype("float32")

    def dev(x):
        return _C.Tensor.from_numpy(x, "cuda").slice(0, offset, offset + n)
    for op, ref in (("Add", np.add), ("Mul", np.multiply)):
        (gpu,) = _C.run_op(op, [dev(a), dev(b)], {}, "")
        np.testing.assert_array_equal(gpu.numpy(), ref(a[offset:offset + n], b[offset:offset + n]), err_msg=op)
    (gpu,) = _C.run_op("GELU", [dev(a)], {}, "")
    (cpu,) = run_kernel("GELU", [a[offset:offset + n]], {}, device="cpu")
    np.testing.assert_allclose(gpu.numpy(), cpu, rtol=1e-6, atol=_gelu_float32_atol(a[offset:offset + n]))
