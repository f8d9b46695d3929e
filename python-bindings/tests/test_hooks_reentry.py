"""A hook may compute with glassgrad while the step it observes runs: its ops run in a plan of
their own (an arena of its own, no hooks called again), the observed step's results are exactly
those of a run without the hook, and asking for a tensor the running step is still computing
raises an error instead of running the step (and its in-place updates) a second time."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import train_step


def _model():
    gg.manual_seed(3)
    return gg.Sequential(gg.Linear(4, 8), gg.ReLU(), gg.Linear(8, 3))


def _batch():
    rng = np.random.default_rng(0)
    return gg.tensor(rng.standard_normal((5, 4)).astype(np.float32)), gg.tensor(rng.integers(0, 3, 5))


def _train_step(model, opt, x, y):
    return train_step(model, opt)(x, y).item()


def test_a_hook_that_runs_glassgrad_ops_sees_each_node_once_and_leaves_the_step_unchanged():
    x, y = _batch()
    ref_model = _model()
    ref_opt = gg.SGD(ref_model.parameters(), lr=0.1)
    ref_losses = [_train_step(ref_model, ref_opt, x, y) for _ in range(2)]

    model = _model()
    opt = gg.SGD(model.parameters(), lr=0.1)
    seen = []

    def hook(node, inputs, outputs):
        # Computes with glassgrad: a plan of its own inside the running one.
        big = gg.tensor(np.repeat(outputs[0][None], 64, axis=0)) * 3.0 + 1.0
        seen.append((node.op, float(big.sum().item()), float((outputs[0] * 3.0 + 1.0).sum() * 64)))

    with gg.debug.register_hook(model[0], hook, when="any"):
        losses = [_train_step(model, opt, x, y) for _ in range(2)]
    assert losses == ref_losses  # bit for bit: the hook's plans never touched the step's buffers
    for name, p in model.named_parameters():
        np.testing.assert_array_equal(p.detach().numpy(), dict(ref_model.named_parameters())[name].detach().numpy())
    assert seen, "the hook never ran"
    for _, got, want in seen:
        assert got == pytest.approx(want, rel=1e-5)
    # As many calls as a hook that computes nothing gets: the hook's own nodes called no hook.
    plain, counted = _model(), []
    plain_opt = gg.SGD(plain.parameters(), lr=0.1)
    with gg.debug.register_hook(plain[0], lambda node, i, o: counted.append(node.op), when="any"):
        for _ in range(2):
            _train_step(plain, plain_opt, x, y)
    assert [op for op, _, _ in seen] == counted


def test_a_hook_on_an_op_that_runs_the_same_op_does_not_recurse():
    calls = []

    def hook(node, inputs, outputs):
        calls.append(node.op)
        assert gg.tensor(inputs[0]).sum().item() == pytest.approx(float(inputs[0].sum()))

    x = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    with gg.debug.register_hook("Sum", hook):
        assert (x * 2).sum().item() == 30.0
    assert calls == ["Sum"]


def test_asking_a_hook_for_the_running_steps_loss_raises_and_the_model_still_trains():
    model = _model()
    opt = gg.SGD(model.parameters(), lr=0.1)
    x, y = _batch()
    holder = {}

    def hook(node, inputs, outputs):
        holder["loss"].item()

    loss = gg.cross_entropy(model(x), y)
    holder["loss"] = loss
    with gg.debug.register_hook(model[2], hook):
        with pytest.raises(gg.GlassgradError, match="the plan that computes it is running"):
            loss.item()
    # The failed step left the model usable: a plain step afterwards trains normally.
    before = [p.detach().numpy().copy() for p in model.parameters()]
    assert np.isfinite(_train_step(model, opt, x, y))
    assert any(not np.array_equal(b, p.detach().numpy()) for b, p in zip(before, model.parameters()))


def test_reading_a_parameter_being_updated_from_an_optimizer_hook_raises_without_a_second_update():
    model = _model()
    opt = gg.SGD(model.parameters(), lr=0.5)
    x, y = _batch()
    w = model[0].weight
    w0 = w.detach().numpy().copy()
    errors = []

    def hook(node, inputs, outputs):
        try:
            w.numpy()  # its handle points at the update this very plan is running
        except gg.GlassgradError as e:
            errors.append(str(e))

    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    g = w.grad.numpy().copy()
    with gg.debug.register_hook("SGDUpdate", hook, when="optimizer"):
        opt.step()
    assert errors and all("running" in e for e in errors)
    np.testing.assert_allclose(w.detach().numpy(), w0 - 0.5 * g, rtol=1e-6, atol=1e-7)  # one update, not two
