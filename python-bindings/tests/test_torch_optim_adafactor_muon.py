"""Adafactor and Muon as PyTorch documents them: against a NumPy restatement of torch.optim's
algorithm (float64), against torch.optim itself step for step (float64 and float32; Muon's
orthogonalization in bfloat16 as PyTorch's), PyTorch's state entries, state_dicts loading both
ways and PyTorch's hyperparameter errors. Skipped without torch."""
import functools

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.optim.muon as gg_muon
from test_port_optim import _run_glassgrad
from test_torch_optim_rprop_asgd import _run_torch

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (2, 3, 4), ()]
MATRICES = [(3, 4), (6, 2), (5, 5)]


def _data(shapes, steps, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes], [[rng.standard_normal(s) for s in shapes] for _ in range(steps)]


def adafactor_numpy(init, grads, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0,
                    maximize=False):
    eps1 = np.finfo(np.float64).eps if eps[0] is None else eps[0]
    ps = [a.copy() for a in init]
    row = [np.zeros(a.shape[:-1] + (1,)) if a.ndim > 1 else None for a in init]
    col = [np.zeros(a.shape[:-2] + (1, a.shape[-1])) if a.ndim > 1 else None for a in init]
    var = [np.zeros_like(a) for a in init]
    for step, gs in enumerate(grads, 1):
        for i, g in enumerate(gs):
            g = -g if maximize else g
            beta2 = step ** beta2_decay
            alpha = max(eps[1], np.sqrt(np.mean(ps[i] ** 2))) * min(lr, 1 / np.sqrt(step))
            ps[i] = ps[i] * (1 - lr * weight_decay)
            if g.ndim > 1:
                row[i] += beta2 * ((g * g).mean(-1, keepdims=True) - row[i])
                col[i] += beta2 * ((g * g).mean(-2, keepdims=True) - col[i])
                v = row[i] * col[i] / np.maximum(row[i].mean(-2, keepdims=True), eps1)
            else:
                var[i] += beta2 * (g * g - var[i])
                v = var[i]
            u = g / np.sqrt(np.maximum(v, eps1 * eps1))
            ps[i] = ps[i] - alpha / max(1.0, np.sqrt(np.mean(u * u)) / d) * u
    return ps


ADAFACTOR = [{}, dict(lr=0.1, weight_decay=0.1, d=2.0, eps=(1e-30, 1e-2)), dict(maximize=True, beta2_decay=-0.5),
             dict(lr=2.0), dict(lr=1e-3, eps=(1e-3, 0.0))]


@pytest.mark.parametrize("kwargs", ADAFACTOR)
def test_adafactor_matches_numpy_and_torch(kwargs):
    init, grads = _data(SHAPES, 6, seed=1)
    got, opt = _run_glassgrad(lambda ps: gg.optim.Adafactor(ps, **kwargs), init, grads)
    for a, b in zip(got, adafactor_numpy(init, grads, **kwargs)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for dtype, tol in (("float64", 1e-13), ("float32", 2e-6)):
        mine, gopt = _run_glassgrad(lambda ps: gg.optim.Adafactor(ps, **kwargs), init, grads, dtype=dtype)
        ref, topt = _run_torch("Adafactor", kwargs, init, grads, dtype)
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        ours, theirs = gopt.state_dict()["state"], topt.state_dict()["state"]
        assert list(ours[0]) == list(theirs[0]) == ["step", "row_var", "col_var"]
        assert list(ours[1]) == list(theirs[1]) == ["step", "variance"]
        for i in ours:
            assert float(ours[i]["step"]) == float(theirs[i]["step"]) == 6
            for key in set(ours[i]) - {"step"}:
                assert ours[i][key].shape == tuple(theirs[i][key].shape)
                np.testing.assert_allclose(ours[i][key], theirs[i][key].numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("lr,weight_decay", [(0.05, 0.0), (0.5, 0.1), (0.002, 0.01)])
def test_adafactor_with_a_float32_tensor_lr_rounds_as_torch(lr, weight_decay):
    """PyTorch's min(lr, 1/sqrt(step)) is then the float32 tensor, and the step size and the
    decay computed from it are float32 (1e-8 away from the float64 ones)."""
    init, grads = _data(SHAPES, 8, seed=6)
    mine, _ = _run_glassgrad(lambda ps: gg.optim.Adafactor(ps, lr=gg.tensor(lr), weight_decay=weight_decay),
                             init, grads)
    params = [torch.tensor(a, requires_grad=True) for a in init]
    opt = torch.optim.Adafactor(params, lr=torch.tensor(lr), weight_decay=weight_decay)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = torch.tensor(g)
        opt.step()
    for a, b in zip(mine, params):
        np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-13, atol=1e-15)


def _muon_in_float64(monkeypatch):
    """Both libraries' Newton-Schulz iteration run in float64 instead of bfloat16 (PyTorch's
    restated with .double()), so the rest of the rule is compared to the last bit."""
    import torch.optim._muon as torch_muon

    def torch_float64(grad, coefficients, steps, eps):
        a, b, c = coefficients
        x = grad.double().T if grad.size(0) > grad.size(1) else grad.double()
        x = x / x.norm().clamp(min=eps)
        for _ in range(steps):
            gram = x @ x.T
            x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
        return x.T if grad.size(0) > grad.size(1) else x
    monkeypatch.setattr(torch_muon, "_zeropower_via_newtonschulz", torch_float64)
    monkeypatch.setattr(gg_muon, "zeropower_via_newtonschulz",
                        functools.partial(gg_muon.zeropower_via_newtonschulz, dtype="float64"))


def newtonschulz_numpy(g, coefficients=(3.4445, -4.7750, 2.0315), steps=5, eps=1e-7):
    a, b, c = coefficients
    x = g.T if g.shape[0] > g.shape[1] else g
    x = x / max(np.linalg.norm(x), eps)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if g.shape[0] > g.shape[1] else x


def muon_numpy(init, grads, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True, adjust_lr_fn=None, **ns):
    ps = [a.copy() for a in init]
    bufs = [np.zeros_like(a) for a in init]
    for gs in grads:
        for i, g in enumerate(gs):
            bufs[i] = bufs[i] + (1 - momentum) * (g - bufs[i])
            u = newtonschulz_numpy(g + momentum * (bufs[i] - g) if nesterov else bufs[i], **ns)
            rows, cols = ps[i].shape
            ratio = 0.2 * np.sqrt(max(rows, cols)) if adjust_lr_fn == "match_rms_adamw" else np.sqrt(max(1, rows / cols))
            ps[i] = ps[i] * (1 - lr * weight_decay) - lr * ratio * u
    return ps


MUON = [{}, dict(lr=0.1, weight_decay=0.0, nesterov=False), dict(lr=0.02, momentum=0.3, adjust_lr_fn="match_rms_adamw"),
        dict(lr=0.05, ns_steps=2, eps=1e-3), dict(lr=0.01, ns_coefficients=(2.0, -1.5, 0.5), adjust_lr_fn="original")]


@pytest.mark.parametrize("kwargs", MUON)
def test_muon_matches_torch_in_bfloat16(kwargs):
    init, grads = _data(MATRICES, 4, seed=2)
    lr = kwargs.get("lr", 1e-3)
    for dtype in ("float64", "float32"):
        mine, gopt = _run_glassgrad(lambda ps: gg.optim.Muon(ps, **kwargs), init, grads, dtype=dtype)
        ref, topt = _run_torch("Muon", kwargs, init, grads, dtype)
        for a, b in zip(mine, ref):  # at most a bfloat16 ulp of an update entry (< 1) where float32 sums differ
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=lr * 2.0 ** -8 * len(grads))
        ours, theirs = gopt.state_dict()["state"], topt.state_dict()["state"]
        assert list(ours[0]) == list(theirs[0]) == ["momentum_buffer"]
        np.testing.assert_allclose(ours[2]["momentum_buffer"], theirs[2]["momentum_buffer"].numpy(), rtol=1e-6)
        assert set(gopt.param_groups[0]) == set(topt.param_groups[0])


@pytest.mark.parametrize("kwargs", MUON)
def test_muon_matches_numpy_and_torch_with_the_iteration_in_float64(kwargs, monkeypatch):
    init, grads = _data(MATRICES, 4, seed=3)
    names = {"ns_coefficients": "coefficients", "eps": "eps", "ns_steps": "steps"}
    ns = {names[k]: v for k, v in kwargs.items() if k in names}
    rule = {k: v for k, v in kwargs.items() if k not in ("ns_coefficients", "eps", "ns_steps")}
    _muon_in_float64(monkeypatch)
    got, _ = _run_glassgrad(lambda ps: gg.optim.Muon(ps, **kwargs), init, grads)
    for a, b in zip(got, muon_numpy(init, grads, **rule, **ns)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    ref, _ = _run_torch("Muon", kwargs, init, grads, "float64")
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4)])
def test_newton_schulz_orthogonalizes_as_the_numpy_iteration(shape):
    g = np.random.default_rng(4).standard_normal(shape)
    got = gg_muon.zeropower_via_newtonschulz(gg.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7, dtype="float64")
    np.testing.assert_allclose(got.numpy(), newtonschulz_numpy(g), rtol=1e-12, atol=1e-14)
    singular = np.linalg.svd(got.numpy(), compute_uv=False)
    assert singular.min() > 0.5 and singular.max() < 1.5  # PyTorch's documented S' in (0.5, 1.5)


@pytest.mark.parametrize("cls,kwargs", [
    ("Adafactor", dict(lr=-1.0)), ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1.0))), ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-0.1)),
    ("Muon", dict(lr=-1.0)), ("Muon", dict(momentum=-0.1)), ("Muon", dict(weight_decay=-1.0)),
    ("Muon", dict(adjust_lr_fn="spectral"))])
def test_bad_hyperparameters_raise_value_errors_as_torch(cls, kwargs):
    with pytest.raises(ValueError):
        getattr(torch.optim, cls)([torch.zeros(2, 2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=cls if cls == "Adafactor" else "Muon|Adjust"):
        getattr(gg.optim, cls)([gg.zeros(2, 2, requires_grad=True)], **kwargs)


def test_muon_refuses_parameters_that_are_not_matrices_with_torch_s_message():
    for shape in [(3,), (2, 3, 4), ()]:
        with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
            torch.optim.Muon([torch.zeros(shape, requires_grad=True)])
        with pytest.raises(ValueError, match=r"Muon only supports 2D parameters(.|\n)*fix: give Muon the 2-d"):
            gg.optim.Muon([gg.zeros(shape, requires_grad=True)])


@pytest.mark.parametrize("cls,shapes", [("Adafactor", SHAPES), ("Muon", MATRICES)])
def test_state_dicts_load_both_ways(cls, shapes):
    init, grads = _data(shapes, 6, seed=5)
    _, gopt = _run_glassgrad(lambda ps: getattr(gg.optim, cls)(ps, lr=0.05), init, grads[:3])
    _, topt = _run_torch(cls, dict(lr=0.05), init, grads[:3], "float64")
    # torch's state into glassgrad and glassgrad's into torch, then all continue from there
    mine = [gg.Parameter(p.detach().numpy().copy()) for p in topt.param_groups[0]["params"]]
    opt = getattr(gg.optim, cls)(mine, lr=0.05)
    opt.load_state_dict(topt.state_dict())
    back = [torch.tensor(p.detach().numpy().copy(), requires_grad=True) for p in gopt.params]
    topt2 = getattr(torch.optim, cls)(back, lr=0.05)
    saved = gopt.state_dict()
    topt2.load_state_dict({"state": {i: {k: torch.tensor(np.asarray(v)) for k, v in st.items()}
                                     for i, st in saved["state"].items()},
                           "param_groups": [{k: v for k, v in g.items()} for g in saved["param_groups"]]})
    for gs in grads[3:]:
        for p, g in zip(mine, gs):
            (p * gg.tensor(g)).sum().backward()
        opt.step()
        opt.zero_grad()
        for ps in (topt.param_groups[0]["params"], back):
            for p, g in zip(ps, gs):
                p.grad = torch.tensor(g)
        topt.step()
        topt2.step()
    tol = 1e-13 if cls == "Adafactor" else 1e-6  # Muon: the bfloat16 iteration
    for a, b, c in zip(mine, topt.param_groups[0]["params"], back):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(c.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def test_a_compiled_step_with_muon_and_adafactor_equals_the_eager_steps():
    """Muon for the weights and Adafactor for the biases, the usual split, inside gg.compile:
    the replayed steps compute what the eager ones do (the step counter and norms are data)."""
    def run(compiled):
        gg.manual_seed(0)
        net = gg.nn.Sequential(gg.nn.Linear(4, 8), gg.nn.Tanh(), gg.nn.Linear(8, 1))
        muon = gg.optim.Muon([p for p in net.parameters() if p.ndim == 2], lr=0.02)
        adafactor = gg.optim.Adafactor([p for p in net.parameters() if p.ndim != 2])

        def step(x, y):
            muon.zero_grad()
            adafactor.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            muon.step()
            adafactor.step()
            return loss
        f = gg.compile(step) if compiled else step
        rng = np.random.default_rng(1)
        losses = [f(gg.tensor(rng.standard_normal((16, 4)).astype(np.float32)),
                    gg.tensor(rng.standard_normal((16, 1)).astype(np.float32))).item() for _ in range(6)]
        return losses, [p.detach().numpy().copy() for p in net.parameters()]
    (eager, p_eager), (compiled, p_compiled) = run(False), run(True)
    assert eager == compiled
    for a, b in zip(p_eager, p_compiled):
        np.testing.assert_array_equal(a, b)
