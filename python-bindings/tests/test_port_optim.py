"""Optimizers as PyTorch documents them: param_groups (per-group hyperparameters that step() reads),
SGD's dampening / nesterov / maximize, Adam's amsgrad, AdamW, RMSprop; state_dict with several
groups; and hyperparameter schedules that never recompile a plan or re-trace a compiled step.

Each rule is checked against a NumPy restatement of PyTorch's documented update (always) and
against torch.optim itself (when PyTorch is installed)."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import SmallMLP, train_step

SHAPES = [(3, 4), (5,)]


def _data(steps, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]
    return init, grads


def _run_glassgrad(make_opt, init, grads, dtype="float64", groups=None, between=None):
    """Steps a glassgrad optimizer with the gradients `grads` (loss = sum(p * g) has gradient g)."""
    params = [gg.Parameter(a.astype(dtype)) for a in init]
    opt = make_opt([dict(params=[p], **g) for p, g in zip(params, groups)] if groups else params)
    for k, gs in enumerate(grads):
        loss = sum((p * gg.tensor(g.astype(dtype))).sum() for p, g in zip(params, gs))
        loss.backward()
        opt.step()
        opt.zero_grad()
        if between:
            between(opt, k)
    return [p.detach().numpy() for p in params], opt


# ---- NumPy restatements of the documented rules (torch.optim's algorithm boxes) -----------------
def sgd_numpy(init, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    ps = [a.copy() for a in init]
    bufs = [None] * len(ps)
    for gs in grads:
        for i, g in enumerate(gs):
            g = -g if maximize else g
            d = g + weight_decay * ps[i]
            if momentum:
                bufs[i] = d.copy() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * d
                d = d + momentum * bufs[i] if nesterov else bufs[i]
            ps[i] = ps[i] - lr * d
    return ps


def adam_numpy(init, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
               maximize=False, decoupled=False):
    b1, b2 = betas
    ps = [a.copy() for a in init]
    m = [np.zeros_like(a) for a in init]
    v = [np.zeros_like(a) for a in init]
    vmax = [np.zeros_like(a) for a in init]
    for t, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = -g if maximize else g
            if decoupled:
                ps[i] = ps[i] * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            vmax[i] = np.maximum(vmax[i], v[i])
            vhat = (vmax[i] if amsgrad else v[i]) / (1 - b2 ** t)
            ps[i] = ps[i] - lr * (m[i] / (1 - b1 ** t)) / (np.sqrt(vhat) + eps)
    return ps


def rmsprop_numpy(init, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                  maximize=False):
    ps = [a.copy() for a in init]
    sq = [np.zeros_like(a) for a in init]
    ga = [np.zeros_like(a) for a in init]
    buf = [np.zeros_like(a) for a in init]
    for gs in grads:
        for i, g in enumerate(gs):
            g = (-g if maximize else g) + weight_decay * ps[i]
            sq[i] = alpha * sq[i] + (1 - alpha) * g * g
            if centered:
                ga[i] = alpha * ga[i] + (1 - alpha) * g
                avg = np.sqrt(sq[i] - ga[i] ** 2) + eps
            else:
                avg = np.sqrt(sq[i]) + eps
            if momentum > 0:
                buf[i] = momentum * buf[i] + g / avg
                ps[i] = ps[i] - lr * buf[i]
            else:
                ps[i] = ps[i] - lr * g / avg
    return ps


CASES = [
    ("SGD", dict(lr=0.1), sgd_numpy),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01), sgd_numpy),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True), sgd_numpy),
    ("Adam", dict(lr=0.1, weight_decay=0.1), adam_numpy),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.95), amsgrad=True, maximize=True), adam_numpy),
    ("AdamW", dict(lr=0.1, betas=(0.8, 0.9)), lambda i, g, **kw: adam_numpy(i, g, weight_decay=0.01, decoupled=True, **kw)),
    ("AdamW", dict(lr=0.1, weight_decay=0.2, amsgrad=True), lambda i, g, **kw: adam_numpy(i, g, decoupled=True, **kw)),
    ("RMSprop", dict(lr=0.01), rmsprop_numpy),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1), rmsprop_numpy),
    ("RMSprop", dict(lr=0.02, momentum=0.3, maximize=True), rmsprop_numpy),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw, _ in CASES]


@pytest.mark.parametrize("name,kwargs,ref", CASES, ids=IDS)
def test_update_rule_matches_the_documented_algorithm(name, kwargs, ref):
    init, grads = _data(6)
    got, _ = _run_glassgrad(lambda ps: getattr(gg.optim, name)(ps, **kwargs), init, grads)
    want = ref(init, grads, **kwargs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def run_torch(torch, name, kwargs, init, grads, dtype="float64", groups=None):
    """_run_glassgrad's steps with torch.optim: (parameters as arrays, the optimizer)."""
    tp = [torch.nn.Parameter(torch.tensor(a.astype(dtype))) for a in init]
    topt = getattr(torch.optim, name)([dict(params=[p], **g) for p, g in zip(tp, groups)] if groups else tp, **kwargs)
    for gs in grads:
        sum((p * torch.tensor(g.astype(dtype))).sum() for p, g in zip(tp, gs)).backward()
        topt.step()
        topt.zero_grad()
    return [p.detach().numpy() for p in tp], topt


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-13), ("float32", 2e-6)])
@pytest.mark.parametrize("name,kwargs,ref", CASES, ids=IDS)
def test_update_rule_matches_torch_optim(torch, name, kwargs, ref, dtype, tol):
    init, grads = _data(6)
    groups = [dict(lr=kwargs["lr"] * 2), dict()]  # two groups, the first with its own lr
    got, _ = _run_glassgrad(lambda ps: getattr(gg.optim, name)(ps, **kwargs), init, grads, dtype, groups)
    want, _ = run_torch(torch, name, kwargs, init, grads, dtype, groups)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_defaults_and_group_keys_match_torch(torch):
    p = [torch.nn.Parameter(torch.zeros(2))]
    q = [gg.Parameter(np.zeros(2, np.float32))]
    for name in ("SGD", "Adam", "AdamW", "RMSprop"):
        t = getattr(torch.optim, name)(p)
        g = getattr(gg.optim, name)(q)
        tg, gg_ = t.param_groups[0], g.param_groups[0]
        for k, v in gg_.items():
            if k != "params":
                assert k in tg and tg[k] == v, (name, k, v, tg.get(k))
        for k in ("lr", "weight_decay"):
            assert gg_[k] == tg[k]


# ---- param_groups ------------------------------------------------------------------------------
def test_each_group_steps_with_its_own_hyperparameters():
    init, grads = _data(3)
    groups = [dict(lr=0.5, momentum=0.0), dict(lr=0.01, nesterov=True)]
    got, opt = _run_glassgrad(lambda ps: gg.SGD(ps, lr=0.1, momentum=0.9), init, grads, groups=groups)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.01]
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["nesterov"]
    np.testing.assert_allclose(got[0], sgd_numpy(init[:1], [g[:1] for g in grads], lr=0.5)[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], sgd_numpy(init[1:], [g[1:] for g in grads], lr=0.01, momentum=0.9,
                                                 nesterov=True)[0], rtol=1e-12)


def test_writing_a_group_s_lr_takes_effect_at_the_next_step():
    init, grads = _data(4)

    def halve(opt, k):
        for g in opt.param_groups:
            g["lr"] = g["lr"] * 0.5

    got, _ = _run_glassgrad(lambda ps: gg.SGD(ps, lr=0.4, momentum=0.9), init, grads, between=halve)
    # The same schedule, stepped by hand.
    ps = [a.copy() for a in init]
    bufs = [None, None]
    lr = 0.4
    for gs in grads:
        for i, g in enumerate(gs):
            bufs[i] = g.copy() if bufs[i] is None else 0.9 * bufs[i] + g
            ps[i] = ps[i] - lr * bufs[i]
        lr *= 0.5
    for a, b in zip(got, ps):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_add_param_group_takes_defaults_and_refuses_duplicates():
    a, b = gg.Parameter(np.zeros(2)), gg.Parameter(np.zeros(3))
    opt = gg.Adam([a], lr=0.01, betas=(0.5, 0.9))
    opt.add_param_group({"params": b, "lr": 0.1})
    assert len(opt.param_groups) == 2
    g = opt.param_groups[1]
    assert g["params"] == [b] and g["lr"] == 0.1 and g["betas"] == (0.5, 0.9) and g["eps"] == 1e-8
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="more than one parameter group"):
        gg.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)


def test_named_parameters_are_accepted_and_kept_as_param_names():
    model = gg.Linear(3, 2)
    opt = gg.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"] == [model.weight, model.bias]


@pytest.mark.parametrize("params", [lambda m: [("weight", m.weight), m.bias], lambda m: [m.weight, ("bias", m.bias)]])
def test_a_group_with_some_names_missing_is_torchs_value_error(params):
    model = gg.Linear(3, 2)
    with pytest.raises(ValueError) as e:
        gg.SGD(params(model), lr=0.1)
    assert str(e.value).splitlines()[0] == ("all optimizer params should be with/without names. Some param names "
                                            "are missing")


def test_groups_with_and_without_names_do_not_mix_as_in_torch():
    model = gg.Linear(3, 2)
    with pytest.raises(ValueError) as e:
        gg.SGD([{"params": [model.weight]}, {"params": [("bias", model.bias)]}], lr=0.1)
    assert str(e.value).splitlines()[0] == ("all optimizer param groups should be with/without names. cannot add "
                                            "param group with names to the optimizer")
    opt = gg.SGD([("weight", model.weight)], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names to the optimizer"):
        opt.add_param_group({"params": [model.bias]})
    opt.add_param_group({"params": [("bias", model.bias)], "lr": 0.5})
    assert opt.param_groups[1]["param_names"] == ["bias"]


def test_invalid_hyperparameters_are_refused():
    p = [gg.Parameter(np.zeros(2))]
    with pytest.raises(gg.InvalidArgumentError, match="lr must be >= 0"):
        gg.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        gg.RMSprop(p, alpha=-0.1)
    with pytest.raises(TypeError, match="single Tensor"):
        gg.SGD(p[0], lr=0.1)
    with pytest.raises(NotImplementedError, match="differentiable"):
        gg.Adam(p, differentiable=True)


def test_state_is_keyed_by_parameter_like_pytorch():
    init, grads = _data(2)
    _, opt = _run_glassgrad(lambda ps: gg.Adam(ps, amsgrad=True), init, grads)
    p = opt.param_groups[0]["params"][0]
    assert set(opt.state[p]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert int(opt.state[p]["step"].numpy()) == 2


def test_zero_grad_set_to_none_false_leaves_zeros():
    p = gg.Parameter(np.ones(3, np.float32))
    opt = gg.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), np.zeros(3))
    (p * 3).sum().backward()  # accumulates onto the zeros
    np.testing.assert_array_equal(p.grad.numpy(), np.full(3, 3.0))
    opt.zero_grad()
    assert p.grad is None


def test_step_calls_the_closure_and_returns_its_loss():
    p = gg.Parameter(np.array([1.0, 2.0]))
    opt = gg.SGD([p], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 5.0
    np.testing.assert_allclose(p.detach().numpy(), [0.0, 0.0])


def test_state_dict_with_two_groups_numbers_parameters_across_groups_and_reloads():
    init, grads = _data(3)
    groups = [dict(lr=0.2), dict(lr=0.05, momentum=0.5)]
    _, opt = _run_glassgrad(lambda ps: gg.SGD(ps, lr=0.1, momentum=0.9), init, grads, groups=groups)
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert [g["lr"] for g in sd["param_groups"]] == [0.2, 0.05] and sd["param_groups"][1]["momentum"] == 0.5
    assert sorted(sd["state"]) == [0, 1]
    # Same groups, fresh optimizer: identical continuation.
    params = [gg.Parameter(p.detach().numpy()) for p in opt.params]
    other = gg.SGD([dict(params=[params[0]]), dict(params=[params[1]])], lr=1.0)
    other.load_state_dict(sd)
    assert [g["lr"] for g in other.param_groups] == [0.2, 0.05]
    for o in (opt, other):
        ps = o.params
        sum((p * gg.tensor(g)).sum() for p, g in zip(ps, grads[0])).backward()
        o.step()
        o.zero_grad()
    for a, b in zip(opt.params, other.params):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with pytest.raises(gg.InvalidArgumentError, match=r"2 parameters in 2 group\(s\) \[1, 1\].*1 group\(s\) \[2\]"):
        gg.SGD(params, lr=0.1).load_state_dict(sd)


def test_pytorch_optimizer_state_loads_and_continues_identically(torch):
    """torch.optim.Adam's state_dict, converted to NumPy, loads into glassgrad's Adam (float steps
    included) and the next steps agree."""
    init, grads = _data(5)
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    topt = torch.optim.Adam(tp, lr=0.05, amsgrad=True)
    for gs in grads[:3]:
        sum((p * torch.tensor(g)).sum() for p, g in zip(tp, gs)).backward()
        topt.step()
        topt.zero_grad()
    sd = topt.state_dict()
    converted = {"state": {k: {n: v.numpy() for n, v in st.items()} for k, st in sd["state"].items()},
                 "param_groups": sd["param_groups"]}
    params = [gg.Parameter(p.detach().numpy()) for p in tp]
    opt = gg.Adam(params, lr=1.0)
    opt.load_state_dict(converted)
    assert opt.param_groups[0]["lr"] == 0.05 and opt.param_groups[0]["amsgrad"]
    for gs in grads[3:]:
        sum((p * torch.tensor(g)).sum() for p, g in zip(tp, gs)).backward()
        topt.step()
        topt.zero_grad()
        sum((p * gg.tensor(g)).sum() for p, g in zip(params, gs)).backward()
        opt.step()
        opt.zero_grad()
    for a, b in zip(params, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


# ---- schedules never recompile ------------------------------------------------------------------
def _batches(n=8, seed=1):
    rng = np.random.default_rng(seed)
    return [(gg.tensor(rng.standard_normal((16, 6)).astype(np.float32)), gg.tensor(rng.integers(0, 3, 16)))
            for _ in range(n)]


def _one_cycle_run(make_opt, compiled, steps=8):
    gg.manual_seed(0)
    model = SmallMLP()
    opt = make_opt(model.parameters())
    sched = gg.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=steps)
    step = train_step(model, opt)
    if compiled:
        step = gg.compile(step)
    losses, lrs, betas = [], [], []
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    compiles = []
    for xb, yb in _batches(steps):
        losses.append(step(xb, yb).item())
        sched.step()
        g = opt.param_groups[0]
        lrs.append(g["lr"])
        betas.append(g["betas"][0] if "betas" in g else g["momentum"])
        compiles.append(gg.cache_stats()["compiles"])
    return losses, lrs, betas, compiles, step, model


@pytest.mark.parametrize("make_opt", [lambda ps: gg.AdamW(ps, lr=0.01), lambda ps: gg.SGD(ps, lr=0.01, momentum=0.9),
                                      lambda ps: gg.RMSprop(ps, lr=0.01, momentum=0.9)],
                         ids=["AdamW", "SGD-momentum", "RMSprop-momentum"])
def test_one_cycle_changes_lr_and_momentum_every_step_without_recompiling(make_opt):
    plain = _one_cycle_run(make_opt, compiled=False)
    compiled = _one_cycle_run(make_opt, compiled=True)
    losses, lrs, betas, compiles, _, _ = plain
    assert all(a != b for a, b in zip(lrs, lrs[1:])) and all(a != b for a, b in zip(betas, betas[1:]))
    assert compiles[-1] == compiles[1]   # the plain loop: no compile after the first steps
    c_losses, _, _, c_compiles, step, c_model = compiled
    assert step.replays == len(losses) - 2  # traced twice (warm-up, capture), then replayed
    assert c_compiles[-1] == c_compiles[1]
    # The replays used every new lr and momentum: same numbers as the plain loop.
    np.testing.assert_allclose(c_losses, losses, rtol=1e-5)
    for (n, a), (_, b) in zip(plain[5].state_dict().items(), c_model.state_dict().items()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=n)


def test_changing_a_static_hyperparameter_traces_a_compiled_step_again():
    """weight_decay is an attribute of the update op: a compiled step must not replay the old one."""
    def run(compiled):
        gg.manual_seed(0)
        model = SmallMLP()
        opt = gg.SGD(model.parameters(), lr=0.05, momentum=0.9)
        step = gg.compile(train_step(model, opt)) if compiled else train_step(model, opt)
        losses = []
        for k, (xb, yb) in enumerate(_batches(8)):
            if k == 4:
                opt.param_groups[0]["weight_decay"] = 0.5
            losses.append(step(xb, yb).item())
        return losses, step, model

    a, _, model_a = run(False)
    b, step, model_b = run(True)
    np.testing.assert_allclose(b, a, rtol=1e-6)
    np.testing.assert_allclose(model_b.fc1.weight.detach().numpy(), model_a.fc1.weight.detach().numpy(), rtol=1e-5, atol=1e-7)
    assert step.replays == 4  # 2 traced + 2 replayed before the change, 2 traced + 2 replayed after


@pytest.mark.parametrize("edit", ["hook", "dict.__setitem__", "pop", "tensor lr"])
def test_group_edits_between_steps_take_effect_however_made(edit):
    """step() re-checks a group only when it may differ from its last check (Optimizer._unchecked):
    an lr written through the dict hooks or past them, an entry removed and put back, a tensor lr
    filled in place all reach the next step, as in PyTorch, which reads the groups every step."""
    rng = np.random.default_rng(3)
    init = rng.standard_normal((3, 4)).astype(np.float32)

    def run(change):
        w = gg.tensor(init.copy(), requires_grad=True)
        lr = gg.tensor(0.1) if edit == "tensor lr" else 0.1
        opt = gg.Adam([w], lr=lr)
        for k in range(4):
            ((w * w).sum() + w.sum()).backward()
            opt.step()
            opt.zero_grad()
            if k == 1 and change:
                g = opt.param_groups[0]
                if edit == "hook":
                    g["lr"] = 0.5
                elif edit == "dict.__setitem__":
                    dict.__setitem__(g, "lr", 0.5)
                elif edit == "pop":
                    dict.__setitem__(g, "eps", g.pop("eps") * 1e7)
                else:
                    g["lr"].fill_(0.5)
        return w.detach().numpy()

    unchanged, changed = run(False), run(True)
    assert not np.allclose(changed, unchanged)


def test_an_unused_optimizer_is_freed_at_once_with_its_state():
    """Param groups refer back to their optimizer weakly: no reference cycle keeps an optimizer's
    momentum buffers alive until the cyclic garbage collector happens to run."""
    import gc
    import weakref
    init, grads = _data(1)
    gc.disable()
    try:
        _, opt = _run_glassgrad(lambda ps: gg.SGD(ps, lr=0.1, momentum=0.9), init, grads)
        ref = weakref.ref(opt)
        buf = weakref.ref(next(iter(opt.state.values()))["momentum_buffer"])
        del opt
        assert ref() is None and buf() is None
    finally:
        gc.enable()


def test_a_step_without_gradients_changes_nothing_as_in_pytorch():
    # PyTorch skips parameters whose .grad is None: a step before any backward (an LR-finder's
    # first call, a frozen model) is a no-op, and a closure's loss still comes back.
    w = gg.nn.Parameter(np.ones(3, np.float32))
    opt = gg.optim.SGD([w], lr=0.1, momentum=0.9)
    assert opt.step() is None
    assert opt.step(lambda: 1.5) == 1.5
    np.testing.assert_array_equal(w.detach().numpy(), np.ones(3))
    assert not opt.state or all(not s for s in opt.state.values())
