"""SparseAdam against torch.optim.SparseAdam on an nn.Embedding(sparse=True) (PyTorch's gradient is
sparse, glassgrad's dense: the rows looked up are the gradient's entries), against a NumPy
restatement of the rule, PyTorch's state and group keys, and its argument errors."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

LOOKUPS = [[1, 2, 1], [0, 5], [2, 3, 3, 4], [1]] * 2


def sparse_adam_numpy(w, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
    b1, b2 = betas
    w, m, v = w.copy(), np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        rows = np.abs(g).sum(axis=1) != 0
        m[rows] += (1 - b1) * (g[rows] - m[rows])
        v[rows] += (1 - b2) * (g[rows] ** 2 - v[rows])
        w[rows] -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m[rows] / (np.sqrt(v[rows]) + eps)
    return w


def _train(lib, w, dtype, kwargs):
    emb = lib.nn.Embedding(6, 3, sparse=True)
    emb = emb.double() if dtype == "float64" else emb
    with lib.no_grad():
        emb.weight.copy_(lib.tensor(w.astype(dtype)))
    opt = lib.optim.SparseAdam(list(emb.parameters()), **kwargs)
    grads = []
    for k, rows in enumerate(LOOKUPS):
        opt.zero_grad()
        (emb(lib.tensor(rows)).sin() * (k + 1)).sum().backward()
        g = emb.weight.grad
        grads.append(g.to_dense().numpy() if lib is torch else g.numpy())
        opt.step()
    return emb.weight.detach().numpy(), opt, grads


@pytest.mark.parametrize("kwargs", [{}, dict(lr=0.05, betas=(0.5, 0.8), eps=1e-3), dict(lr=0.01, maximize=True)])
def test_sparse_adam_matches_torch_and_numpy(kwargs):
    w = np.random.default_rng(0).standard_normal((6, 3))
    for dtype, tol in (("float64", 1e-13), ("float32", 1e-6)):
        theirs, topt, _ = _train(torch, w, dtype, kwargs)
        ours, gopt, _ = _train(gg, w, dtype, kwargs)
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
        t_sd, g_sd = topt.state_dict(), gopt.state_dict()
        assert list(g_sd["state"][0]) == list(t_sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
        assert int(g_sd["state"][0]["step"]) == len(LOOKUPS)
        for key in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(g_sd["state"][0][key], t_sd["state"][0][key].numpy(), rtol=tol, atol=tol)
        assert set(g_sd["param_groups"][0]) == set(t_sd["param_groups"][0])
    _, _, grads = _train(gg, w, "float64", kwargs)
    ours, _, _ = _train(gg, w, "float64", kwargs)
    np.testing.assert_allclose(ours, sparse_adam_numpy(w, grads, **kwargs), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("kwargs", [dict(lr=0.0), dict(lr=-1.0), dict(eps=0.0), dict(betas=(1.0, 0.9)),
                                    dict(betas=(0.9, -0.1))])
def test_bad_arguments_raise_value_errors_as_torch(kwargs):
    with pytest.raises(ValueError):
        torch.optim.SparseAdam([torch.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match="SparseAdam"):
        gg.optim.SparseAdam([gg.zeros(2, requires_grad=True)], **kwargs)


def test_step_is_a_python_int_as_torch_and_loads_both_ways():
    w = np.random.default_rng(1).standard_normal((6, 3))
    _, topt, _ = _train(torch, w, "float64", {})
    _, gopt, _ = _train(gg, w, "float64", {})
    t_step, g_step = topt.state_dict()["state"][0]["step"], gopt.state_dict()["state"][0]["step"]
    assert type(g_step) is type(t_step) is int and g_step == t_step == len(LOOKUPS)
    # torch's state loaded here keeps its int, steps on from it and steps as torch's does.
    emb = gg.nn.Embedding(6, 3, sparse=True).double()
    with gg.no_grad():
        emb.weight.copy_(gg.tensor(topt.param_groups[0]["params"][0].detach().numpy()))
    mine = gg.optim.SparseAdam(list(emb.parameters()))
    mine.load_state_dict(topt.state_dict())
    assert type(mine.state[emb.weight]["step"]) is int
    (emb(gg.tensor([1, 4])).sin()).sum().backward()
    mine.step()
    t_w = topt.param_groups[0]["params"][0]
    topt.zero_grad()
    (torch.nn.functional.embedding(torch.tensor([1, 4]), t_w, sparse=True).sin()).sum().backward()
    topt.step()
    assert mine.state[emb.weight]["step"] == topt.state[t_w]["step"] == len(LOOKUPS) + 1
    np.testing.assert_allclose(emb.weight.detach().numpy(), t_w.detach().numpy(), rtol=1e-13, atol=1e-15)
    # and ours loads into torch's
    t_fresh = torch.optim.SparseAdam([torch.nn.Parameter(torch.zeros(6, 3, dtype=torch.float64))])
    t_fresh.load_state_dict({"state": {0: {k: (v if k == "step" else torch.from_numpy(v.numpy()))
                                           for k, v in gopt.state_dict()["state"][0].items()}},
                             "param_groups": gopt.state_dict()["param_groups"]})
    assert t_fresh.state_dict()["state"][0]["step"] == len(LOOKUPS)
