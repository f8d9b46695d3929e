"""Every torch.optim optimizer glassgrad has, against torch.optim itself on a nonlinear loss: the
same initial values, random hyperparameters (fixed seeds), several steps, float64 to 1e-12 and
float32 to 1e-4; the param_groups' keys (foreach, fused, capturable, differentiable included,
so state_dicts have PyTorch's layout); state_dicts loaded both ways; PyTorch's errors for
fused=True with foreach=True."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

INIT_SEED = 0


def _draw(cls, rng):
    """Random hyperparameters for cls, in the ranges PyTorch accepts."""
    u = lambda lo, hi: float(rng.uniform(lo, hi))
    flag = lambda: bool(rng.integers(2))
    if cls == "SGD":
        momentum = u(0, 0.95) if flag() else 0.0
        nesterov = momentum > 0 and flag()
        return dict(lr=u(0.01, 0.1), momentum=momentum, dampening=0.0 if nesterov else u(0, 0.5),
                    weight_decay=u(0, 0.1), nesterov=nesterov, maximize=flag())
    if cls in ("Adam", "AdamW"):
        return dict(lr=u(0.001, 0.1), betas=(u(0.5, 0.95), u(0.8, 0.999)), eps=10 ** u(-8, -3),
                    weight_decay=u(0, 0.2), amsgrad=flag(), maximize=flag())
    if cls == "RMSprop":
        return dict(lr=u(0.001, 0.05), alpha=u(0.5, 0.99), eps=10 ** u(-8, -3), weight_decay=u(0, 0.1),
                    momentum=u(0, 0.9) if flag() else 0.0, centered=flag(), maximize=flag())
    if cls == "Adagrad":
        return dict(lr=u(0.01, 0.2), lr_decay=u(0, 0.1), weight_decay=u(0, 0.1),
                    initial_accumulator_value=u(0, 0.5), eps=10 ** u(-10, -3), maximize=flag())
    if cls == "Adadelta":
        return dict(lr=u(0.1, 1.0), rho=u(0.5, 0.95), eps=10 ** u(-6, -3), weight_decay=u(0, 0.1), maximize=flag())
    if cls == "Adamax":
        return dict(lr=u(0.001, 0.1), betas=(u(0.5, 0.95), u(0.8, 0.999)), weight_decay=u(0, 0.1), maximize=flag())
    if cls == "NAdam":
        return dict(lr=u(0.001, 0.1), betas=(u(0.5, 0.95), u(0.8, 0.999)), weight_decay=u(0, 0.1),
                    momentum_decay=u(0.001, 0.1), decoupled_weight_decay=flag(), maximize=flag())
    if cls == "RAdam":  # beta2 small enough that the rectified branch runs within the steps
        return dict(lr=u(0.001, 0.1), betas=(u(0.5, 0.95), u(0.3, 0.7)), weight_decay=u(0, 0.1),
                    decoupled_weight_decay=flag(), maximize=flag())
    if cls == "Rprop":
        return dict(lr=u(0.001, 0.1), etas=(u(0.2, 0.9), u(1.1, 2.0)), step_sizes=(u(1e-6, 1e-3), u(0.1, 1.0)),
                    maximize=flag())
    if cls == "ASGD":
        return dict(lr=u(0.01, 0.1), lambd=10 ** u(-4, -1), alpha=u(0.5, 1.0), t0=float(rng.integers(0, 6)),
                    weight_decay=u(0, 0.1), maximize=flag())
    raise AssertionError(cls)


CLASSES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]


def _train(lib, cls, kwargs, dtype, steps=8):
    """Two parameter groups (the second with its own lr), loss = sum(w * (p - t)^2 + 0.01 p^3 + sin p)."""
    rng = np.random.default_rng(INIT_SEED)
    init = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    targets = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    dt = getattr(lib, dtype)
    ps = [lib.tensor(a, dtype=dt, requires_grad=True) for a in init]
    ts = [lib.tensor(t, dtype=dt) for t in targets]
    opt = getattr(lib.optim, cls)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": kwargs["lr"] / 2}], **kwargs)
    for s in range(steps):
        def closure():
            opt.zero_grad()
            loss = sum((((p - t) ** 2) * (1 + 0.1 * s) + p ** 3 * 0.01 + p.sin()).sum() for p, t in zip(ps, ts))
            loss.backward()
            return loss
        loss = opt.step(closure)
        assert np.isfinite(loss.item())  # step(closure) returns the closure's loss
    return [p.detach().numpy() for p in ps], opt


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cls", CLASSES)
def test_random_hyperparameters_match_torch(cls, seed):
    kwargs = _draw(cls, np.random.default_rng(1000 + seed))
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-4)):
        ref, topt = _train(torch, cls, kwargs, dtype)
        got, gopt = _train(gg, cls, kwargs, dtype)
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=f"{cls} {kwargs} {dtype}")
    theirs, ours = topt.state_dict(), gopt.state_dict()
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for k in theirs["state"]:
        assert list(ours["state"][k]) == list(theirs["state"][k])
        for name, value in theirs["state"][k].items():
            np.testing.assert_allclose(np.asarray(ours["state"][k][name], dtype=np.float64),
                                       value.double().numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    for g_ours, g_theirs in zip(ours["param_groups"], theirs["param_groups"]):
        assert set(g_ours) == set(g_theirs)
        assert g_ours["params"] == g_theirs["params"]


@pytest.mark.parametrize("cls", CLASSES)
def test_groups_hold_torchs_implementation_switches(cls):
    kwargs = {"lr": 0.01}
    t = getattr(torch.optim, cls)([torch.zeros(2, requires_grad=True)], **kwargs)
    g = getattr(gg.optim, cls)([gg.zeros(2, requires_grad=True)], **kwargs)
    assert set(g.param_groups[0]) == set(t.param_groups[0])
    assert set(g.defaults) == set(t.defaults)
    for key in ("foreach", "fused", "capturable", "differentiable"):
        if key in t.defaults:
            assert g.defaults[key] == t.defaults[key]


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_with_foreach_is_refused_as_torch(cls):
    with pytest.raises(RuntimeError, match="fused"):
        getattr(torch.optim, cls)([torch.zeros(2, requires_grad=True)], lr=0.1, fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        getattr(gg.optim, cls)([gg.zeros(2, requires_grad=True)], lr=0.1, fused=True, foreach=True)
    for kwargs in (dict(fused=True), dict(foreach=True), dict(foreach=False, fused=False)):
        opt = getattr(gg.optim, cls)([gg.zeros(2, requires_grad=True)], lr=0.1, **kwargs)
        for key, value in kwargs.items():
            assert opt.param_groups[0][key] == value


@pytest.mark.parametrize("cls", CLASSES)
def test_state_dicts_load_both_ways(cls):
    kwargs = _draw(cls, np.random.default_rng(7))
    _, topt = _train(torch, cls, kwargs, "float64", steps=3)
    _, gopt = _train(gg, cls, kwargs, "float64", steps=3)
    # glassgrad's state loads into torch (tensors made from its arrays), torch's into glassgrad
    sd = gopt.state_dict()
    converted = {"state": {k: {n: torch.as_tensor(np.asarray(v)) for n, v in st.items()} for k, st in sd["state"].items()},
                 "param_groups": sd["param_groups"]}
    fresh_t = getattr(torch.optim, cls)([{"params": [torch.zeros(3, 4, dtype=torch.float64, requires_grad=True)]},
                                         {"params": [torch.zeros(5, dtype=torch.float64, requires_grad=True)]}], lr=0.1)
    fresh_t.load_state_dict(converted)
    fresh_g = getattr(gg.optim, cls)([{"params": [gg.zeros(3, 4, dtype=gg.float64, requires_grad=True)]},
                                      {"params": [gg.zeros(5, dtype=gg.float64, requires_grad=True)]}], lr=0.1)
    fresh_g.load_state_dict(topt.state_dict())
    a, b = fresh_t.state_dict(), fresh_g.state_dict()
    for g_t, g_g in zip(a["param_groups"], b["param_groups"]):
        assert g_t["lr"] == pytest.approx(g_g["lr"])
    for k in a["state"]:
        for name in a["state"][k]:
            np.testing.assert_allclose(np.asarray(b["state"][k][name], np.float64), a["state"][k][name].double().numpy(),
                                       rtol=1e-6, atol=1e-12, err_msg=f"{cls} {name}")


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "RAdam", "ASGD"])
def test_a_tensor_lr_under_a_schedule_matches_torch(cls):
    results = []
    for lib in (torch, gg):
        rng = np.random.default_rng(9)
        p = lib.tensor(rng.standard_normal(6), dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, cls)([p], lr=lib.tensor(0.05, dtype=lib.float64))
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
        lrs = []
        for _ in range(5):
            opt.zero_grad()
            (p.sin() * p).sum().backward()
            opt.step()
            sched.step()
            assert isinstance(opt.param_groups[0]["lr"], lib.Tensor)  # still a tensor, filled in place
            lrs.append(float(opt.param_groups[0]["lr"]))
        results.append((p.detach().numpy(), lrs))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-15)


def test_tensor_lr_errors_follow_torch():
    for lib in (torch, gg):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=lib.tensor([0.1, 0.2]))
        with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False and foreach=True"):
            lib.optim.Adam([lib.zeros(2, requires_grad=True)], lr=lib.tensor(0.1), foreach=True)
        lib.optim.Adam([lib.zeros(2, requires_grad=True)], lr=lib.tensor(0.1), foreach=True, capturable=True)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "RMSprop", "Rprop"])
def test_frozen_parameters_are_accepted_and_train_once_unfrozen_as_torch(cls):
    results = []
    for lib in (torch, gg):
        model = lib.nn.Linear(2, 2).double()
        with lib.no_grad():
            model.weight.fill_(0.5)
            model.bias.fill_(0.1)
        model.weight.requires_grad_(False)  # a frozen layer, given to the optimizer anyway
        opt = getattr(lib.optim, cls)(model.parameters(), lr=0.1)
        for i in range(4):
            opt.zero_grad()
            model(lib.ones(1, 2, dtype=lib.float64)).sum().backward()
            opt.step()
            if i == 1:
                model.weight.requires_grad_(True)
        results.append([p.detach().numpy().copy() for p in model.parameters()] + [sorted(opt.state_dict()["state"])])
    for a, b in zip(results[0][:2], results[1][:2]):
        np.testing.assert_allclose(b, a, rtol=1e-13)
    assert results[0][2] == results[1][2]


def test_parameter_errors_are_torchs():
    for lib in (torch, gg):
        with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
            lib.optim.SGD([1.0], lr=0.1)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1)
        with pytest.raises(ValueError, match="empty parameter list"):
            lib.optim.Adam([], lr=0.1)


@pytest.mark.parametrize("name, betas", [("RAdam", (0.9, 0.999)), ("RAdam", (0.8, 0.9))])
def test_the_moving_average_weight_is_rounded_as_torchs(name, betas):
    """1 - beta1 is computed in double and read as the parameter's float32, as PyTorch's Python
    float is: RAdam's float32 steps are PyTorch's bit for bit (Adamax and NAdam still differ by an
    ulp or a few elsewhere)."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(50).astype(np.float32)
    grads = [rng.standard_normal(50).astype(np.float32) for _ in range(6)]
    ours = []
    for lib in (torch, gg):
        p = lib.nn.Parameter(lib.tensor(w0.copy()))
        opt = getattr(lib.optim, name)([p], lr=0.01, betas=betas)
        for g in grads:
            p.grad = lib.tensor(g.copy())
            opt.step()
        ours.append(p.detach().numpy().copy())
    np.testing.assert_array_equal(ours[1], ours[0])
