"""glassgrad.optim against torch.optim on what a state_dict and a step show beyond the values:
each optimizer's param_group keys in PyTorch's order (state_dict()'s layout), capturable=True
refused at the step for CPU parameters (an AssertionError, as PyTorch's), and LBFGS's
maximize, its state keys' order, its one-group check at the step, and a PyTorch state_dict
(its al list holding None) loaded and stepped on. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "Rprop", "ASGD",
              "LBFGS", "Adafactor", "SparseAdam"]
CAPTURABLE = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adadelta", "RMSprop", "Rprop", "ASGD"]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_param_group_keys_are_in_torchs_order(name):
    keys = []
    for lib in (torch, gg):
        opt = getattr(lib.optim, name)([lib.zeros(2, 3, requires_grad=True)])
        keys.append((list(opt.param_groups[0]), list(opt.state_dict()["param_groups"][0])))
    assert keys[1] == keys[0]


@pytest.mark.parametrize("name", CAPTURABLE)
def test_capturable_is_refused_at_the_step_for_cpu_parameters_as_torch(name):
    for lib in (torch, gg):
        p = lib.zeros(3, requires_grad=True)
        opt = getattr(lib.optim, name)([p], capturable=True)
        opt.step()   # no parameter has a gradient: nothing is checked, as PyTorch
        p.grad = lib.ones(3)
        with pytest.raises(AssertionError, match="If capturable=True, params.* must be on supported devices"):
            opt.step()


rng = np.random.default_rng(0)
A, B, W0 = rng.standard_normal((6, 5)), rng.standard_normal(6), rng.standard_normal(5)


def _lbfgs(lib, kwargs, sign, steps=3, state=None, w0=W0):
    """Steps of LBFGS on sign * (|A w - b|^2 + 0.1 sum w^4); returns w after each and the state_dict."""
    w = lib.tensor(w0.copy(), requires_grad=True)
    opt = lib.optim.LBFGS([w], **kwargs)
    if state is not None:
        opt.load_state_dict(state)

    def closure():
        opt.zero_grad()
        r = lib.tensor(A) @ w - lib.tensor(B)
        loss = sign * ((r * r).sum() + 0.1 * (w ** 4).sum())
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        opt.step(closure)
        out.append(np.array(w.detach().numpy(), copy=True))
    return out, opt.state_dict()


@pytest.mark.parametrize("kwargs,sign", [({"lr": 0.5}, 1), ({"lr": 0.5, "maximize": True}, -1),
                                         ({"line_search_fn": "strong_wolfe", "maximize": True}, -1),
                                         ({"max_iter": 1, "history_size": 3}, 1), ({"max_iter": 4, "history_size": 2}, 1)])
def test_lbfgs_steps_maximize_and_state_keys_match_torch(kwargs, sign):
    (want, tsd), (got, gsd) = _lbfgs(torch, kwargs, sign), _lbfgs(gg, kwargs, sign)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert list(gsd["state"][0]) == list(tsd["state"][0])
    assert list(gsd["param_groups"][0]) == list(tsd["param_groups"][0])
    assert gsd["param_groups"][0]["maximize"] == (sign < 0)


def test_lbfgs_continues_from_torchs_state_dict():
    kwargs = {"lr": 0.5, "history_size": 10, "max_iter": 3}
    (start, tsd) = _lbfgs(torch, kwargs, 1, steps=2)
    assert any(v is None for v in tsd["state"][0]["al"])   # entries the recursion never wrote
    gsd = {"state": {0: {k: (gg.tensor(v.numpy()) if isinstance(v, torch.Tensor) else
                             [gg.tensor(e.numpy()) if isinstance(e, torch.Tensor) else e for e in v] if isinstance(v, list)
                             else v) for k, v in tsd["state"][0].items()}},
           "param_groups": [dict(tsd["param_groups"][0])]}
    got, _ = _lbfgs(gg, kwargs, 1, steps=2, state=gsd, w0=start[-1])
    want, _ = _lbfgs(torch, kwargs, 1, steps=2, state=tsd, w0=start[-1])   # last: PyTorch's steps write into tsd
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_lbfgs_refuses_a_second_group_at_the_step_as_torch():
    for lib in (torch, gg):
        w, v = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        opt = lib.optim.LBFGS([w])
        opt.add_param_group({"params": [v]})
        with pytest.raises(AssertionError, match="Expected exactly one param_group, but got 2"):
            opt.step(lambda: (w * w).sum() + (v * v).sum())
