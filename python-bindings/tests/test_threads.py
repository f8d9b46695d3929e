"""Gradient mode and layer scopes are per thread, as in PyTorch: an evaluation under no_grad() in
one thread never makes another thread's training step lose its gradients, and layer names never
leak between threads."""
import threading

import numpy as np

import glassgrad as gg


def _in_thread(fn):
    """Runs fn in a new thread; returns what it returned (re-raising what it raised)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # handed back to the caller
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_no_grad_in_another_thread_leaves_this_threads_gradients_on():
    p = gg.Parameter(np.ones(3, np.float32))
    inside, release = threading.Event(), threading.Event()

    def evaluate():
        with gg.no_grad():
            inside.set()
            release.wait(10)
            return gg.is_grad_enabled()

    t = threading.Thread(target=evaluate)
    t.start()
    assert inside.wait(10)
    try:
        assert gg.is_grad_enabled()
        y = (p * 2).sum()
        assert y.requires_grad
        y.backward()
        np.testing.assert_array_equal(p.grad.numpy(), [2, 2, 2])
    finally:
        release.set()
        t.join()


def test_a_new_thread_starts_with_gradients_enabled_even_inside_no_grad():
    with gg.no_grad():
        assert not gg.is_grad_enabled()
        assert _in_thread(gg.is_grad_enabled)
    assert gg.is_grad_enabled()


def test_one_no_grad_object_entered_by_two_threads_restores_each_threads_mode():
    ng = gg.no_grad()
    entered, release = threading.Barrier(2), threading.Event()

    def worker():
        with ng:
            entered.wait(10)
            release.wait(10)
        return gg.is_grad_enabled()

    result = {}
    t = threading.Thread(target=lambda: result.setdefault("after", worker()))
    t.start()
    with gg.enable_grad():
        with ng:
            entered.wait(10)
            release.set()
            assert not gg.is_grad_enabled()
        assert gg.is_grad_enabled()
    t.join()
    assert result["after"] is True


def test_decorated_no_grad_functions_are_per_call_and_per_thread():
    @gg.no_grad()
    def f():
        return gg.is_grad_enabled()

    assert f() is False and gg.is_grad_enabled()
    assert _in_thread(f) is False


def test_layer_scopes_do_not_leak_between_threads():
    model = gg.Sequential(gg.Linear(3, 2))
    inside, release = threading.Event(), threading.Event()

    class Waits(gg.Module):
        def forward(self, x):
            inside.set()
            release.wait(10)
            return x

    outer = gg.Sequential(Waits())
    t = threading.Thread(target=lambda: outer(gg.tensor(np.ones(2, np.float32))))
    t.start()
    assert inside.wait(10)
    try:
        # The other thread is inside a model call; this thread's call is still a top-level one
        # and names its own layers.
        with gg.debug.register_hook("0", lambda *a: None):
            model(gg.tensor(np.ones((1, 3), np.float32))).sum().item()
        assert model[0]._scope == "0"
        assert model[0].weight.name == "0.weight"
    finally:
        release.set()
        t.join()


def test_training_in_a_thread_while_another_evaluates_matches_a_sequential_run():
    def train(seed, steps=3):
        gg.manual_seed(seed)
        model = gg.Linear(4, 2)
        opt = gg.SGD(model.parameters(), lr=0.1)
        rng = np.random.default_rng(seed)
        x = gg.tensor(rng.standard_normal((8, 4)).astype(np.float32))
        y = gg.tensor(rng.integers(0, 2, 8))
        for _ in range(steps):
            loss = gg.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
        return model.weight.detach().numpy()

    expected = train(0)
    stop = threading.Event()
    m = gg.Linear(4, 2)

    def evaluate():
        while not stop.is_set():
            with gg.no_grad():
                m(gg.tensor(np.ones((2, 4), np.float32))).sum().item()

    t = threading.Thread(target=evaluate)
    t.start()
    try:
        got = train(0)
    finally:
        stop.set()
        t.join()
    np.testing.assert_allclose(got, expected, rtol=1e-6)
