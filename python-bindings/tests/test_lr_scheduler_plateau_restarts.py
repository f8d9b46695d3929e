"""ReduceLROnPlateau, CosineAnnealingWarmRestarts, PolynomialLR and ChainedScheduler follow
torch.optim.lr_scheduler's documented arguments, defaults and formulas: checked here against values
computed by hand from those formulas (no torch needed). argument_table.py's SCHEDULERS rows compare
them with PyTorch step by step (test_torch_differential.py) and resume them from checkpoints
(test_argument_table.py); their argument errors are rows of test_invalid_arguments.py."""
import math
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.optim import lr_scheduler as L


def _opt(lr=0.1, groups=False):
    params = [gg.Parameter(np.zeros(2, np.float32)), gg.Parameter(np.zeros(3, np.float32))]
    if groups:
        opt = gg.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": lr / 2}], lr=lr)
    else:
        opt = gg.optim.SGD(params, lr=lr)
    opt._step_calls = 1  # as if optimizer.step() ran (no training here): no step-order warning
    return opt


def _lrs(sched, opt, n):
    """The first group's lr at epochs 0..n-1 (step() after each)."""
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        sched.step()
    return out


def _cos(lo, hi, t, period):
    return lo + (hi - lo) * (1 + math.cos(math.pi * t / period)) / 2


# ---- PolynomialLR -------------------------------------------------------------------------------

def test_polynomial_lr_defaults_decay_linearly_to_zero_in_five_steps_and_stay():
    opt = _opt(0.1)
    np.testing.assert_allclose(_lrs(L.PolynomialLR(opt), opt, 8), [0.1, 0.08, 0.06, 0.04, 0.02, 0, 0, 0],
                               rtol=1e-13, atol=1e-18)


def test_polynomial_lr_follows_base_lr_times_one_minus_t_over_total_to_the_power():
    opt = _opt(0.1, groups=True)
    sched = L.PolynomialLR(opt, total_iters=4, power=2.0)
    for e in range(7):
        want = [base * (1 - min(e, 4) / 4) ** 2 for base in (0.1, 0.05)]
        assert sched.get_last_lr() == pytest.approx(want, rel=1e-13, abs=1e-18)
        sched.step()
    sched.step(2)  # an explicit epoch takes the closed form
    assert sched.get_last_lr() == pytest.approx([0.1 / 4, 0.05 / 4], rel=1e-13)


# ---- CosineAnnealingWarmRestarts ----------------------------------------------------------------

def test_warm_restarts_periods_grow_by_t_mult_and_restart_at_the_initial_rate():
    opt = _opt(0.1)
    got = _lrs(L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001), opt, 21)
    # periods 3, 6, 12 starting at epochs 0, 3, 9
    want = [_cos(0.001, 0.1, t, 3) for t in range(3)] + [_cos(0.001, 0.1, t, 6) for t in range(6)] + \
        [_cos(0.001, 0.1, t, 12) for t in range(12)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[3] == pytest.approx(0.1) and got[9] == pytest.approx(0.1)


def test_warm_restarts_defaults_repeat_one_period_down_to_zero():
    opt = _opt(0.1)
    got = _lrs(L.CosineAnnealingWarmRestarts(opt, 4), opt, 12)
    np.testing.assert_allclose(got, [_cos(0.0, 0.1, e % 4, 4) for e in range(12)], rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize("epoch,t_cur,t_i", [(0.5, 0.5, 3), (2.75, 2.75, 3), (3.0, 0.0, 6), (4.5, 1.5, 6),
                                             (9.0, 0.0, 12), (20.0, 11.0, 12), (21.25, 0.25, 24)])
def test_warm_restarts_step_with_a_fractional_epoch_sets_the_point_in_its_period(epoch, t_cur, t_i):
    opt = _opt(0.1)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
    sched.step(epoch)
    assert (sched.T_cur, sched.T_i, sched.last_epoch) == (pytest.approx(t_cur), t_i, math.floor(epoch))
    assert sched.get_last_lr()[0] == pytest.approx(_cos(0.001, 0.1, t_cur, t_i), rel=1e-12)


def test_warm_restarts_stepped_per_batch_with_epoch_plus_fraction_as_documented():
    opt = _opt(0.1)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=2)
    iters = 4
    for epoch in range(5):
        for i in range(iters):
            sched.step(epoch + i / iters)
            assert opt.param_groups[0]["lr"] == pytest.approx(_cos(0.0, 0.1, epoch % 2 + i / iters, 2), abs=1e-15)
    # a plain step() after fractional ones adds one to both last_epoch (4) and T_cur (0.75), as PyTorch
    sched.step()
    assert (sched.last_epoch, sched.T_cur) == (5, 1.75)
    assert opt.param_groups[0]["lr"] == pytest.approx(_cos(0.0, 0.1, 1.75, 2))


def test_warm_restarts_find_the_period_exactly_where_a_logarithm_rounds_down():
    # Periods 1, 3, 9, 27, 81, 243 start at 0, 1, 4, 13, 40, 121: epoch 121 is a restart (lr = base_lr);
    # int(log_3(243)) is 4 in floating point, which would put it at the end of the previous period.
    opt = _opt(0.1)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=1, T_mult=3, eta_min=0.01)
    sched.step(121)
    assert (sched.T_cur, sched.T_i) == (0, 243) and opt.param_groups[0]["lr"] == pytest.approx(0.1)
    sched.step(120.5)
    assert (sched.T_cur, sched.T_i) == (80.5, 81)


def test_warm_restarts_step_neither_warns_about_step_order_nor_counts_steps():
    # PyTorch's CosineAnnealingWarmRestarts.step() replaces the base class's: no warning when it
    # comes before optimizer.step(), and _step_count stays 0 (in its state_dict too).
    opt = gg.optim.SGD([gg.Parameter(np.zeros(2, np.float32))], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched = L.CosineAnnealingWarmRestarts(opt, 2)
        sched.step()
        sched.step()
    assert sched._step_count == 0 and sched.state_dict()["_step_count"] == 0
    assert sched.last_epoch == 2 and sched.get_last_lr() == [pytest.approx(0.1)]


def test_warm_restarts_refuse_a_negative_epoch():
    sched = L.CosineAnnealingWarmRestarts(_opt(), 3)
    for bad in (-1, -0.5):
        with pytest.raises(gg.InvalidArgumentError, match="epoch"):
            sched.step(bad)
    with pytest.raises(TypeError, match="epoch"):
        sched.step("2")


# ---- ChainedScheduler ---------------------------------------------------------------------------

def test_chained_scheduler_multiplies_the_effects_of_its_schedulers():
    opt = _opt(1.0)
    chain = L.ChainedScheduler([L.ConstantLR(opt, factor=0.1, total_iters=3), L.ExponentialLR(opt, gamma=0.9)])
    got = _lrs(chain, opt, 7)
    np.testing.assert_allclose(got, [0.9 ** e * (0.1 if e < 3 else 1.0) for e in range(7)], rtol=1e-12)
    assert chain.optimizer is opt and chain.get_last_lr() == [opt.param_groups[0]["lr"]]


def test_chained_scheduler_refuses_what_pytorch_refuses():
    opt, other = _opt(), _opt()
    with pytest.raises(gg.InvalidArgumentError, match="schedulers"):
        L.ChainedScheduler([])
    with pytest.raises(gg.InvalidArgumentError, match=r"schedulers\[1\].*same optimizer"):
        L.ChainedScheduler([L.StepLR(opt, 2), L.StepLR(other, 2)])
    with pytest.raises(gg.InvalidArgumentError, match=r"schedulers\[0\].*ReduceLROnPlateau needs the metric"):
        L.ChainedScheduler([L.ReduceLROnPlateau(opt)])
    with pytest.raises(TypeError, match=r"schedulers\[0\]"):
        L.ChainedScheduler([object()])
    with pytest.raises(gg.InvalidArgumentError, match=r"schedulers\[0\].*ReduceLROnPlateau"):
        L.SequentialLR(opt, [L.ReduceLROnPlateau(opt), L.StepLR(opt, 2)], [3])
    # After a milestone SequentialLR restarts a scheduler from its closed form, which a chain lacks.
    with pytest.raises(gg.InvalidArgumentError, match=r"schedulers\[1\].*restart"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.ChainedScheduler([L.ExponentialLR(opt, 0.9)])], [3])


def test_a_sequential_lr_starting_with_a_chain_does_not_warn_about_step_order():
    opt = _opt(1.0)
    opt._step_calls = 0  # a new run: building must not warn, only a real step before optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L.SequentialLR(opt, [L.ChainedScheduler([L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.9)]),
                             L.StepLR(opt, 2)], [4])


# ---- ReduceLROnPlateau --------------------------------------------------------------------------

def _plateau_run(sched, opt, metrics):
    out = []
    for m in metrics:
        sched.step(m)
        out.append((opt.param_groups[0]["lr"], sched.num_bad_epochs, sched.cooldown_counter))
    return out


def test_plateau_reduces_after_more_than_patience_bad_epochs_then_cools_down():
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1)
    assert opt.param_groups[0]["lr"] == 1.0 and "initial_lr" not in opt.param_groups[0]  # no initial step
    got = _plateau_run(sched, opt, [5, 4, 4, 4, 4, 4, 4, 4, 4, 3])
    # (lr, num_bad_epochs, cooldown_counter) after each step: 4 after 4 is no improvement (not below
    # 4 * (1 - 1e-4)); the third bad epoch (> patience 2) halves lr and starts the cooldown, during
    # which bad epochs are not counted; 3 is an improvement.
    assert got == [(1.0, 0, 0), (1.0, 0, 0), (1.0, 1, 0), (1.0, 2, 0), (0.5, 0, 1), (0.5, 0, 0), (0.5, 1, 0),
                   (0.5, 2, 0), (0.25, 0, 1), (0.25, 0, 0)]
    assert sched.best == 3 and sched.last_epoch == 10 and sched.get_last_lr() == [0.25]


def test_plateau_defaults_wait_ten_bad_epochs_and_divide_by_ten():
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt)
    got = [lr for lr, _, _ in _plateau_run(sched, opt, [1.0] * 23)]
    assert got == [1.0] * 11 + [0.1] * 11 + [pytest.approx(0.01)]
    assert (sched.mode, sched.factor, sched.patience, sched.threshold, sched.threshold_mode, sched.cooldown,
            sched.min_lrs, sched.eps) == ("min", 0.1, 10, 1e-4, "rel", 0, [0.0], 1e-8)


@pytest.mark.parametrize("mode,threshold_mode,threshold,metrics,bad", [
    ("min", "rel", 0.1, [10, 9.5, 8.9, 8.1], [0, 1, 0, 1]),      # better: below best * 0.9
    ("min", "abs", 0.5, [10, 9.6, 9.4, 9.0], [0, 1, 0, 1]),      # better: below best - 0.5
    ("max", "rel", 0.1, [10, 10.5, 11.1, 12.1], [0, 1, 0, 1]),   # better: above best * 1.1
    ("max", "abs", 0.5, [10, 10.4, 10.6, 11.0], [0, 1, 0, 1]),   # better: above best + 0.5
])
def test_plateau_improvement_is_measured_as_documented(mode, threshold_mode, threshold, metrics, bad):
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, mode=mode, threshold=threshold, threshold_mode=threshold_mode, patience=5)
    assert [b for _, b, _ in _plateau_run(sched, opt, metrics)] == bad


def test_plateau_counts_a_nan_metric_as_a_bad_epoch():
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, patience=1)
    assert _plateau_run(sched, opt, [1.0, float("nan"), float("nan")]) == [(1.0, 0, 0), (1.0, 1, 0), (0.1, 0, 0)]


def test_plateau_stops_at_min_lr_per_group_and_skips_changes_below_eps():
    opt = _opt(1.0, groups=True)  # lrs 1.0 and 0.5
    sched = L.ReduceLROnPlateau(opt, factor=0.1, patience=0, min_lr=[0.05, 0.2])
    for m in (1, 1, 1):
        sched.step(m)
    assert sched.get_last_lr() == [pytest.approx(0.05), 0.2]
    opt = _opt(1e-7)
    sched = L.ReduceLROnPlateau(opt, factor=0.5, patience=0, eps=1e-7)
    for m in (1, 1, 1):
        sched.step(m)
    assert opt.param_groups[0]["lr"] == 1e-7  # 1e-7 - 5e-8 is not more than eps


def test_plateau_takes_numbers_zero_d_arrays_and_one_element_tensors_and_refuses_the_rest():
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, patience=0)
    sched.step(2.0)
    sched.step(np.float32(1.0))
    sched.step(gg.tensor(np.array(0.5)))
    assert sched.best == 0.5 and sched.num_bad_epochs == 0
    for bad in ("0.5", [0.5], None, True, gg.tensor(np.ones(3))):
        with pytest.raises(TypeError, match="ReduceLROnPlateau.step: metrics must be a number"):
            sched.step(bad)
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(0.4, epoch=7)
    assert sched.last_epoch == 7


def test_plateau_with_one_min_lr_follows_parameter_groups_added_later():
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.3)
    opt.add_param_group({"params": [gg.Parameter(np.zeros(1, np.float32))], "lr": 2.0})
    for m in (1, 1):
        sched.step(m)
    assert sched.get_last_lr() == [0.3, pytest.approx(0.3)] and sched.min_lrs == [0.3, 0.3]
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.3])
    opt.add_param_group({"params": [gg.Parameter(np.zeros(1, np.float32))], "lr": 2.0})
    sched.step(1)
    with pytest.raises(gg.InvalidArgumentError, match="2 parameter groups, but min_lr was given for 1"):
        sched.step(1)


def test_plateau_state_dict_keys_are_in_pytorchs_order():
    # PyTorch's state_dict is the scheduler's __dict__ but the optimizer, in the order __init__
    # sets the attributes (_init_is_better sets mode_worse before mode)
    keys = list(L.ReduceLROnPlateau(_opt()).state_dict())
    assert keys == ["factor", "default_min_lr", "min_lrs", "patience", "cooldown", "eps", "last_epoch", "_last_lr",
                    "mode_worse", "mode", "threshold", "threshold_mode", "best", "cooldown_counter", "num_bad_epochs"]


def test_plateau_state_round_trips_through_a_checkpoint_including_an_infinite_best(tmp_path):
    opt = _opt(1.0)
    sched = L.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, cooldown=2)
    gg.save({"scheduler": sched.state_dict()}, tmp_path / "new.gg")  # best is -inf before any step
    fresh = L.ReduceLROnPlateau(_opt(1.0), mode="max")
    fresh.load_state_dict(gg.load(tmp_path / "new.gg")["scheduler"])
    assert fresh.best == -math.inf and fresh.patience == 1 and fresh.mode_worse == -math.inf
    metrics = [1, 2, 2, 2, 2, 3, 1, 1, 1, 1, 1]
    for m in metrics[:5]:
        sched.step(m)
    gg.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "ck.gg")
    ckpt = gg.load(tmp_path / "ck.gg")
    opt2 = _opt(1.0)
    sched2 = L.ReduceLROnPlateau(opt2, mode="max")
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    assert (sched2.best, sched2.num_bad_epochs, sched2.cooldown_counter, sched2.last_epoch) == \
        (sched.best, sched.num_bad_epochs, sched.cooldown_counter, sched.last_epoch)
    assert _plateau_run(sched2, opt2, metrics[5:]) == _plateau_run(sched, opt, metrics[5:])
