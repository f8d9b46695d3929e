"""Optimizer and scheduler arguments PyTorch takes unchecked (Muon's eps; StepLR's step_size,
PolynomialLR's total_iters, CosineAnnealingLR's T_max and eta_min, ReduceLROnPlateau's patience,
...) are taken here too, and give PyTorch's rates: the expected sequences below are
torch.optim.lr_scheduler's (SGD, lr=0.1, the rate before each of the first steps). Where PyTorch
divides by zero (step_size=0, T_max=0) the same ZeroDivisionError comes at the same call. Only
what PyTorch itself refuses is refused (OneCycleLR's pct_start=0, an int; ConstantLR's factor=2)."""
import math

import pytest

import glassgrad as gg

S = gg.optim.lr_scheduler


def _sequence(name, kw, n=6, metric=1.0):
    opt = gg.optim.SGD([gg.nn.Parameter(gg.ones(2))], lr=0.1, momentum=0.9)
    sched = getattr(S, name)(opt, **kw)
    out = [opt.param_groups[0]["lr"]]
    for _ in range(n - 1):
        opt.step()
        sched.step(metric) if name == "ReduceLROnPlateau" else sched.step()
        out.append(opt.param_groups[0]["lr"])
    return out


def _cos(x):
    return 0.1 * (1 + math.cos(math.pi * x)) / 2


ACCEPTED = [
    ("StepLR", dict(step_size=-1), [0.1 * 0.1 ** k for k in range(6)]),   # epoch % -1 == 0: every step
    ("StepLR", dict(step_size=2, gamma=-1), [0.1, 0.1, -0.1, -0.1, 0.1, 0.1]),
    ("StepLR", dict(step_size=2.5), [0.1] * 5 + [0.01]),                  # 5 % 2.5 == 0
    ("MultiStepLR", dict(milestones=[-1, 2]), [0.1, 0.1, 0.01, 0.01, 0.01, 0.01]),
    ("ConstantLR", dict(factor=0.5, total_iters=-1), [0.05] * 6),          # never restored
    ("LinearLR", dict(total_iters=0), [0.1 / 3] * 6),
    ("LinearLR", dict(total_iters=-2), [0.1 / 3] * 6),
    ("ExponentialLR", dict(gamma=-0.5), [0.1 * (-0.5) ** k for k in range(6)]),
    ("PolynomialLR", dict(total_iters=0), [0.1] * 6),
    ("PolynomialLR", dict(total_iters=-1), [0.1] * 6),
    ("PolynomialLR", dict(total_iters=5, power=-1), [0.1, 0.125, 0.1 / 0.6, 0.25, 0.5]),
    ("CosineAnnealingLR", dict(T_max=-3), [0.1, 0.075, 0.025, 0.0, 0.025, 0.075]),
    ("CosineAnnealingLR", dict(T_max=2.5), [0.1, _cos(0.4), _cos(0.8), _cos(0.8), _cos(0.4), 0.1]),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, eta_min=-0.1), [0.1, 0.05, -0.05, 0.1, 0.05, -0.05]),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=-2), [0.01, 0.055, 0.1, 0.055, 0.01, 0.055]),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, scale_mode="iteration", scale_fn=lambda x: 0.5 ** x),
     [0.01, 0.0325, 0.0325, 0.015625, 0.01, 0.01140625]),                # any scale_mode but 'cycle' counts steps
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=0.0),
     [0.09755283560345443, 0.0904508879153485, 0.0793893450575732, 0.0654509879153485, 0.0500002,
      0.03454941208465151]),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, div_factor=-1.0),
     [-0.1, 0.0, 0.1, 0.09504794823946047, 0.08117260754194598, 0.0611221593024855]),
    ("ReduceLROnPlateau", dict(factor=-0.5, patience=0), [0.1, 0.1, 0, 0, 0, 0]),   # max(lr * factor, min_lr)
    ("ReduceLROnPlateau", dict(patience=-1), [0.1 * 0.1 ** k for k in range(6)]),
    ("ReduceLROnPlateau", dict(patience=0, threshold=-0.5), [0.1] * 6),
    ("ReduceLROnPlateau", dict(patience=0, cooldown=-1, min_lr=-1), [0.1, 0.1, 0.01, 0.001, 0.0001, 1e-05]),
]


@pytest.mark.parametrize("name,kw,want", ACCEPTED, ids=[f"{n}-{sorted(k)}" for n, k, _ in ACCEPTED])
def test_unchecked_arguments_give_pytorchs_rates(name, kw, want):
    got = _sequence(name, kw, n=len(want))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name,kw", [("StepLR", dict(step_size=0)), ("CosineAnnealingLR", dict(T_max=0))])
def test_a_zero_period_divides_by_zero_at_the_first_step_as_pytorch(name, kw):
    opt = gg.optim.SGD([gg.nn.Parameter(gg.ones(2))], lr=0.1)
    sched = getattr(S, name)(opt, **kw)  # built, as PyTorch builds it
    opt.step()
    with pytest.raises(ZeroDivisionError):
        sched.step()


def test_polynomial_lr_with_a_negative_power_divides_by_zero_at_total_iters():
    opt = gg.optim.SGD([gg.nn.Parameter(gg.ones(2))], lr=0.1)
    sched = S.PolynomialLR(opt, total_iters=2, power=-1)
    opt.step()
    sched.step()
    with pytest.raises(ZeroDivisionError):
        sched.step()


@pytest.mark.parametrize("name,kw", [("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=0)),
                                     ("OneCycleLR", dict(max_lr=0.1, total_steps=10, div_factor=0)),
                                     ("OneCycleLR", dict(max_lr=0.1, total_steps=10, final_div_factor=0))])
def test_zero_sizes_and_factors_divide_by_zero_when_built_as_pytorch(name, kw):
    opt = gg.optim.SGD([gg.nn.Parameter(gg.ones(2))], lr=0.1, momentum=0.9)
    with pytest.raises(ZeroDivisionError):
        getattr(S, name)(opt, **kw)


@pytest.mark.parametrize("name,kw", [("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=0)),
                                     ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=1)),
                                     ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=1.5)),
                                     ("ConstantLR", dict(factor=2)), ("LinearLR", dict(start_factor=0)),
                                     ("ReduceLROnPlateau", dict(factor=1.0)),
                                     ("CosineAnnealingWarmRestarts", dict(T_0=2.0))])
def test_what_pytorch_refuses_is_refused(name, kw):
    opt = gg.optim.SGD([gg.nn.Parameter(gg.ones(2))], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError):
        getattr(S, name)(opt, **kw)


def test_as_torch():
    torch = pytest.importorskip("torch")
    TS = torch.optim.lr_scheduler
    for name, kw, want in ACCEPTED:
        opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1, momentum=0.9)
        sched = getattr(TS, name)(opt, **kw)
        theirs = [opt.param_groups[0]["lr"]]
        for _ in range(len(want) - 1):
            opt.step()
            sched.step(1.0) if name == "ReduceLROnPlateau" else sched.step()
            theirs.append(opt.param_groups[0]["lr"])
        assert _sequence(name, kw, n=len(want)) == pytest.approx(theirs, rel=1e-12, abs=1e-15), (name, kw)


def test_muon_takes_a_negative_eps_as_pytorch():
    # eps only bounds the norm it divides by (max(||X||, eps)), so a negative one changes nothing.
    w = [gg.nn.Parameter(gg.tensor([[1.0, 2.0], [3.0, 5.0]])) for _ in range(2)]
    opts = [gg.optim.Muon([w[0]], lr=0.1, eps=-1e-8), gg.optim.Muon([w[1]], lr=0.1)]
    assert opts[0].param_groups[0]["eps"] == -1e-8
    for p, opt in zip(w, opts):
        p.grad = gg.tensor([[0.5, -1.0], [2.0, 0.25]])
        opt.step()
    assert w[0].tolist() == w[1].tolist() != [[1.0, 2.0], [3.0, 5.0]]
