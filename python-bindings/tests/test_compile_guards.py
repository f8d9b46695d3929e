"""A compiled step never runs on stale data: NumPy and Python arguments are constants of the
trace keyed by value (ids are reused by Python, values are not), tensors anywhere in the
arguments are bound anew each call, and anything that gives the step's buffers other storage or
other behaviour (load_state_dict, replacing a layer, model.eval()) makes it trace again. Dropout
draws a new mask on every replay. Each test compares with the same calls run uncompiled."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import train_step


def _linear(seed=0):
    gg.manual_seed(seed)
    return gg.Linear(3, 2)


def test_numpy_arguments_key_the_trace_by_value_not_by_id():
    lin = _linear()
    # under no_grad: a result that needs gradients and is not differentiated in the call is
    # never replayed (test_compile_module.py)
    step = gg.compile(gg.no_grad()(lambda a: lin(gg.tensor(a)).sum()))
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    for i in range(6):
        a = np.full((2, 3), float(i), np.float32)  # arrays freed each turn: ids come back
        assert step(a).item() == pytest.approx(float((a @ w.T + b).sum()), rel=1e-6)
    for i in (1, 2, 1, 2):  # the same values again are replays
        a = np.full((2, 3), float(i), np.float32)
        assert step(a).item() == pytest.approx(float((a @ w.T + b).sum()), rel=1e-6)
    assert step.replays >= 2


@pytest.mark.parametrize("scale", [np.float32, np.float64, np.int64, float, int])
def test_scalar_arguments_key_the_trace_by_value(scale):
    x = gg.tensor(np.ones(3, np.float32))
    step = gg.compile(lambda t, s: (t * float(s)).sum())
    got = [step(x, scale(v)).item() for v in (1, 2, 3, 4, 3, 4, 3)]
    assert got == [3.0, 6.0, 9.0, 12.0, 9.0, 12.0, 9.0]


def test_tensors_inside_lists_and_dicts_and_keywords_are_bound_each_call():
    step = gg.compile(lambda pair, extra, *, bias: (pair[0] * pair[1]).sum() + extra["k"].sum() + bias.sum())
    rng = np.random.default_rng(0)
    for _ in range(4):
        a, b, c, d = (rng.standard_normal(3).astype(np.float32) for _ in range(4))
        got = step([gg.tensor(a), gg.tensor(b)], {"k": gg.tensor(c)}, bias=gg.tensor(d)).item()
        assert got == pytest.approx(float((a * b).sum() + c.sum() + d.sum()), rel=1e-5)
    assert step.replays == 2


def _data(i):
    rng = np.random.default_rng(i)
    return gg.tensor(rng.standard_normal((4, 3)).astype(np.float32)), gg.tensor(rng.integers(0, 2, 4))


def _run(steps, change, compiled):
    model = _linear(1)
    opt = gg.SGD(model.parameters(), lr=0.5, momentum=0.9)
    step = train_step(model, opt)
    if compiled:
        step = gg.compile(step)
    losses = []
    for i in range(steps):
        if i == steps // 2:
            change(model)
        losses.append(step(*_data(i)).item())
    return losses, model


CHANGES = {
    "load_state_dict": lambda m: m.load_state_dict({k: v * 0 + 0.25 for k, v in m.state_dict().items()}),
    "replace_parameter": lambda m: setattr(m, "weight", gg.Parameter(np.full((2, 3), -0.5, np.float32))),
    "astype_round_trip": lambda m: m.double().float(),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_compiled_step_after_a_change_of_weights_trains_the_new_ones(change):
    plain, plain_model = _run(8, CHANGES[change], compiled=False)
    compiled, model = _run(8, CHANGES[change], compiled=True)
    np.testing.assert_allclose(compiled, plain, rtol=1e-5)
    np.testing.assert_allclose(model.weight.detach().numpy(), plain_model.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_replacing_a_layer_traces_again():
    class Net(gg.Module):
        def __init__(self):
            super().__init__()
            self.fc = _linear(2)

        def forward(self, x):
            return self.fc(x)

    net = Net()
    step = gg.compile(lambda x: net(x).sum())
    x = gg.tensor(np.ones((1, 3), np.float32))
    for _ in range(3):
        step(x)
    net.fc = _linear(5)
    want = float((np.ones((1, 3)) @ net.fc.weight.detach().numpy().T + net.fc.bias.detach().numpy()).sum())
    assert step(x).item() == pytest.approx(want, rel=1e-6)


def test_eval_mode_after_compiling_in_train_mode_traces_again():
    gg.manual_seed(3)
    model = gg.Sequential(gg.Linear(3, 4), gg.nn.BatchNorm1d(4))
    step = gg.compile(lambda x: model(x))
    x = gg.tensor(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
    for _ in range(3):
        step(x)
    model.eval()
    got = step(x).detach().numpy()
    with gg.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_dropout_draws_a_new_mask_on_every_replay_like_the_plain_loop():
    def masks(compiled):
        gg.manual_seed(7)
        drop = gg.Dropout(0.5)
        f = (lambda x: drop(x) * 1.0)
        if compiled:
            f = gg.compile(f)
        x = gg.tensor(np.ones((4, 8), np.float32))
        return [f(x).numpy() for _ in range(5)]

    plain, compiled = masks(False), masks(True)
    for a, b in zip(plain, compiled):
        np.testing.assert_array_equal(a, b)
    assert len({m.tobytes() for m in compiled}) == 5
