"""Module.register_forward_pre_hook and register_forward_hook against torch: what each hook
sees and may replace (args as a value or a tuple, (args, kwargs) with with_kwargs, the output),
the order (prepend), remove(), always_call when forward raises, the pre-hook return error, and
hooks on the layers of a Sequential (feature extraction as tutorials do it). Skipped when torch
is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.arange(6, dtype=np.float32).reshape(2, 3) / 5


class Scale:
    """A module whose forward takes a keyword: forward(x, k=1.0) = x * k."""

    @staticmethod
    def build(nn):
        class M(nn.Module):
            def forward(self, x, k=1.0):
                return x * k
        return M()


def _run(fw, setup):
    m = Scale.build(fw.nn)
    log = []
    handles = setup(m, log)
    out = m(fw.tensor(X), k=2.0)
    for h in handles:
        h.remove()
    after = m(fw.tensor(X), k=2.0)
    return out.detach().numpy(), after.detach().numpy(), log


SETUPS = {
    "pre replaces args with a value": lambda m, log: [m.register_forward_pre_hook(lambda mod, a: a[0] + 1)],
    "pre replaces args with a tuple": lambda m, log: [m.register_forward_pre_hook(lambda mod, a: (a[0] * 3,))],
    "pre with kwargs": lambda m, log: [m.register_forward_pre_hook(
        lambda mod, a, kw: (a, {"k": kw["k"] * 5}), with_kwargs=True)],
    "post replaces output": lambda m, log: [m.register_forward_hook(lambda mod, a, out: out - 1)],
    "post with kwargs": lambda m, log: [m.register_forward_hook(
        lambda mod, a, kw, out: out * kw["k"], with_kwargs=True)],
    "post returning None": lambda m, log: [m.register_forward_hook(lambda mod, a, out: log.append(out.shape[0]))],
    "order and prepend": lambda m, log: [
        m.register_forward_hook(lambda mod, a, out: (log.append("first"), out + 1)[1]),
        m.register_forward_hook(lambda mod, a, out: (log.append("second"), out * 10)[1]),
        m.register_forward_hook(lambda mod, a, out: (log.append("front"), out - 2)[1], prepend=True)],
}


@pytest.mark.parametrize("name", list(SETUPS))
def test_hooks_match_torch(name):
    ours, theirs = _run(gg, SETUPS[name]), _run(torch, SETUPS[name])
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)  # removed: plain forward again
    assert ours[2] == theirs[2]


def test_always_call_runs_when_forward_raises_and_bad_pre_hook_returns_are_refused():
    for fw in (gg, torch):
        class Boom(fw.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        seen = []
        m = Boom()
        m.register_forward_hook(lambda mod, a, out: seen.append("always"), always_call=True)
        m.register_forward_hook(lambda mod, a, out: seen.append("not"))
        with pytest.raises(ValueError, match="boom"):
            m(fw.ones(1))
        assert seen == ["always"]
        lin = fw.nn.Linear(3, 2)
        lin.register_forward_pre_hook(lambda mod, a, kw: a, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
            lin(fw.ones(1, 3))


def test_features_from_the_layers_of_a_sequential():
    features = {}
    for fw in (gg, torch):
        fw.manual_seed(0)
        net = fw.nn.Sequential(fw.nn.Linear(3, 4), fw.nn.ReLU(), fw.nn.Linear(4, 2))
        net.load_state_dict({"0.weight": np.ones((4, 3), np.float32), "0.bias": np.zeros(4, np.float32),
                             "2.weight": np.ones((2, 4), np.float32), "2.bias": np.zeros(2, np.float32)}
                            if fw is gg else
                            {"0.weight": torch.ones(4, 3), "0.bias": torch.zeros(4),
                             "2.weight": torch.ones(2, 4), "2.bias": torch.zeros(2)})
        got = {}
        net[1].register_forward_hook(lambda mod, a, out: got.__setitem__("relu", out.detach().numpy().copy()))
        net(fw.tensor(X - 0.5))
        features[fw.__name__] = got["relu"]
    np.testing.assert_allclose(features["glassgrad"], features["torch"], rtol=1e-6)


def _global_hooks_run(fw):
    emptied, plain = Scale.build(fw.nn), Scale.build(fw.nn)
    emptied.register_forward_hook(lambda mod, a, out: out + 100).remove()  # an empty table of its own
    g = fw.nn.modules.module
    handles = [g.register_module_forward_pre_hook(lambda mod, a: (a[0] * 3,)),
               g.register_module_forward_hook(lambda mod, a, out: out + 1)]
    try:
        during = [m(fw.tensor(X), k=2.0).detach().numpy() for m in (emptied, plain)]
    finally:
        for h in handles:
            h.remove()
    after = [m(fw.tensor(X), k=2.0).detach().numpy() for m in (emptied, plain)]
    return during, after


def test_global_hooks_reach_modules_with_no_table_or_an_emptied_one():
    # Module.__call__ asks for hooks only where a table exists (its own or a global one).
    got, want = _global_hooks_run(gg), _global_hooks_run(torch)
    for g, w in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    np.testing.assert_allclose(got[0][1], X * 3 * 2 + 1, rtol=1e-6)
