"""Adadelta, Adagrad, Adamax, NAdam and RAdam as PyTorch documents them: each option against a
NumPy restatement of torch.optim's algorithm box (always) and against torch.optim itself (when
PyTorch is installed), param_groups, the state_dict's entries, and state_dicts loading both ways.
A schedule writing lr (and beta1) never recompiles, plain or compiled."""
import copy
import numpy as np
import pytest

import glassgrad as gg
from test_port_optim import _data, _run_glassgrad, run_torch
from training_helpers import SmallMLP, train_step


# ---- NumPy restatements of the documented rules ---------------------------------------------------
def adadelta_numpy(init, grads, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False):
    ps = [a.copy() for a in init]
    sq = [np.zeros_like(a) for a in init]
    acc = [np.zeros_like(a) for a in init]
    for gs in grads:
        for i, g in enumerate(gs):
            g = (-g if maximize else g) + weight_decay * ps[i]
            sq[i] = rho * sq[i] + (1 - rho) * g * g
            delta = np.sqrt(acc[i] + eps) / np.sqrt(sq[i] + eps) * g
            acc[i] = rho * acc[i] + (1 - rho) * delta * delta
            ps[i] = ps[i] - lr * delta
    return ps


def adagrad_numpy(init, grads, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                  maximize=False):
    ps = [a.copy() for a in init]
    sums = [np.full_like(a, initial_accumulator_value) for a in init]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = (-g if maximize else g) + weight_decay * ps[i]
            clr = lr / (1 + (t - 1) * lr_decay)
            sums[i] = sums[i] + g * g
            ps[i] = ps[i] - clr * g / (np.sqrt(sums[i]) + eps)
    return ps


def adamax_numpy(init, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, maximize=False):
    b1, b2 = betas
    ps = [a.copy() for a in init]
    m = [np.zeros_like(a) for a in init]
    u = [np.zeros_like(a) for a in init]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = (-g if maximize else g) + weight_decay * ps[i]
            m[i] = m[i] + (1 - b1) * (g - m[i])
            u[i] = np.maximum(b2 * u[i], np.abs(g) + eps)
            ps[i] = ps[i] - lr / (1 - b1 ** t) * m[i] / u[i]
    return ps


def _weight_decay(ps, i, g, lr, weight_decay, decoupled, maximize):
    """NAdam's and RAdam's first lines: the gradient (negated to maximize) with L2 decay, or the
    parameter decayed in place (decoupled)."""
    g = -g if maximize else g
    if decoupled:
        ps[i] = ps[i] * (1 - lr * weight_decay)
        return g
    return g + weight_decay * ps[i]


def nadam_numpy(init, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3,
                decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    ps = [a.copy() for a in init]
    m = [np.zeros_like(a) for a in init]
    v = [np.zeros_like(a) for a in init]
    mu_product = [np.float32(1.0)] * len(init)  # float32, as PyTorch keeps it
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = _weight_decay(ps, i, g, lr, weight_decay, decoupled_weight_decay, maximize)
            mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
            mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
            mu_product[i] = np.float32(mu_product[i] * np.float32(mu))
            mp = float(mu_product[i])
            m[i] = m[i] + (1 - b1) * (g - m[i])
            v[i] = b2 * v[i] + (1 - b2) * g * g
            denom = np.sqrt(v[i] / (1 - b2 ** t)) + eps
            ps[i] = ps[i] - lr * (1 - mu) / (1 - mp) * g / denom - lr * mu_next / (1 - mp * mu_next) * m[i] / denom
    return ps


def radam_numpy(init, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled_weight_decay=False,
                maximize=False):
    b1, b2 = betas
    ps = [a.copy() for a in init]
    m = [np.zeros_like(a) for a in init]
    v = [np.zeros_like(a) for a in init]
    rho_inf = 2 / (1 - b2) - 1
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = _weight_decay(ps, i, g, lr, weight_decay, decoupled_weight_decay, maximize)
            m[i] = m[i] + (1 - b1) * (g - m[i])
            v[i] = b2 * v[i] + (1 - b2) * g * g
            m_hat = m[i] / (1 - b1 ** t)
            rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
            if rho > 5:
                rect = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
                ps[i] = ps[i] - lr * m_hat * np.sqrt(1 - b2 ** t) / (np.sqrt(v[i]) + eps) * rect
            else:
                ps[i] = ps[i] - lr * m_hat
    return ps


CASES = [
    ("Adadelta", dict(), adadelta_numpy),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1), adadelta_numpy),
    ("Adadelta", dict(lr=0.3, maximize=True), adadelta_numpy),
    ("Adagrad", dict(), adagrad_numpy),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6),
     adagrad_numpy),
    ("Adagrad", dict(lr=0.05, maximize=True), adagrad_numpy),
    ("Adamax", dict(), adamax_numpy),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1), adamax_numpy),
    ("Adamax", dict(lr=0.02, maximize=True), adamax_numpy),
    ("NAdam", dict(), nadam_numpy),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.95), weight_decay=0.1, momentum_decay=0.01), nadam_numpy),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True), nadam_numpy),
    ("RAdam", dict(), radam_numpy),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.8), weight_decay=0.1), radam_numpy),  # rectified from step 7
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.8), weight_decay=0.1, decoupled_weight_decay=True, maximize=True),
     radam_numpy),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw, _ in CASES]
STEPS = 8


@pytest.mark.parametrize("name,kwargs,ref", CASES, ids=IDS)
def test_update_rule_matches_the_documented_algorithm(name, kwargs, ref):
    init, grads = _data(STEPS)
    got, _ = _run_glassgrad(lambda ps: getattr(gg.optim, name)(ps, **kwargs), init, grads)
    want = ref(init, grads, **kwargs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_radam_cases_cover_both_branches():
    """The rectification threshold rho_t > 5 is crossed within the steps the cases take."""
    def rho(b2, t):
        rho_inf = 2 / (1 - b2) - 1
        return rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    assert rho(0.8, 6) <= 5 < rho(0.8, 7) and rho(0.999, 5) <= 5 < rho(0.999, 6)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 3e-6)])
@pytest.mark.parametrize("name,kwargs,ref", CASES, ids=IDS)
def test_update_rule_matches_torch_optim(torch, name, kwargs, ref, dtype, tol):
    init, grads = _data(STEPS)
    groups = [dict(lr=kwargs.get("lr", 0.01) * 2), dict()]  # two groups, the first with its own lr
    got, opt = _run_glassgrad(lambda ps: getattr(gg.optim, name)(ps, **kwargs), init, grads, dtype, groups)
    want, topt = run_torch(torch, name, kwargs, init, grads, dtype, groups)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    # The same state entries, with the same values.
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for k, st in tsd["state"].items():
        assert sorted(sd["state"][k]) == sorted(st), (name, k)
        for entry, value in st.items():
            np.testing.assert_allclose(np.asarray(sd["state"][k][entry], np.float64),
                                       value.detach().numpy().astype(np.float64), rtol=tol, atol=tol,
                                       err_msg=f"{name} state {k} {entry}")


NAMES = ["Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam"]


def test_defaults_and_group_keys_match_torch(torch):
    p = [torch.nn.Parameter(torch.zeros(2))]
    q = [gg.Parameter(np.zeros(2, np.float32))]
    for name in NAMES:
        t = getattr(torch.optim, name)(p)
        g = getattr(gg.optim, name)(q)
        tg, gg_ = t.param_groups[0], g.param_groups[0]
        for k, v in gg_.items():
            if k != "params":
                assert k in tg and tg[k] == v, (name, k, v, tg.get(k))
        for k in tg:  # every hyperparameter PyTorch's update reads is in glassgrad's group too
            if k not in ("params", "foreach", "capturable", "differentiable", "fused"):
                assert k in gg_, (name, k)


def test_adagrad_has_its_state_before_the_first_step_like_pytorch(torch):
    p = gg.Parameter(np.zeros((2, 3)))
    opt = gg.optim.Adagrad([p], initial_accumulator_value=0.25)
    topt = torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(2, 3))], initial_accumulator_value=0.25)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sorted(sd["state"][0]) == sorted(tsd["state"][0]) == ["step", "sum"]
    np.testing.assert_array_equal(sd["state"][0]["sum"], np.full((2, 3), 0.25))
    assert int(sd["state"][0]["step"]) == 0


@pytest.mark.parametrize("name,kwargs", [("Adadelta", dict(lr=0.5)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
                                         ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)),
                                         ("RAdam", dict(lr=0.05, betas=(0.5, 0.8)))])
def test_pytorch_state_dict_loads_and_continues_identically_and_back(torch, name, kwargs):
    """torch.optim's state_dict, converted to NumPy, loads into glassgrad's optimizer and the next
    steps agree; glassgrad's state_dict, converted to tensors, loads into torch's the same way."""
    init, grads = _data(8)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    topt = getattr(torch.optim, name)(tp, **kwargs)

    def torch_steps(gs_list):
        for gs in gs_list:
            sum((p * torch.tensor(g)).sum() for p, g in zip(tp, gs)).backward()
            topt.step()
            topt.zero_grad()

    torch_steps(grads[:3])
    sd = topt.state_dict()
    converted = {"state": {k: {n: v.numpy() for n, v in st.items()} for k, st in sd["state"].items()},
                 "param_groups": sd["param_groups"]}
    params = [gg.Parameter(p.detach().numpy()) for p in tp]
    opt = getattr(gg.optim, name)(params, lr=1.0)
    opt.load_state_dict(converted)
    assert opt.param_groups[0]["lr"] == kwargs["lr"]
    for gs in grads[3:5]:
        sum((p * gg.tensor(g)).sum() for p, g in zip(params, gs)).backward()
        opt.step()
        opt.zero_grad()
    # torch's own optimizer loaded with the same state: loading casts NAdam's float32 mu_product to
    # the parameters' float64 in both, so the two agree to rounding, and the original differs a little.
    reloaded = [torch.nn.Parameter(p.detach().clone()) for p in tp]
    ropt = getattr(torch.optim, name)(reloaded, lr=1.0)
    ropt.load_state_dict(copy.deepcopy(sd))
    for gs in grads[3:5]:
        sum((p * torch.tensor(g)).sum() for p, g in zip(reloaded, gs)).backward()
        ropt.step()
        ropt.zero_grad()
    torch_steps(grads[3:5])
    for a, b, c in zip(params, reloaded, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-12 if name != "NAdam" else 1e-8)
    # ... and back: glassgrad's state into a fresh torch optimizer.
    mine = opt.state_dict()
    fresh = [torch.nn.Parameter(torch.tensor(p.detach().numpy())) for p in params]
    other = getattr(torch.optim, name)(fresh, lr=1.0)
    other.load_state_dict({"state": {k: {n: torch.tensor(np.asarray(v)) for n, v in st.items()}
                                     for k, st in mine["state"].items()},
                           "param_groups": [dict(g) for g in mine["param_groups"]]})
    for gs in grads[5:]:
        sum((p * torch.tensor(g)).sum() for p, g in zip(fresh, gs)).backward()
        other.step()
        other.zero_grad()
    torch_steps(grads[5:])
    # (torch's load_state_dict casts NAdam's float32 mu_product to the parameters' float64, so
    # the reloaded torch optimizer itself rounds a little differently from the original.)
    for a, b in zip(fresh, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-8)


def test_invalid_hyperparameters_are_refused():
    p = [gg.Parameter(np.zeros(2))]
    with pytest.raises(gg.InvalidArgumentError, match="rho must be in"):
        gg.optim.Adadelta(p, rho=1.5)
    with pytest.raises(ValueError, match="lr_decay must be >= 0"):
        gg.optim.Adagrad(p, lr_decay=-1)
    with pytest.raises(ValueError, match="betas must be in"):
        gg.optim.Adamax(p, betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="momentum_decay must be >= 0"):
        gg.optim.NAdam(p, momentum_decay=-0.1)
    with pytest.raises(NotImplementedError, match="differentiable"):
        gg.optim.RAdam(p, differentiable=True)


SCHEDULES = [(n, "ExponentialLR") for n in NAMES] + [(n, "OneCycleLR") for n in ("Adamax", "NAdam", "RAdam")]


@pytest.mark.parametrize("name,schedule", SCHEDULES)
def test_a_schedule_changes_lr_and_beta1_every_step_without_recompiling(name, schedule):
    def run(compiled):
        gg.manual_seed(0)
        model = SmallMLP()
        opt = getattr(gg.optim, name)(model.parameters(), lr=0.01)
        sched = (gg.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=6) if schedule == "OneCycleLR"
                 else gg.optim.lr_scheduler.ExponentialLR(opt, 0.8))
        step = train_step(model, opt)
        if compiled:
            step = gg.compile(step)
        rng = np.random.default_rng(1)
        gg.clear_plan_cache()
        gg.reset_cache_stats()
        losses, compiles = [], []
        for _ in range(6):
            x = gg.tensor(rng.standard_normal((16, 6)).astype(np.float32))
            y = gg.tensor(rng.integers(0, 3, 16))
            losses.append(step(x, y).item())
            sched.step()
            compiles.append(gg.cache_stats()["compiles"])
        return losses, compiles

    plain, compiled = run(False), run(True)
    assert plain[1][-1] == plain[1][1]  # no compile after the first steps
    np.testing.assert_allclose(plain[0], compiled[0], rtol=1e-5)
