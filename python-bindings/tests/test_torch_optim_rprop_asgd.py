"""Rprop and ASGD as PyTorch documents them: each option against a NumPy restatement of
torch.optim's algorithm box, against torch.optim itself (same initial values and gradients,
float64 and float32), PyTorch's state entries and hyperparameter errors."""
import numpy as np
import pytest

import glassgrad as gg
from test_port_optim import _data, _run_glassgrad

torch = pytest.importorskip("torch")


def rprop_numpy(init, grads, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    etaminus, etaplus = etas
    ps = [a.copy() for a in init]
    prev = [np.zeros_like(a) for a in init]
    size = [np.full_like(a, lr) for a in init]
    for gs in grads:
        for i, g in enumerate(gs):
            g = -g if maximize else g.copy()
            s = np.sign(g * prev[i])
            factor = np.where(s > 0, etaplus, np.where(s < 0, etaminus, 1.0))
            size[i] = np.clip(size[i] * factor, *step_sizes)
            g = np.where(s < 0, 0.0, g)
            ps[i] = ps[i] - np.sign(g) * size[i]
            prev[i] = g
    return ps


def asgd_numpy(init, grads, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
    ps = [a.copy() for a in init]
    ax = [np.zeros_like(a) for a in init]
    eta = [np.float32(lr)] * len(ps)
    mu = [np.float32(1.0)] * len(ps)
    for step, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = (-g if maximize else g) + weight_decay * ps[i]
            e = float(eta[i])
            ps[i] = ps[i] * (1 - lambd * e) - e * g
            ax[i] = ps[i].copy() if mu[i] == 1 else ax[i] + (ps[i] - ax[i]) * float(mu[i])
            eta[i] = np.float32(lr / (1 + lambd * lr * step) ** alpha)
            mu[i] = np.float32(1 / max(1, step - t0))
    return ps, ax


def _run_torch(cls, kwargs, init, grads, dtype):
    params = [torch.tensor(a.astype(dtype), requires_grad=True) for a in init]
    opt = getattr(torch.optim, cls)(params, **kwargs)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = torch.tensor(g.astype(dtype))
        opt.step()
    return [p.detach().numpy() for p in params], opt


RPROP = [{}, dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(1e-3, 1.0)), dict(maximize=True), dict(lr=0.5, step_sizes=(0.01, 0.2))]
ASGD = [{}, dict(lr=0.1, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1), dict(maximize=True, t0=0),
        dict(lr=0.05, t0=5, lambd=0.1)]


@pytest.mark.parametrize("kwargs", RPROP)
def test_rprop_matches_numpy_and_torch(kwargs):
    # Gradients alternate sign on some entries so that both the grow and the shrink branch run.
    init, grads = _data(8, seed=3)
    grads = [[g * (-1) ** (k * (np.arange(g.size).reshape(g.shape) % 2)) for g in gs] for k, gs in enumerate(grads)]
    got, opt = _run_glassgrad(lambda ps: gg.optim.Rprop(ps, **kwargs), init, grads)
    for a, b in zip(got, rprop_numpy(init, grads, **kwargs)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    for dtype, tol in (("float64", 1e-13), ("float32", 1e-6)):
        mine, _ = _run_glassgrad(lambda ps: gg.optim.Rprop(ps, **kwargs), init, grads, dtype=dtype)
        ref, topt = _run_torch("Rprop", kwargs, init, grads, dtype)
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    st = opt.state_dict()["state"][0]
    assert list(st) == list(topt.state_dict()["state"][0]) == ["step", "prev", "step_size"]
    assert int(st["step"]) == 8


@pytest.mark.parametrize("kwargs", ASGD)
def test_asgd_matches_numpy_and_torch(kwargs):
    init, grads = _data(10, seed=4)
    got, opt = _run_glassgrad(lambda ps: gg.optim.ASGD(ps, **kwargs), init, grads)
    want, ax = asgd_numpy(init, grads, **kwargs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    for i, p in enumerate(opt.params):
        np.testing.assert_allclose(opt.state[p]["ax"].numpy(), ax[i], rtol=1e-13, atol=1e-15)
    for dtype, tol in (("float64", 1e-13), ("float32", 1e-5)):
        mine, gopt = _run_glassgrad(lambda ps: gg.optim.ASGD(ps, **kwargs), init, grads, dtype=dtype)
        ref, topt = _run_torch("ASGD", kwargs, init, grads, dtype)
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        theirs = topt.state_dict()["state"][1]
        ours = gopt.state_dict()["state"][1]
        assert list(ours) == list(theirs) == ["step", "eta", "mu", "ax"]
        for key in ("eta", "mu"):  # float32 scalars, as PyTorch's
            assert ours[key].dtype == gg.float32
            assert float(ours[key]) == float(theirs[key])
        np.testing.assert_allclose(ours["ax"], theirs["ax"].numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("cls,kwargs", [("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.2, 0.5))),
                                        ("Rprop", dict(etas=(0.0, 1.2))), ("Rprop", dict(etas=(0.5, 1.0))),
                                        ("ASGD", dict(lr=-0.1)), ("ASGD", dict(weight_decay=-1.0))])
def test_bad_hyperparameters_raise_value_errors_as_torch(cls, kwargs):
    with pytest.raises(ValueError):
        getattr(torch.optim, cls)([torch.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=cls):
        getattr(gg.optim, cls)([gg.zeros(2, requires_grad=True)], **kwargs)


@pytest.mark.parametrize("cls", ["Rprop", "ASGD"])
def test_state_dicts_load_both_ways(cls):
    init, grads = _data(6, seed=5)
    _, gopt = _run_glassgrad(lambda ps: getattr(gg.optim, cls)(ps, lr=0.05), init, grads[:3])
    _, topt = _run_torch(cls, dict(lr=0.05), init, grads[:3], "float64")
    assert set(gopt.param_groups[0]) == set(topt.param_groups[0])
    # torch's state into glassgrad and into a new torch optimizer, then both continue from the same
    # parameters (loading casts ASGD's 0-d eta and mu to the parameters' float64, PyTorch's rule)
    mine = [gg.Parameter(p.detach().numpy().copy()) for p in topt.param_groups[0]["params"]]
    opt = getattr(gg.optim, cls)(mine, lr=0.05)
    opt.load_state_dict(topt.state_dict())
    saved = topt.state_dict()
    topt = getattr(torch.optim, cls)(topt.param_groups[0]["params"], lr=0.05)
    topt.load_state_dict(saved)
    if cls == "ASGD":
        assert opt.state[mine[0]]["eta"].dtype == gg.float64 and topt.state_dict()["state"][0]["eta"].dtype == torch.float64
    for gs in grads[3:]:
        for p, g in zip(mine, gs):
            (p * gg.tensor(g)).sum().backward()
        opt.step()
        opt.zero_grad()
        for p, g in zip(topt.param_groups[0]["params"], gs):
            p.grad = torch.tensor(g)
        topt.step()
    for a, b in zip(mine, topt.param_groups[0]["params"]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-13, atol=1e-15)
