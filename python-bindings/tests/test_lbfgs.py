"""optim.LBFGS: it minimizes (Rosenbrock's function, a least-squares fit), keeps PyTorch's state
entries, refuses what PyTorch refuses, and takes PyTorch's steps (the same losses, function
evaluations and parameters as torch.optim.LBFGS, float64, with and without the strong Wolfe line
search; skipped without torch)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def _rosenbrock_closure(opt, xy):
    def closure():
        opt.zero_grad()
        x, y = xy[0], xy[1]
        loss = (1 - x) ** 2 + 100 * (y - x * x) ** 2
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_finds_rosenbrocks_minimum(line_search_fn):
    xy = gg.tensor(np.array([-1.5, 2.0]), requires_grad=True)
    lr = 1.0 if line_search_fn else 0.1
    opt = gg.optim.LBFGS([xy], lr=lr, max_iter=200, line_search_fn=line_search_fn)
    for _ in range(10 if line_search_fn else 40):
        opt.step(_rosenbrock_closure(opt, xy))
    np.testing.assert_allclose(xy.detach().numpy(), [1.0, 1.0], atol=1e-4)


def test_lbfgs_state_and_defaults_are_pytorchs():
    layer = nn.Linear(3, 2)
    opt = gg.optim.LBFGS(layer.parameters())
    g = opt.param_groups[0]
    assert (g["lr"], g["max_iter"], g["max_eval"], g["tolerance_grad"], g["tolerance_change"], g["history_size"],
            g["line_search_fn"]) == (1, 20, 25, 1e-7, 1e-9, 100, None)
    x, y = gg.randn(8, 3), gg.randn(8, 2)

    def closure():
        opt.zero_grad()
        loss = nn.functional.mse_loss(layer(x), y)
        loss.backward()
        return loss
    first = closure().item()
    returned = opt.step(closure)
    assert returned.item() == pytest.approx(first)  # the loss before the step, as PyTorch's
    assert nn.functional.mse_loss(layer(x), y).item() < first
    state = opt.state[layer.weight]
    assert {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
            "prev_loss", "al"} <= set(state)
    assert len(state["d"]) == 3 * 2 + 2


def test_lbfgs_refuses_groups_unknown_line_searches_and_a_missing_closure():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    with pytest.raises(ValueError, match="per-parameter options"):
        gg.optim.LBFGS([{"params": a.parameters()}, {"params": b.parameters()}])
    with pytest.raises(ValueError, match="strong_wolfe"):
        gg.optim.LBFGS(a.parameters(), line_search_fn="backtracking")
    with pytest.raises(TypeError, match="requires a closure"):
        gg.optim.LBFGS(a.parameters()).step()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_takes_torchs_steps(line_search_fn):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    Y = np.sin(X.sum(1, keepdims=True))
    gm = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    tm = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in gm.state_dict().items()})
    kw = dict(lr=0.8, history_size=3, max_iter=6, line_search_fn=line_search_fn)
    go, to = gg.optim.LBFGS(gm.parameters(), **kw), torch.optim.LBFGS(tm.parameters(), **kw)
    x, y, xt, yt = gg.tensor(X), gg.tensor(Y), torch.tensor(X), torch.tensor(Y)

    def gc():
        go.zero_grad()
        loss = nn.functional.mse_loss(gm(x), y)
        loss.backward()
        return loss

    def tc():
        to.zero_grad()
        loss = torch.nn.functional.mse_loss(tm(xt), yt)
        loss.backward()
        return loss
    for _ in range(4):
        assert go.step(gc).item() == pytest.approx(to.step(tc).item(), rel=1e-9)
        ours, theirs = go.state[gm[0].weight], to.state[tm[0].weight]
        assert (ours["func_evals"], ours["n_iter"]) == (theirs["func_evals"], theirs["n_iter"])
    for k, v in gm.state_dict().items():
        np.testing.assert_allclose(v, tm.state_dict()[k].numpy(), rtol=1e-8, atol=1e-10, err_msg=k)


def test_lbfgs_state_dict_round_trip_continues_the_same_iteration(tmp_path):
    layer = nn.Linear(3, 2)
    x = gg.randn(6, 3)

    def closure_for(opt):
        def closure():
            opt.zero_grad()
            loss = (layer(x) ** 2).mean()
            loss.backward()
            return loss
        return closure
    opt = gg.optim.LBFGS(layer.parameters(), max_iter=3, history_size=4)
    opt.step(closure_for(opt))
    entry = opt.state_dict()["state"][0]
    assert type(entry["d"]) is gg.Tensor and all(type(v) is gg.Tensor for v in entry["old_dirs"])  # as PyTorch's
    gg.save(opt.state_dict(), str(tmp_path / "opt.pt"))
    weights = {k: v.clone() for k, v in layer.state_dict().items()}
    opt.step(closure_for(opt))
    want = layer.weight.detach().numpy().copy()
    layer.load_state_dict(weights)
    again = gg.optim.LBFGS(layer.parameters())
    again.load_state_dict(gg.load(str(tmp_path / "opt.pt")))
    assert (again.param_groups[0]["max_iter"], again.param_groups[0]["history_size"]) == (3, 4)
    again.step(closure_for(again))
    np.testing.assert_array_equal(layer.weight.detach().numpy(), want)
    with pytest.raises(ValueError, match="elements"):
        gg.optim.LBFGS(nn.Linear(4, 2).parameters()).load_state_dict(gg.load(str(tmp_path / "opt.pt")))


def test_lbfgs_state_dict_scalars_are_0d_tensors_as_pytorchs():
    # PyTorch's ro, al and H_diag are dot products: 0-d tensors of the parameters' dtype; H_diag is
    # the int 1 until a pair (s, y) is accepted.
    xy = gg.tensor(np.array([-1.5, 2.0]), requires_grad=True)
    opt = gg.optim.LBFGS([xy], max_iter=1)
    opt.step(_rosenbrock_closure(opt, xy))
    first = opt.state_dict()["state"][0]
    assert first["H_diag"] == 1 and type(first["H_diag"]) is int
    opt.step(_rosenbrock_closure(opt, xy))
    opt.step(_rosenbrock_closure(opt, xy))
    entry = opt.state_dict()["state"][0]
    for value in [entry["H_diag"], *entry["ro"], *[a for a in entry["al"] if a is not None]]:
        assert type(value) is gg.Tensor and value.shape == () and value.dtype == gg.float64
    again = gg.optim.LBFGS([xy], max_iter=1)
    again.load_state_dict(opt.state_dict())   # the 0-d tensors read back
    again.step(_rosenbrock_closure(again, xy))


def test_lbfgs_state_dict_scalars_match_torchs():
    torch = pytest.importorskip("torch")
    start = np.array([-1.5, 2.0])
    saved = []
    for lib in (torch, gg):
        xy = lib.tensor(start.copy(), requires_grad=True)
        opt = lib.optim.LBFGS([xy], max_iter=4)
        for _ in range(3):
            opt.step(_rosenbrock_closure(opt, xy))
        saved.append(opt.state_dict()["state"][0])
    want, got = saved
    assert [k for k in got] == [k for k in want]
    for key in ("ro", "al"):
        assert len(got[key]) == len(want[key])
        for w, v in zip(want[key], got[key]):
            assert (w is None) == (v is None)
            if w is not None:
                assert v.shape == () and str(v.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
                np.testing.assert_allclose(float(v), float(w), rtol=1e-6)
    np.testing.assert_allclose(float(got["H_diag"]), float(want["H_diag"]), rtol=1e-6)
    assert type(got["H_diag"]).__name__ == "Tensor" and type(want["H_diag"]).__name__ == "Tensor"


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_step_reads_the_loss_without_the_float_of_grad_warning(line_search_fn):
    # PyTorch's step reads float(loss) under no_grad, which gives no 'requires_grad=True to a
    # scalar' warning; the closure may also return a plain number
    import warnings
    xy = gg.tensor(np.array([-1.5, 2.0]), requires_grad=True)
    opt = gg.optim.LBFGS([xy], max_iter=3, line_search_fn=line_search_fn)
    gg.set_warn_always(True)   # the warning is once per process otherwise
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            loss = opt.step(_rosenbrock_closure(opt, xy))
    finally:
        gg.set_warn_always(False)
    assert float(loss.detach()) == pytest.approx(2.5 ** 2 + 100 * (2.0 - 2.25) ** 2)   # at the start

    def number_closure():
        opt.zero_grad()
        value = (xy ** 2).sum()
        value.backward()
        return value.item()
    assert isinstance(opt.step(number_closure), float)
