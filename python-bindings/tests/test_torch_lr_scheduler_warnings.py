"""The warnings torch.optim.lr_scheduler gives, given by glassgrad's schedules in the same places:
scheduler.step() before any optimizer.step(), get_lr() called outside step() (get_last_lr() is the
way to read the rates), and the deprecated step(epoch) (not SequentialLR's own restart at a
milestone, not CosineAnnealingWarmRestarts' fractional epochs, and ReduceLROnPlateau.step(m, epoch))."""
import warnings

import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _script(lib):
    opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=0.1)
    S = lib.optim.lr_scheduler
    calls = [
        lambda: S.StepLR(opt, 2).step(),  # before any optimizer.step()
        lambda: S.CosineAnnealingWarmRestarts(opt, 2).step(),  # its own step(): no order warning
        lambda: opt.step(),
        lambda: S.SequentialLR(opt, [S.ConstantLR(opt, 0.5, 2), S.ExponentialLR(opt, 0.9)], [2]),
    ]
    seq = []

    def sequential():
        s = S.SequentialLR(opt, [S.ConstantLR(opt, 0.5, 2), S.ExponentialLR(opt, 0.9)], [2])
        for _ in range(4):
            opt.step()
            s.step()
        seq.append(s)
    calls += [sequential,
              lambda: S.StepLR(opt, 2).step(3),
              lambda: S.CosineAnnealingWarmRestarts(opt, 2).step(0.5),
              lambda: S.CosineAnnealingWarmRestarts(opt, 2).get_lr(),
              lambda: S.ReduceLROnPlateau(opt).step(1.0, 3),
              lambda: S.ChainedScheduler([S.StepLR(opt, 2)]).step(),
              lambda: S.CyclicLR(opt, 0.01, 0.1).get_lr(),
              lambda: S.OneCycleLR(opt, 0.1, total_steps=10).step()]
    log = []
    for i, call in enumerate(calls):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        log.append((i, sorted(str(w.message).split(".")[0] for w in caught if w.category is UserWarning)))
    return log


def test_warnings_are_torchs():
    assert _script(gg) == _script(torch)


def test_the_warnings_name_the_fix():
    opt = gg.optim.SGD([gg.zeros(2, requires_grad=True)], lr=0.1)
    sched = gg.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="Please use `scheduler.step\\(\\)` to step the scheduler"):
        sched.step(4)
    assert sched.last_epoch == 4
