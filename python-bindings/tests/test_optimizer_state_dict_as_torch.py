"""An optimizer's state_dict as torch 2.14's, and through files both ways: the same keys ("state"
and "param_groups", nothing else), the same entries with the same dtypes and shapes (Adam's
`step` a float32 0-d tensor), a file written by glassgrad.save resumed by torch.optim after
torch.load(weights_only=True), a file written by torch.save resumed by glassgrad, and the
state dicts earlier glassgrad versions wrote (the class under "optimizer", an int64 step)
still loading."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

from test_torch_optim_differential import CLASSES, _draw  # noqa: E402  (after the skip)

STEPS_BEFORE, STEPS_AFTER = 3, 3


def _params(lib, arrays):
    return [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]


def _optimizer(lib, cls, ps, kwargs):
    return getattr(lib.optim, cls)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": kwargs["lr"] / 2}], **kwargs)


def _steps(lib, opt, ps, steps, start=0):
    """loss = sum((p - t)^2 (1 + 0.1 s) + 0.01 p^3 + sin p) over two parameters, `steps` steps."""
    rng = np.random.default_rng(1)
    targets = [lib.tensor(rng.standard_normal(p.shape), dtype=lib.float64) for p in ps]
    for s in range(start, start + steps):
        opt.zero_grad()
        loss = sum((((p - t) ** 2) * (1 + 0.1 * s) + p ** 3 * 0.01 + p.sin()).sum() for p, t in zip(ps, targets))
        loss.backward()
        opt.step()
    return [p.detach().numpy().copy() for p in ps]


def _init():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((3, 4)), rng.standard_normal(5)]


def _trained(lib, cls, kwargs):
    ps = _params(lib, _init())
    opt = _optimizer(lib, cls, ps, kwargs)
    values = _steps(lib, opt, ps, STEPS_BEFORE)
    return values, opt


def _resumed(lib, cls, kwargs, values, state):
    """A fresh optimizer over parameters at `values`, loaded with `state`, run STEPS_AFTER steps."""
    ps = _params(lib, values)
    opt = _optimizer(lib, cls, ps, dict(kwargs, lr=0.5))  # the hyperparameters come from the state
    opt.load_state_dict(state)
    return _steps(lib, opt, ps, STEPS_AFTER, start=STEPS_BEFORE)


@pytest.mark.parametrize("cls", CLASSES)
def test_state_dict_has_torchs_keys_entries_and_dtypes(cls):
    kwargs = _draw(cls, np.random.default_rng(11))
    _, topt = _trained(torch, cls, kwargs)
    _, gopt = _trained(gg, cls, kwargs)
    theirs, ours = topt.state_dict(), gopt.state_dict()
    assert list(ours) == list(theirs) == ["state", "param_groups"]
    assert sorted(ours["state"]) == sorted(theirs["state"])
    for k, entry in theirs["state"].items():
        assert list(ours["state"][k]) == list(entry)
        for name, value in entry.items():
            mine = ours["state"][k][name]
            assert isinstance(mine, gg.Tensor), (cls, name)
            assert str(mine.dtype).split(".")[-1] == str(value.dtype).split(".")[-1], (cls, name, mine.dtype)
            assert tuple(mine.shape) == tuple(value.shape), (cls, name)
    if theirs["state"] and "step" in theirs["state"][0]:
        assert ours["state"][0]["step"].dtype == gg.float32 and float(ours["state"][0]["step"]) == STEPS_BEFORE


@pytest.mark.parametrize("cls", CLASSES)
def test_a_glassgrad_file_resumes_in_torch_and_a_torch_file_in_glassgrad(cls, tmp_path):
    kwargs = _draw(cls, np.random.default_rng(12))
    t_values, topt = _trained(torch, cls, kwargs)
    g_values, gopt = _trained(gg, cls, kwargs)
    np.testing.assert_allclose(g_values[0], t_values[0], rtol=1e-12, atol=1e-12)
    # The uninterrupted run, in torch: what both resumed runs must give.
    ps = _params(torch, _init())
    ref_opt = _optimizer(torch, cls, ps, kwargs)
    _steps(torch, ref_opt, ps, STEPS_BEFORE)
    want = _steps(torch, ref_opt, ps, STEPS_AFTER, start=STEPS_BEFORE)

    gg.save(gopt.state_dict(), tmp_path / "ours.pt")
    loaded = torch.load(tmp_path / "ours.pt", weights_only=True, map_location="cpu")
    assert list(loaded) == ["state", "param_groups"]
    if loaded["state"] and "step" in loaded["state"][0]:
        assert loaded["state"][0]["step"].dtype == torch.float32 and loaded["state"][0]["step"].dim() == 0
    in_torch = _resumed(torch, cls, kwargs, g_values, loaded)

    torch.save(topt.state_dict(), tmp_path / "theirs.pt")
    in_glassgrad = _resumed(gg, cls, kwargs, t_values, gg.load(tmp_path / "theirs.pt"))
    # (float64 parameters; the float32 scalars of the state, NAdam's mu_product, differ from
    # torch's in their last bits, which shows as 1e-8 after the resumed steps)
    for a, b, c in zip(in_torch, in_glassgrad, want):
        np.testing.assert_allclose(a, c, rtol=1e-7, atol=1e-10, err_msg=f"{cls}: glassgrad's file in torch")
        np.testing.assert_allclose(b, c, rtol=1e-7, atol=1e-10, err_msg=f"{cls}: torch's file in glassgrad")


@pytest.mark.parametrize("cls", ["SGD", "Adam", "RMSprop", "NAdam"])
def test_state_dicts_of_earlier_glassgrad_versions_still_load(cls, tmp_path):
    """Earlier versions wrote the class under "optimizer" and each step as an int64 tensor."""
    kwargs = _draw(cls, np.random.default_rng(13))
    values, gopt = _trained(gg, cls, kwargs)
    ps = _params(gg, values)
    sd = gopt.state_dict()
    old = {"optimizer": cls, "param_groups": sd["param_groups"],
           "state": {k: {n: (v.long() if n == "step" else v) for n, v in st.items()} for k, st in sd["state"].items()}}
    gg.save(old, tmp_path / "old.gg")
    # (compared with the state of today's layout loaded: loading casts NAdam's mu_product to the
    # parameters' dtype, PyTorch's rule, where the optimizer that made it keeps its float32)
    straight = _resumed(gg, cls, kwargs, values, sd)
    opt = _optimizer(gg, cls, ps, dict(kwargs, lr=0.5))
    opt.load_state_dict(gg.load(tmp_path / "old.gg"))
    resumed = _steps(gg, opt, ps, STEPS_AFTER, start=STEPS_BEFORE)
    for a, b in zip(resumed, straight):
        np.testing.assert_array_equal(a, b)
