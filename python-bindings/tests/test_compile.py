"""glassgrad.compile: a replayed step equals the traced step, runs no Python body, and refuses
what it cannot replay."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import SmallMLP as Net
from training_helpers import train_step


def _setup(seed=1):
    gg.manual_seed(seed)
    model = Net()
    opt = gg.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(seed)
    X = gg.tensor(rng.standard_normal((320, 6)).astype(np.float32))
    y = gg.tensor(rng.integers(0, 3, 320))
    return model, opt, X, y


def test_compiled_step_matches_the_plain_loop():
    model_a, opt_a, X, y = _setup()
    losses_a = []
    for i in range(0, 320, 32):
        loss = gg.cross_entropy(model_a(X[i:i + 32]), y[i:i + 32])
        loss.backward()
        opt_a.step()
        opt_a.zero_grad()
        losses_a.append(loss.item())

    model_b, opt_b, X, y = _setup()
    calls = []

    @gg.compile
    def step(xb, yb):
        calls.append(1)
        loss = gg.cross_entropy(model_b(xb), yb)
        loss.backward()
        opt_b.step()
        opt_b.zero_grad()
        return loss

    losses_b = [step(X[i:i + 32], y[i:i + 32]).item() for i in range(0, 320, 32)]
    np.testing.assert_allclose(losses_b, losses_a, rtol=1e-6)
    for (name, a), (_, b) in zip(model_a.state_dict().items(), model_b.state_dict().items()):
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=name)
    assert len(calls) == 2          # traced twice, replayed eight times
    assert step.replays == 8


def test_a_new_shape_is_traced_again():
    model, opt, X, y = _setup()
    step = gg.compile(train_step(model, opt))

    for _ in range(3):
        step(X[:32], y[:32])
    step(X[:16], y[:16])
    assert step.replays == 1


def test_leftover_gradients_are_refused_with_the_fix():
    model, opt, X, y = _setup()

    @gg.compile
    def step(xb, yb):  # forgets zero_grad: gradients from the last call leak into the next
        loss = gg.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    step(X[:32], y[:32])
    with pytest.raises(gg.GlassgradError) as e:
        step(X[:32], y[:32])
    assert "zero_grad()" in str(e.value)


def test_replays_hold_no_more_memory_than_plain_steps():
    # The capture call's outputs (its gradients) must not outlive it: a replayed step ends with
    # the memory a plain step ends with, and peaks where a plain step peaks.
    import gc
    model, opt, X, y = _setup()
    xb, yb = X[:32], y[:32]
    gg.realize(xb, yb)
    step = train_step(model, opt)

    def measured(fn):
        gg.reset_peak_memory()
        loss = fn(xb, yb)
        loss.item()
        del loss
        gc.collect()
        stats = gg.memory_stats()
        return stats["current"], stats["peak"]

    for _ in range(2):
        measured(step)
    plain = measured(step)
    run = gg.compile(step)
    for _ in range(4):
        replay = measured(run)
    assert run.replays >= 1
    assert replay[0] <= plain[0] + 64, (replay, plain)
    assert replay[1] <= plain[1] + 64, (replay, plain)
