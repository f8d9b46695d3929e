"""A learning rate given as a 0-d tensor: the schedulers fill the group's tensor in place
(PyTorch's _update_param_group_val), so the script's own tensor holds the scheduled rate and the
group keeps that very object; get_last_lr() gives copies (PyTorch clones them)."""
import pytest

import glassgrad as gg

S = gg.optim.lr_scheduler


def _run(make, steps=3, metric=None, momentum=0.9):
    p = gg.nn.Parameter(gg.ones(2))
    lr = gg.tensor(0.1)
    opt = gg.optim.SGD([p], lr=lr, momentum=momentum)
    sched = make(opt)
    for _ in range(steps):
        p.grad = gg.ones(2)
        opt.step()
        sched.step(metric) if metric is not None else sched.step()
    return lr, opt, sched, p


@pytest.mark.parametrize("make,metric,want", [
    (lambda o: S.StepLR(o, 1, 0.5), None, 0.0125),
    (lambda o: S.ReduceLROnPlateau(o, patience=0), 1.0, 0.001),
    (lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2), None, 0.055),
    (lambda o: S.SequentialLR(o, [S.ConstantLR(o, 0.5, total_iters=1), S.ExponentialLR(o, 0.5)], [2]), None, 0.05),
], ids=["StepLR", "ReduceLROnPlateau", "CyclicLR", "SequentialLR"])
def test_the_scripts_lr_tensor_is_filled_in_place(make, metric, want):
    lr, opt, sched, _ = _run(make, metric=metric)
    assert opt.param_groups[0]["lr"] is lr
    assert lr.item() == pytest.approx(want, rel=1e-6)
    last = sched.get_last_lr()[0]
    assert isinstance(last, gg.Tensor) and last is not lr and last.item() == pytest.approx(want, rel=1e-6)


def test_one_cycle_with_a_tensor_lr_steps_as_pytorch():
    # PyTorch's values: after 3 steps of OneCycleLR(max_lr=0.5, total_steps=5), p = -0.7111 and
    # the rate 0.0941 (its lr tensor filled in place)
    lr, opt, _, p = _run(lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=5))
    assert opt.param_groups[0]["lr"] is lr
    assert lr.item() == pytest.approx(0.09410, abs=1e-4)
    assert p.tolist() == pytest.approx([-0.7111, -0.7111], abs=1e-4)


def test_as_torch():
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.ones(2))
    lr = torch.tensor(0.1)
    opt = torch.optim.SGD([p], lr=lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=5)
    for _ in range(3):
        p.grad = torch.ones(2)
        opt.step()
        sched.step()
    ours, _, _, q = _run(lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=5))
    assert ours.item() == pytest.approx(lr.item(), rel=1e-6)
    assert q.tolist() == pytest.approx(p.tolist(), rel=1e-6)
