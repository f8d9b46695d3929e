"""Every argument value in argument_table.py (every documented value of every layer, function
and optimizer) builds and runs, without torch: layers and functions in float64, in train and eval
mode, with input and parameter gradients that match central finite differences; optimizers take
three finite steps that lower the loss; schedulers give finite rates and resume exactly from a
checkpoint of their state_dict. Nothing tested padding='same' before this table."""
import numpy as np
import pytest

import glassgrad as gg
from argument_runner import (build_scheduler, cotangent, differentiable, gg_state, make_inputs, run_gg,
                             run_gg_optimizer, run_gg_scheduler, scheduler_groups, step_scheduler)
from argument_table import FUNCTIONALS, LAYERS, OPTIMIZERS, SCHEDULERS

EPS = 1e-6


def _loss(row, arrays, mode, state):
    """The scalar sum(out * u) that run_gg differentiates, computed without gradients."""
    r = run_gg(row, arrays, mode, state, grads=False)
    return float(np.sum(r["out"] * cotangent(r["out"].shape, 1)))


def _check_gradients(row, arrays, mode, state, got, samples=6):
    """Central differences at a few random elements of every input and parameter."""
    rng = np.random.default_rng(11)
    for i in differentiable(row):
        flat = arrays[i].reshape(-1)
        for j in rng.choice(flat.size, min(samples, flat.size), replace=False):
            old = flat[j]
            flat[j] = old + EPS
            up = _loss(row, arrays, mode, state)
            flat[j] = old - EPS
            down = _loss(row, arrays, mode, state)
            flat[j] = old
            np.testing.assert_allclose(got[f"grad/{i}"].reshape(-1)[j], (up - down) / (2 * EPS), rtol=1e-4, atol=1e-6,
                                       err_msg=f"{row.id} {mode}: d/d input {i}[{j}]")
    for key in [k for k in got if k.startswith("grad/") and not k[5:].isdigit()]:
        name = key[5:]
        base = state[name]
        for j in rng.choice(base.size, min(samples, base.size), replace=False):
            moved = {}
            for sign in (1, -1):
                s = dict(state)
                s[name] = base.copy()
                s[name].reshape(-1)[j] += sign * EPS
                moved[sign] = _loss(row, arrays, mode, s)
            np.testing.assert_allclose(got[key].reshape(-1)[j], (moved[1] - moved[-1]) / (2 * EPS), rtol=1e-4,
                                       atol=1e-6, err_msg=f"{row.id} {mode}: d/d {name}[{j}]")


@pytest.mark.parametrize("row", LAYERS, ids=[r.id for r in LAYERS])
def test_every_layer_argument_runs_and_its_gradients_match_finite_differences(row):
    arrays = make_inputs(row)
    state = gg_state(row)
    for mode in row.modes:
        got = run_gg(row, [None if a is None else a.copy() for a in arrays], mode, state)
        assert np.all(np.isfinite(got["out"])), f"{row.id} {mode}"
        if row.grad:
            _check_gradients(row, arrays, mode, state, got)


@pytest.mark.parametrize("row", FUNCTIONALS, ids=[r.id for r in FUNCTIONALS])
def test_every_function_argument_runs_and_its_gradients_match_finite_differences(row):
    arrays = make_inputs(row)
    got = run_gg(row, [None if a is None else a.copy() for a in arrays])
    assert np.all(np.isfinite(got["out"])), row.id
    if row.grad and got["out"].dtype == np.float64:
        _check_gradients(row, arrays, "train", {}, got)


@pytest.mark.parametrize("row", OPTIMIZERS, ids=[r.id for r in OPTIMIZERS])
def test_every_optimizer_argument_takes_three_finite_steps(row):
    steps = run_gg_optimizer(row)
    assert len(steps) == 3
    for s in steps:
        assert all(np.all(np.isfinite(v)) for v in s.values()), row.id
    assert not np.array_equal(steps[0]["weight"], steps[-1]["weight"]), f"{row.id}: the steps changed nothing"


@pytest.mark.parametrize("row", SCHEDULERS, ids=[r.id for r in SCHEDULERS])
def test_every_scheduler_argument_resumes_its_schedule_from_a_checkpoint(row, tmp_path):
    """Ten steps, glassgrad.save of the optimizer's and the scheduler's state_dict, a fresh
    optimizer and scheduler built the same way load it: the next 20 steps equal those of the
    run that never stopped."""
    whole, _ = run_gg_scheduler(row, "AdamW", steps=30)
    assert all(np.all(np.isfinite(s["lr"])) and np.all(s["lr"] >= 0) for s in whole), row.id

    def fresh():
        opt = scheduler_groups(gg.optim, [gg.nn.Parameter(np.zeros(2)), gg.nn.Parameter(np.zeros(3))], "AdamW")
        return opt, build_scheduler(row, gg.optim.lr_scheduler, opt)
    opt, sched = fresh()
    for i in range(10):
        opt._step_calls += 1
        step_scheduler(row, sched, i)
    gg.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "ck.gg")
    ckpt = gg.load(tmp_path / "ck.gg")
    opt, sched = fresh()
    opt.load_state_dict(ckpt["optimizer"])
    sched.load_state_dict(ckpt["scheduler"])
    for i in range(10, 30):
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(list(whole[i]["lr"]), rel=1e-15, abs=0), \
            f"{row.id}: step {i} after resuming"
        assert sched.get_last_lr() == pytest.approx(list(whole[i]["last_lr"]), rel=1e-15, abs=0)
        opt._step_calls += 1
        step_scheduler(row, sched, i)


def test_conv2d_same_padding_keeps_height_and_width_for_odd_and_even_kernels():
    x = gg.tensor(np.ones((1, 2, 7, 6), np.float32))
    for k in (1, 2, 3, 4, 5):
        assert gg.nn.Conv2d(2, 3, k, padding="same")(x).shape == (1, 3, 7, 6)
        assert gg.nn.functional.conv2d(x, gg.tensor(np.ones((3, 2, k, k), np.float32)), padding="same").shape == (1, 3, 7, 6)
    # Strided 'same' is refused, as PyTorch refuses it (ValueError when built, RuntimeError when called).
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        gg.nn.Conv2d(2, 3, 3, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        gg.nn.functional.conv2d(x, gg.tensor(np.ones((3, 2, 3, 3), np.float32)), stride=(1, 2), padding="same")
