"""glassgrad.amp (torch.amp, torch.cuda.amp, torch.cpu.amp): autocast's per-thread state (regions
nest, enabled=False inside, the decorator, set_autocast_*, the deprecated names), its cache of
cast parameters, custom_fwd/custom_bwd (docs/numerics.md "Mixed precision"); GradScaler scales,
unscales, skips steps on inf/NaN and adapts its scale as PyTorch documents. The casts themselves
are compared with PyTorch's in test_torch_autocast.py."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as torch
from glassgrad.amp import GradScaler, autocast


def _model_and_data():
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Linear(4, 8), gg.nn.ReLU(), gg.nn.Linear(8, 2))
    rng = np.random.default_rng(0)
    return model, gg.tensor(rng.standard_normal((16, 4)).astype(np.float32)), gg.tensor(rng.integers(0, 2, 16))


def test_autocast_regions_nest_and_restore_the_state():
    assert not gg.is_autocast_enabled("cpu") and gg.get_autocast_dtype("cpu") == gg.bfloat16
    with torch.autocast("cpu", dtype=torch.float16):
        assert gg.is_autocast_enabled("cpu") and gg.get_autocast_dtype("cpu") == gg.float16
        assert not gg.is_autocast_enabled()  # no device type: CUDA's, as PyTorch's
        y = gg.randn(3, 4) @ gg.randn(4, 2)
        assert y.dtype == gg.float16
        with autocast("cpu", enabled=False):
            assert not gg.is_autocast_enabled("cpu")
            assert (gg.randn(3, 4) @ gg.randn(4, 2)).dtype == gg.float32
        with autocast("cpu"):  # the default dtype of an inner region is the outer one's
            assert gg.get_autocast_dtype("cpu") == gg.float16
        assert gg.is_autocast_enabled("cpu")
    assert not gg.is_autocast_enabled("cpu") and gg.get_autocast_dtype("cpu") == gg.bfloat16
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        autocast("tpu")


def test_autocast_as_a_decorator_and_the_set_functions():
    @torch.autocast("cpu")
    def forward(x):
        assert gg.is_autocast_enabled("cpu")
        return gg.nn.functional.linear(x, gg.randn(2, 4))
    assert forward(gg.randn(3, 4)).dtype == gg.bfloat16 and not gg.is_autocast_enabled("cpu")
    gg.set_autocast_enabled("cpu", True)
    gg.set_autocast_dtype("cpu", gg.float16)
    try:
        assert (gg.randn(3, 4) @ gg.randn(4, 2)).dtype == gg.float16
        with pytest.warns(DeprecationWarning, match="is_autocast_enabled\\('cpu'\\)"):
            assert gg.is_autocast_cpu_enabled()
        with pytest.warns(DeprecationWarning):
            assert gg.get_autocast_cpu_dtype() == gg.float16
    finally:
        gg.set_autocast_enabled("cpu", False)
        gg.set_autocast_dtype("cpu", gg.bfloat16)
    assert (gg.randn(3, 4) @ gg.randn(4, 2)).dtype == gg.float32
    with pytest.warns(DeprecationWarning):
        assert gg.get_autocast_gpu_dtype() == gg.float16


def test_deprecated_device_spellings_and_regions_that_disable_themselves():
    with pytest.warns(FutureWarning, match="torch.amp.autocast\\('cpu', args...\\)"):
        region = torch.cpu.amp.autocast()
    with region:
        assert gg.is_autocast_enabled("cpu") and gg.get_autocast_dtype("cpu") == gg.bfloat16
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        region = autocast("cpu", dtype=gg.float64)
    with region:
        assert not gg.is_autocast_enabled("cpu")
    if not gg.cuda.is_available():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with torch.cuda.amp.autocast():
                assert not gg.is_autocast_enabled("cuda")
        assert [type(m.message) for m in w] == [FutureWarning, UserWarning]
        assert "CUDA is not available" in str(w[1].message)


def test_parameters_are_cast_once_per_outermost_region():
    from glassgrad import _autocast
    w = gg.randn(4, 5, requires_grad=True)
    x = gg.randn(3, 5)
    with autocast("cpu"):
        y = gg.nn.functional.linear(x, w) + gg.nn.functional.linear(x * 2, w)
        assert len(_autocast.state.cache) == 1
        with autocast("cpu"):
            gg.nn.functional.linear(x, w)
        assert len(_autocast.state.cache) == 1  # kept until the outermost region exits
        with autocast("cpu", cache_enabled=False):
            gg.nn.functional.linear(x, gg.randn(4, 5, requires_grad=True))
        assert len(_autocast.state.cache) == 1
    assert len(_autocast.state.cache) == 0
    y.float().sum().backward()
    assert w.grad.dtype == gg.float32
    want = 3 * x.numpy().sum(0)  # d/dw of sum(x w^T + 2x w^T), every row
    np.testing.assert_allclose(w.grad.numpy(), np.tile(want, (4, 1)), rtol=2e-2, atol=2e-2)


def test_a_cast_made_under_no_grad_is_not_reused_for_a_forward_with_gradients():
    w = gg.randn(4, 5, requires_grad=True)
    x = gg.randn(3, 5)
    with autocast("cpu"):
        with gg.no_grad():
            gg.nn.functional.linear(x, w)  # an evaluation first, as PyTorch: its cast is not cached
        y = gg.nn.functional.linear(x, w)
    assert y.requires_grad
    y.float().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0), (4, 1)), rtol=2e-2, atol=2e-2)


class _Gram(gg.autograd.Function):
    """2 x x^T, with its own backward."""

    @staticmethod
    @gg.amp.custom_fwd(device_type="cpu", cast_inputs=gg.float32)
    def forward(ctx, x):
        assert not gg.is_autocast_enabled("cpu")  # cast_inputs given: the forward runs without autocast
        ctx.save_for_backward(x)
        return (x @ x.t()) * 2

    @staticmethod
    @gg.amp.custom_bwd(device_type="cpu")
    def backward(ctx, grad):
        assert not gg.is_autocast_enabled("cpu")  # as the forward ran
        (x,) = ctx.saved_tensors
        return 2 * (grad + grad.t()) @ x


def test_custom_fwd_casts_inputs_and_runs_without_autocast():
    x = gg.randn(3, 4, requires_grad=True)
    with autocast("cpu"):
        y = _Gram.apply(x.to(gg.bfloat16))
    assert y.dtype == gg.float32  # cast to float32, then a float32 matmul: autocast is off inside
    y.sum().backward()
    assert x.grad is not None and x.grad.dtype == gg.float32
    xb = x.detach().to(gg.bfloat16).float().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.tile(4 * xb.sum(0), (3, 1)), rtol=2e-2, atol=2e-2)
    with pytest.raises(ValueError, match="device_type"):
        gg.amp.custom_fwd(device_type=None)


def _train(steps, scaler=None):
    model, x, y = _model_and_data()
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        with autocast("cpu"):
            loss = gg.nn.functional.cross_entropy(model(x), y)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_a_power_of_two_scale_leaves_the_training_unchanged():
    plain = _train(5)
    scaled = _train(5, GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2))
    for a, b in zip(plain, scaled):
        np.testing.assert_array_equal(a, b)


def test_inf_gradients_skip_the_step_and_back_off_then_growth():
    model, x, y = _model_and_data()
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    scaler = GradScaler("cpu", init_scale=8.0, growth_interval=2)
    before = [p.detach().numpy().copy() for p in model.parameters()]
    loss = gg.nn.functional.cross_entropy(model(x), y) * float("inf")
    scaler.scale(loss).backward()
    assert scaler.step(opt) is None
    scaler.update()
    for p, b in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b)  # skipped
    assert scaler.get_scale() == 4.0
    for _ in range(2):
        opt.zero_grad()
        scaler.scale(gg.nn.functional.cross_entropy(model(x), y)).backward()
        scaler.unscale_(opt)  # unscaled once: step() does not divide again
        with pytest.raises(RuntimeError, match="already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 8.0  # grew after growth_interval clean steps
    state = scaler.state_dict()
    other = GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                           "growth_interval": 2, "_growth_tracker": 0}


def test_a_disabled_scaler_passes_through_and_cuda_without_a_gpu_disables():
    model, x, y = _model_and_data()
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    off = GradScaler("cpu", enabled=False)
    loss = gg.nn.functional.cross_entropy(model(x), y)
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    before = model[0].weight.detach().cpu().numpy().copy()
    off.scale(loss).backward()
    off.step(opt)  # optimizer.step() itself
    off.update()
    assert not np.array_equal(model[0].weight.detach().cpu().numpy(), before)
    if not gg.cuda.is_available():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert not torch.cuda.amp.GradScaler().is_enabled()
        assert type(w[0].message) is FutureWarning and "CUDA is not available" in str(w[1].message)
    with pytest.raises(AssertionError, match="growth factor"):  # PyTorch's type (test_grad_scaler_checks.py)
        GradScaler("cpu", growth_factor=1.0)


class _CudaLike:
    """Stands for a CUDA tensor in the cast decisions (no GPU here): its handle's device and dtype."""

    is_leaf = False

    def __init__(self, dtype):
        self._h = type("H", (), {"device": "cuda:0", "dtype": dtype, "requires_grad": False})()

    def to(self, dtype):
        return _CudaLike(str.__str__(dtype))  # the name, as a handle holds it


def test_cuda_regions_cast_by_the_cuda_lists():
    """What a cuda region does to CUDA tensors, checked on the decisions (the casts and kernels
    themselves run only on a GPU machine): matmul-like ops to float16, exp and softmax to float32
    (softmax left alone when dtype= is given), dot to the widest input, binary_cross_entropy refused."""
    from glassgrad import _autocast

    def dtypes(name, *args, **kwargs):
        return _autocast._run(name, lambda *a, **k: [t._h.dtype for t in a + tuple(k.values())], args, kwargs)
    gg.set_autocast_enabled("cuda", True)
    try:
        assert dtypes("mm", _CudaLike("float32"), _CudaLike("float32")) == ["float16", "float16"]
        assert dtypes("mv", _CudaLike("float32"), _CudaLike("float64")) == ["float16", "float64"]
        assert dtypes("exp", _CudaLike("float16")) == ["float32"]
        assert dtypes("softmax", _CudaLike("float16")) == ["float32"]
        assert dtypes("softmax", _CudaLike("float16"), dtype=_CudaLike("bfloat16")) == ["float16", "bfloat16"]
        assert dtypes("dot", _CudaLike("float16"), _CudaLike("float32")) == ["float32", "float32"]
        assert dtypes("trace", _CudaLike("float16")) == ["float16"]  # in the CPU list only
        with pytest.raises(gg.UnsupportedError, match="binary_cross_entropy_with_logits"):
            dtypes("binary_cross_entropy", _CudaLike("float16"), _CudaLike("float16"))
        assert dtypes("mm", gg.randn(2, 2), gg.randn(2, 2)) == ["float32", "float32"]  # CPU tensors: untouched
    finally:
        gg.set_autocast_enabled("cuda", False)
