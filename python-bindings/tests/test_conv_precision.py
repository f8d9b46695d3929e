"""float32 convolution precision (docs/numerics.md): the CPU algorithm hook, the fast-Winograd
switch, and the bound the default choice keeps: each float32 convolution's error within 3x that of
a plain float32 sum (PyTorch's, where PyTorch is importable) on the same data."""
import importlib.util

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.kernels as K
from glassgrad import _C

HAVE_TORCH = importlib.util.find_spec("torch") is not None
DIRECTIONS = ("forward", "input_grad", "weight_grad")


@pytest.fixture(autouse=True)
def _restore_switches():
    yield
    K.set_cpu_conv_algo("auto")
    gg.backends.cudnn.allow_fast_winograd = False


def _data(n=4, c=32, hw=12, k=24, seed=0):
    """He-initialized weights, inputs as after BatchNorm and ReLU, N(0, 1) output gradients;
    float64 arrays holding float32 values."""
    rng = np.random.default_rng(seed)
    as32 = lambda a: a.astype(np.float32).astype(np.float64)
    return {"x": as32(np.maximum(rng.standard_normal((n, c, hw, hw)), 0)),
            "w": as32(rng.standard_normal((k, c, 3, 3)) * np.sqrt(2 / (c * 9))),
            "gy": as32(rng.standard_normal((n, k, hw, hw)))}


def _conv(d, direction, dtype):
    attrs = {"stride": [1, 1], "padding": [1, 1, 1, 1]}
    x, w, gy = (d[key].astype(dtype) for key in ("x", "w", "gy"))
    if direction == "forward":
        (y,) = K.run_numpy("Conv2D", x, w, **attrs)
    elif direction == "input_grad":
        (y,) = K.run_numpy("Conv2DBackwardInput", gy, w, input_shape=list(x.shape), **attrs)
    else:
        (y,) = K.run_numpy("Conv2DBackwardWeight", x, gy, weight_shape=list(w.shape), **attrs)
    return np.asarray(y, np.float64)


def _max_rel(y, ref):
    return float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))


def _forced(algo, d, direction, dtype=np.float32):
    K.set_cpu_conv_algo(algo)
    try:
        return _conv(d, direction, dtype)
    finally:
        K.set_cpu_conv_algo("auto")


def test_cpu_conv_algo_hook_takes_the_four_names_and_refuses_others():
    assert K.cpu_conv_algo() == "auto"
    for algo in ("gemm", "winograd2", "winograd4", "auto"):
        K.set_cpu_conv_algo(algo)
        assert K.cpu_conv_algo() == algo
    with pytest.raises(ValueError, match="'auto', 'gemm', 'winograd2', 'winograd4'"):
        K.set_cpu_conv_algo("fft")
    assert K.cpu_conv_algo() == "auto"


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_every_forced_algorithm_computes_the_convolution(direction):
    d = _data()
    ref = _conv(d, direction, np.float64)
    bounds = {"gemm": 1e-6, "winograd2": 2e-6, "winograd4": 1e-4}
    for algo, bound in bounds.items():
        err = _max_rel(_forced(algo, d, direction), ref)
        assert 0 < err < bound, (algo, err)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_default_float32_error_stays_within_three_times_a_plain_sum(direction):
    """The default (F(2x2) for these 3x3 layers) against the im2col GEMM's plain float32 sums,
    on several seeds; F(4x4) (the fast switch) is measurably further off."""
    for seed in range(3):
        d = _data(seed=seed, c=64, k=64, hw=8)
        ref = _conv(d, direction, np.float64)
        plain = _max_rel(_forced("gemm", d, direction), ref)
        default = _max_rel(_conv(d, direction, np.float32), ref)
        fast = _max_rel(_forced("winograd4", d, direction), ref)
        assert default <= 3 * plain, (seed, default, plain)
        assert fast > default, (seed, fast, default)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_fast_winograd_switch_selects_f4x4_and_float64_always_uses_it(direction):
    d = _data(c=16, k=16, hw=8)
    f2 = _forced("winograd2", d, direction)
    f4 = _forced("winograd4", d, direction)
    np.testing.assert_array_equal(_conv(d, direction, np.float32), f2)
    gg.backends.cudnn.allow_fast_winograd = True
    assert gg.backends.cudnn.allow_fast_winograd is True
    np.testing.assert_array_equal(_conv(d, direction, np.float32), f4)
    gg.backends.cudnn.allow_fast_winograd = False
    np.testing.assert_array_equal(_conv(d, direction, np.float64), _forced("winograd4", d, direction, np.float64))


def test_forced_winograd_on_a_strided_layer_runs_the_stride2_tile():
    """Stride 2 has one Winograd tile, F(2x2, 3x3) at stride 2 (the default for rows wider than 8
    outputs): a forced
    winograd2 or winograd4 runs it, "gemm" the GEMM, both within float32 rounding of float64."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 9, 19)).astype(np.float32)  # 5 x 10 outputs
    w = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
    attrs = {"stride": [2, 2], "padding": [1, 1, 1, 1]}
    assert _C.cpu_conv_algorithm("Conv2D", list(x.shape), list(w.shape), attrs, "float32") == "winograd2s2"
    (want,) = K.run_numpy("Conv2D", x, w, **attrs)
    (ref,) = K.run_numpy("Conv2D", x.astype(np.float64), w.astype(np.float64), **attrs)
    for algo in ("winograd2", "winograd4"):
        K.set_cpu_conv_algo(algo)
        (got,) = K.run_numpy("Conv2D", x, w, **attrs)
        np.testing.assert_array_equal(got, want)
    K.set_cpu_conv_algo("gemm")
    (gemm,) = K.run_numpy("Conv2D", x, w, **attrs)
    for y in (want, gemm):
        assert _max_rel(np.asarray(y, np.float64), np.asarray(ref)) < 1e-6


def test_a_model_trains_the_same_way_under_each_algorithm():
    """The choice changes rounding only: one SGD step of a small CNN agrees across algorithms."""
    def step(algo):
        K.set_cpu_conv_algo(algo)
        gg.manual_seed(0)
        model = gg.nn.Sequential(gg.nn.Conv2d(3, 16, 3, padding=1), gg.nn.ReLU(), gg.nn.Conv2d(16, 16, 3, padding=1),
                                 gg.nn.Flatten(), gg.nn.Linear(16 * 8 * 8, 4))
        opt = gg.optim.SGD(model.parameters(), lr=0.1)
        x = gg.tensor(np.random.default_rng(1).standard_normal((4, 3, 8, 8)).astype(np.float32))
        y = gg.tensor(np.array([0, 1, 2, 3]))
        loss = gg.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return [p.detach().numpy() for p in model.parameters()]
    base = step("gemm")
    for algo in ("winograd2", "winograd4", "auto"):
        for a, b in zip(step(algo), base):
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)


@pytest.mark.skipif(not HAVE_TORCH, reason="compares with PyTorch's float32 error; torch is not installed")
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_default_float32_error_within_three_times_pytorchs(direction):
    import torch
    d = _data(c=64, k=64, hw=16)
    t = {key: torch.tensor(v) for key, v in d.items()}

    def torch_conv(dtype):
        x, w, gy = (t[key].to(dtype) for key in ("x", "w", "gy"))
        if direction == "forward":
            y = torch.nn.functional.conv2d(x, w, padding=1)
        elif direction == "input_grad":
            y = torch.nn.grad.conv2d_input(x.shape, w, gy, padding=1)
        else:
            y = torch.nn.grad.conv2d_weight(x, w.shape, gy, padding=1)
        return y.to(torch.float64).numpy()

    ref = torch_conv(torch.float64)
    theirs = _max_rel(torch_conv(torch.float32), ref)
    ours = _max_rel(_conv(d, direction, np.float32), ref)
    assert ours <= 3 * theirs, (ours, theirs)
