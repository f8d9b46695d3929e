"""Tensor.register_hook and retain_grad as PyTorch's: the same programs run in glassgrad and in
torch (skipped without it) give the same gradients, hooks see the same complete gradients, a
returned tensor replaces the gradient, leaf hooks run before accumulation; errors for a hook on
a tensor without gradients and for a hook that changes the gradient's shape."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((3, 4))
W = np.random.default_rng(1).standard_normal((4, 2))


def _arr(t, lib):
    return t.detach().numpy()


def _program(lib, hooks_on):
    """x @ w -> h (used twice) -> loss; hooks_on names the tensors that get a hook."""
    x = lib.tensor(X, requires_grad=True)
    w = lib.tensor(W, requires_grad=True)
    seen = {}

    def record(name, scale=None):
        def hook(g):
            seen[name] = _arr(g, lib).copy()
            return None if scale is None else g * scale
        return hook

    h = x @ w
    if "h" in hooks_on:
        h.register_hook(record("h", 3.0))
        h.register_hook(record("h-after"))  # sees the first hook's result
    if "x" in hooks_on:
        x.register_hook(record("x", -1.0))
    if "w" in hooks_on:
        w.register_hook(record("w"))
    y = h.tanh() + h * h
    if "y" in hooks_on:
        y.register_hook(lambda g: g.clamp(max=0.5))
    loss = y.sum()
    if "loss" in hooks_on:
        loss.register_hook(record("loss", 2.0))
    loss.backward()
    return _arr(x.grad, lib), _arr(w.grad, lib), seen


@pytest.mark.parametrize("hooks_on", [("h",), ("x",), ("w",), ("y",), ("loss",), ("h", "x", "y", "loss", "w")])
def test_hooks_see_and_replace_gradients_as_torch(hooks_on):
    gx, gw, seen = _program(gg, hooks_on)
    tx, tw, tseen = _program(torch, hooks_on)
    np.testing.assert_allclose(gx, tx, rtol=1e-10)
    np.testing.assert_allclose(gw, tw, rtol=1e-10)
    assert sorted(seen) == sorted(tseen)
    for k in seen:
        np.testing.assert_allclose(seen[k], tseen[k], rtol=1e-10, err_msg=k)


def _retained(lib):
    x = lib.tensor(X, requires_grad=True)
    h = x * 2
    h.retain_grad()
    flags = (h.retains_grad, x.retains_grad)
    y = (h.sin() * h).sum()
    y.backward(retain_graph=True)
    first = _arr(h.grad, lib).copy()
    y.backward()  # a retained gradient accumulates as a leaf's does
    return first, _arr(h.grad, lib), _arr(x.grad, lib), flags


def test_retain_grad_keeps_and_accumulates_an_intermediate_gradient_as_torch():
    got, want = _retained(gg), _retained(torch)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-10)
    assert got[3] == want[3] == (True, False)


def test_leaf_hook_runs_before_accumulation_and_remove_unregisters():
    for lib in (gg, torch):
        w = lib.tensor(np.ones(3), requires_grad=True)
        handle = w.register_hook(lambda g: g * 10)
        (w * 2).sum().backward()
        assert _arr(w.grad, lib).tolist() == [20.0] * 3
        handle.remove()
        handle.remove()  # twice is fine
        (w * 2).sum().backward()
        assert _arr(w.grad, lib).tolist() == [22.0] * 3
        with w.register_hook(lambda g: g * 0):
            (w * 2).sum().backward()
        assert _arr(w.grad, lib).tolist() == [22.0] * 3


def test_hook_on_a_tensor_without_gradients_is_refused_as_torch():
    with pytest.raises(RuntimeError):
        torch.ones(2).register_hook(lambda g: g)
    with pytest.raises(gg.GlassgradError, match="doesn't require gradient[\\s\\S]*fix:"):
        gg.ones(2).register_hook(lambda g: g)
    with pytest.raises(gg.GlassgradError, match="retain_grad[\\s\\S]*fix:"):
        gg.ones(2).retain_grad()


def test_a_hook_that_changes_the_shape_is_refused():
    x = gg.tensor(np.ones(3), requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.sum())
    with pytest.raises(gg.GlassgradError, match="hook '<lambda>' has changed the size of value[\\s\\S]*fix:"):
        y.sum().backward()
    z = gg.tensor(np.ones(3), requires_grad=True)
    z.register_hook(lambda g: "not a tensor")
    with pytest.raises(TypeError, match="register_hook"):
        (z * 2).sum().backward()


def test_a_hook_that_prints_its_gradient_computes_it():
    x = gg.tensor(np.arange(3.0), requires_grad=True)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 3).sum().backward()
    assert seen == [[3.0, 3.0, 3.0]]
    assert x.grad.tolist() == [0.0, 6.0, 12.0]


def test_hooks_in_a_training_step_with_an_optimizer():
    """Gradient clipping by a hook on each parameter (a common PyTorch idiom)."""
    def run(lib):
        lib.manual_seed(0)
        w = lib.tensor(W.copy(), requires_grad=True)
        w.register_hook(lambda g: g.clamp(-0.1, 0.1))
        opt = lib.optim.SGD([w], lr=1.0)
        for _ in range(3):
            opt.zero_grad()
            ((lib.tensor(X) @ w) ** 2).mean().backward()
            opt.step()
        return _arr(w, lib)
    np.testing.assert_allclose(run(gg), run(torch), rtol=1e-10)


def test_parameter_hooks_replay_in_a_compiled_step():
    """The ops a hook records are part of the traced backward: every replay of a compiled step
    clips the gradient, and the hooks stay on the parameters through their updates."""
    gg.manual_seed(0)
    model = gg.nn.Linear(4, 2)
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(-0.01, 0.01))
    opt = gg.optim.SGD(model.parameters(), lr=1.0)
    x, y = gg.tensor(np.ones((8, 4), np.float32)), gg.tensor(np.zeros(8, np.int64))

    @gg.compile
    def step(x, y):
        opt.zero_grad()
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    before = model.weight.detach().numpy().copy()
    for _ in range(4):
        step(x, y)
    moved = np.abs(model.weight.detach().numpy() - before)
    np.testing.assert_allclose(moved.max(), 0.04, rtol=1e-5)  # 4 steps of lr * 0.01 at most
