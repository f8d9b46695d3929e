"""glassgrad.optim.lr_scheduler follows torch.optim.lr_scheduler's documented formulas, step
order, state_dict and get_last_lr; checked against closed forms here. Every scheduler argument of
tests/argument_table.py (SCHEDULERS) is also compared with PyTorch's schedulers step by step in
test_torch_differential.py, and resumed from a checkpoint in test_argument_table.py."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.optim import lr_scheduler as L


def _opt(lr=0.1, name="SGD", groups=False, **kw):
    params = [gg.Parameter(np.zeros(2, np.float32)), gg.Parameter(np.zeros(3, np.float32))]
    cls = getattr(gg.optim, name)
    if groups:
        return cls([{"params": [params[0]]}, {"params": [params[1]], "lr": lr / 2}], lr=lr, **kw)
    return cls(params, lr=lr, **kw)


def _lrs(sched, opt, n):
    """The first group's lr at epochs 0..n-1 (step() after each "epoch")."""
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt._step_calls += 1  # as if optimizer.step() ran (no training here)
        sched.step()
    return out


def test_step_lr_decays_by_gamma_every_step_size_epochs():
    opt = _opt(0.1)
    got = _lrs(L.StepLR(opt, step_size=3, gamma=0.5), opt, 9)
    np.testing.assert_allclose(got, [0.1 * 0.5 ** (e // 3) for e in range(9)], rtol=1e-15)


def test_multistep_lr_counts_milestones_and_repeats():
    opt = _opt(1.0)
    got = _lrs(L.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.1), opt, 7)
    np.testing.assert_allclose(got, [1, 1, 0.1, 0.1, 0.1, 0.001, 0.001], rtol=1e-12)


def test_cosine_annealing_follows_the_closed_form():
    opt = _opt(0.1)
    got = _lrs(L.CosineAnnealingLR(opt, T_max=10, eta_min=0.001), opt, 11)
    want = [0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * e / 10)) / 2 for e in range(11)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_linear_lr_warms_up_and_stays():
    opt = _opt(0.1)
    got = _lrs(L.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=4), opt, 7)
    np.testing.assert_allclose(got, [0.1 * (0.25 + 0.75 * min(e, 4) / 4) for e in range(7)], rtol=1e-12)


def test_lambda_lr_multiplies_the_initial_rate_per_group():
    opt = _opt(0.1, groups=True)
    sched = L.LambdaLR(opt, [lambda e: 0.5 ** e, lambda e: e + 1])
    for e in range(4):
        assert sched.get_last_lr() == pytest.approx([0.1 * 0.5 ** e, 0.05 * (e + 1)])
        opt._step_calls += 1
        sched.step()


def test_one_cycle_goes_up_to_max_lr_then_down_and_cycles_beta1_the_other_way():
    opt = _opt(0.1, name="AdamW")
    sched = L.OneCycleLR(opt, max_lr=1.0, total_steps=100)
    lrs, betas = [], []
    for _ in range(100):
        lrs.append(opt.param_groups[0]["lr"])
        betas.append(opt.param_groups[0]["betas"][0])
        opt._step_calls += 1
        sched.step() if len(lrs) < 100 else None
    assert lrs[0] == pytest.approx(1.0 / 25) and betas[0] == pytest.approx(0.95)
    peak = int(np.argmax(lrs))
    assert peak == 29 and lrs[peak] == pytest.approx(1.0) and betas[peak] == pytest.approx(0.85)
    assert lrs[-1] == pytest.approx(1.0 / 25 / 1e4) and betas[-1] == pytest.approx(0.95)
    assert opt.param_groups[0]["betas"][1] == 0.999  # beta2 untouched
    with pytest.raises(ValueError, match="Tried to step 101 times"):
        sched.step()
        sched.step()


def test_one_cycle_needs_momentum_or_betas_to_cycle():
    p = [gg.Parameter(np.zeros(2))]

    class Plain(gg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

    with pytest.raises(ValueError, match="must support momentum or beta1"):
        L.OneCycleLR(Plain(p), max_lr=1.0, total_steps=10)
    L.OneCycleLR(Plain(p), max_lr=1.0, total_steps=10, cycle_momentum=False)


def test_sequential_lr_switches_at_the_milestone_and_restarts_the_next_schedule():
    opt = _opt(1.0)
    warm = L.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = L.ExponentialLR(opt, gamma=0.5)
    got = _lrs(L.SequentialLR(opt, [warm, decay], milestones=[3]), opt, 6)
    np.testing.assert_allclose(got, [0.1, 0.4, 0.7, 1.0, 0.5, 0.25], rtol=1e-12)


def test_building_a_scheduler_sets_initial_lr_and_the_epoch_0_rate():
    opt = _opt(0.1)
    L.LinearLR(opt, start_factor=0.5, total_iters=2)
    assert opt.param_groups[0]["initial_lr"] == 0.1 and opt.param_groups[0]["lr"] == 0.05


def test_state_dict_round_trips_through_a_checkpoint(tmp_path):
    opt = _opt(0.1)
    sched = L.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    _lrs(sched, opt, 3)
    gg.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "ck.gg")
    ckpt = gg.load(tmp_path / "ck.gg")
    opt2 = _opt(0.1)
    sched2 = L.MultiStepLR(opt2, milestones=[2, 4], gamma=0.5)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    assert sched2.last_epoch == 3 and sched2.get_last_lr() == sched.get_last_lr()
    assert _lrs(sched2, opt2, 4) == _lrs(sched, opt, 4)


def test_stepping_the_scheduler_before_the_optimizer_warns():
    opt = _opt(0.1)
    sched = L.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"lr_scheduler.step\(\)` before `optimizer.step\(\)"):
        sched.step()


def test_a_scheduler_needs_a_glassgrad_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        L.StepLR(object(), 2)


def test_resuming_a_multiplicative_schedule_keeps_the_loaded_rate_as_pytorch_does():
    # last_epoch=5: the initial step goes to epoch 6 but, as in PyTorch, only sets the groups' own
    # rates (those the optimizer's state_dict restored); the next step() multiplies.
    for make in (lambda o: L.ExponentialLR(o, 0.5, last_epoch=5), lambda o: L.MultiplicativeLR(o, lambda e: 0.5, 5)):
        opt = _opt(0.1)
        opt.param_groups[0]["initial_lr"] = 0.2
        sched = make(opt)
        assert opt.param_groups[0]["lr"] == 0.1 and sched.last_epoch == 6
        opt._step_calls += 1
        sched.step()
        assert opt.param_groups[0]["lr"] == pytest.approx(0.05)
