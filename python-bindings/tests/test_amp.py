"""glassgrad.amp (torch.amp, torch.cuda.amp, torch.cpu.amp): autocast marks regions and runs them
in float32 (docs/numerics.md "Mixed precision"); GradScaler scales, unscales, skips steps on
inf/NaN and adapts its scale as PyTorch documents."""
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


def test_autocast_regions_nest_and_compute_in_float32():
    assert not gg.is_autocast_enabled("cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert gg.is_autocast_enabled("cpu") and gg.get_autocast_dtype("cpu") == gg.bfloat16
        y = gg.randn(3, 4) @ gg.randn(4, 2)
        assert y.dtype == gg.float32  # glassgrad runs the region in float32
        with autocast("cpu", enabled=False):
            assert not gg.is_autocast_enabled("cpu")
    assert not gg.is_autocast_enabled()

    @torch.cuda.amp.autocast()
    def forward():
        return gg.is_autocast_enabled("cuda") and gg.get_autocast_dtype("cuda") == gg.float16
    assert forward()
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        autocast("tpu")


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
        assert "CUDA is not available" in str(w[0].message)
    with pytest.raises(ValueError, match="growth factor"):
        GradScaler("cpu", growth_factor=1.0)
