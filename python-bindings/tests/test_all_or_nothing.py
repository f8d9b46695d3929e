"""State is never half changed: load_state_dict checks and converts every entry before it touches
the model; an optimizer step that fails part way (a hook raising, anomaly mode stopping, a
KeyboardInterrupt while recording or running) leaves every parameter, every optimizer state
tensor and every gradient as before the step, and the next step trains normally."""
import numpy as np
import pytest

import glassgrad as gg
from training_helpers import train_step


def _model():
    gg.manual_seed(1)
    return gg.Sequential(gg.Linear(4, 6), gg.ReLU(), gg.Linear(6, 5), gg.ReLU(), gg.Linear(5, 3))


def _batch():
    rng = np.random.default_rng(2)
    return gg.tensor(rng.standard_normal((7, 4)).astype(np.float32)), gg.tensor(rng.integers(0, 3, 7))


def _snapshot(model, opt=None):
    snap = {name: p.detach().numpy().copy() for name, p in model.named_parameters()}
    if opt is not None:
        for i, (p, st) in enumerate(opt.state.items()):
            for k, t in st.items():
                snap[f"state/{i}/{k}"] = np.asarray(t.numpy() if isinstance(t, gg.Tensor) else t).copy()
    return snap


def _assert_same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# ---- load_state_dict ---------------------------------------------------------------------------

def test_load_state_dict_with_a_bad_last_entry_changes_nothing():
    model = _model()
    before = _snapshot(model)
    state = {k: np.zeros_like(v) for k, v in model.state_dict().items()}
    last = list(state)[-1]
    state[last] = np.zeros((9, 9), np.float32)
    with pytest.raises(gg.ShapeError, match=last.replace(".", r"\.")):
        model.load_state_dict(state)
    _assert_same(_snapshot(model), before)
    state[last] = np.array(["a"] * model.state_dict()[last].numel()).reshape(model.state_dict()[last].shape)
    with pytest.raises(gg.DTypeError, match=last.replace(".", r"\.")):
        model.load_state_dict(state)
    _assert_same(_snapshot(model), before)


def test_load_state_dict_interrupted_while_converting_changes_nothing():
    model = _model()
    before = _snapshot(model)

    class Interrupts:
        def __array__(self, dtype=None, copy=None):
            raise KeyboardInterrupt

    state = {k: np.zeros_like(v) for k, v in model.state_dict().items()}
    state[list(state)[-1]] = Interrupts()
    with pytest.raises(KeyboardInterrupt):
        model.load_state_dict(state)
    _assert_same(_snapshot(model), before)


def test_optimizer_load_state_dict_with_a_bad_second_group_changes_nothing():
    model = _model()
    params = list(model.parameters())
    opt = gg.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.1, momentum=0.9)
    x, y = _batch()
    gg.cross_entropy(model(x), y).backward()
    opt.step()
    saved = opt.state_dict()
    saved["param_groups"][1]["lr"] = -1.0
    for st in saved["state"].values():
        st["momentum_buffer"] = st["momentum_buffer"] + 1
    before = _snapshot(model, opt)
    lrs = [g["lr"] for g in opt.param_groups]
    with pytest.raises(gg.GlassgradError, match="lr"):
        opt.load_state_dict(saved)
    _assert_same(_snapshot(model, opt), before)
    assert [g["lr"] for g in opt.param_groups] == lrs


# ---- optimizer.step ----------------------------------------------------------------------------

OPTIMIZERS = {
    "sgd-momentum": lambda ps: gg.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    "adam": lambda ps: gg.Adam(ps, lr=0.01),
    "rmsprop": lambda ps: gg.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
}


def _step(model, opt, x, y):
    return train_step(model, opt)(x, y).item()


def _trained_pair(make_opt):
    """Two identical models and optimizers, both one step in (so state exists)."""
    x, y = _batch()
    out = []
    for _ in range(2):
        m = _model()
        o = make_opt(list(m.parameters()))
        _step(m, o, x, y)
        out.append((m, o))
    return out, x, y


@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("interrupt", [RuntimeError, KeyboardInterrupt], ids=["error", "keyboard-interrupt"])
def test_a_hook_failing_in_the_middle_of_the_updates_leaves_the_step_undone(opt_name, interrupt):
    pairs, x, y = _trained_pair(OPTIMIZERS[opt_name])
    (ref, ref_opt), (model, opt) = pairs
    ref_loss = _step(ref, ref_opt, x, y)

    loss = gg.cross_entropy(model(x), y)
    loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters()}
    before = _snapshot(model, opt)
    calls = []

    def hook(node, inputs, outputs):
        calls.append(node.op)
        if len(calls) == 3:  # some updates have run, others not
            raise interrupt("stop")

    with gg.debug.register_hook("optimizer", hook, when="optimizer"):
        with pytest.raises(interrupt):
            opt.step()
    assert len(calls) == 3
    _assert_same(_snapshot(model, opt), before)
    for n, p in model.named_parameters():  # the gradients backward() recorded are kept
        np.testing.assert_array_equal(p.grad.numpy(), grads[n], err_msg=n)
    # The retried step equals an undisturbed one.
    opt.step()
    opt.zero_grad()
    assert loss.item() == pytest.approx(ref_loss, rel=1e-6)
    after, want = _snapshot(model, opt), _snapshot(ref, ref_opt)
    for k in want:
        np.testing.assert_allclose(after[k], want[k], rtol=1e-5, atol=1e-7, err_msg=k)


@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
def test_an_interrupt_while_recording_the_updates_leaves_the_step_undone(opt_name, monkeypatch):
    model = _model()
    opt = OPTIMIZERS[opt_name](list(model.parameters()))  # no state yet: the step would create it
    x, y = _batch()
    gg.cross_entropy(model(x), y).backward()
    before = _snapshot(model, opt)
    real, n = type(opt)._update, []

    def update(self, p, group):
        n.append(p)
        if len(n) == 3:
            raise KeyboardInterrupt
        real(self, p, group)

    monkeypatch.setattr(type(opt), "_update", update)
    with pytest.raises(KeyboardInterrupt):
        opt.step()
    monkeypatch.undo()
    assert not opt.state or all(not st for st in opt.state.values())
    _assert_same(_snapshot(model, opt), before)
    opt.step()  # records and runs normally afterwards
    assert any(not np.array_equal(before[k], v) for k, v in _snapshot(model).items())


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("cls,op", [(gg.SGD, "SGDMomentumUpdate"), (gg.Adam, "AdamUpdate")], ids=["sgd", "adam"])
@pytest.mark.parametrize("call", ["lazy_record_updates", "lazy_record_group_updates"], ids=["rows", "groups"])
def test_an_interrupt_around_a_run_of_updates_leaves_the_step_undone(cls, op, when, call, monkeypatch):
    """SGD and Adam record a group's updates in one runtime call once its state exists, and runs of
    alike rows in one call otherwise (Optimizer._update_all): an interrupt before the second
    call, or landing just after it returned, undoes the whole step."""
    model = _model()
    params = list(model.parameters())
    # Two groups with different weight decays: two runs of updates, the second one interrupted.
    kwargs = {"momentum": 0.9} if cls is gg.SGD else {}
    opt = cls([{"params": params[:3]}, {"params": params[3:], "weight_decay": 0.01}], lr=0.1, **kwargs)
    x, y = _batch()
    if call == "lazy_record_group_updates":
        _step(model, opt, x, y)  # state exists: the interrupted step chains onto it, group by group
    gg.cross_entropy(model(x), y).backward()
    before = _snapshot(model, opt)
    real, calls = getattr(gg._C, call), []

    def record_updates(*args):
        calls.append(args[0])
        if len(calls) == 2 and when == "before":
            raise KeyboardInterrupt
        out = real(*args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(gg._C, call, record_updates)
    with pytest.raises(KeyboardInterrupt):
        opt.step()
    monkeypatch.undo()
    assert calls == [op, op]
    _assert_same(_snapshot(model, opt), before)
    if call == "lazy_record_updates":
        assert not opt.state or all(not st for st in opt.state.values())
    opt.step()  # records and runs normally afterwards
    assert any(not np.array_equal(before[k], v) for k, v in _snapshot(model).items())


def _sgd_groups(ps):
    return [{"params": ps[:2], "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
            {"params": ps[2:4], "momentum": 0.9, "nesterov": True},
            {"params": ps[4:5], "maximize": True, "momentum": 0.5},
            {"params": ps[5:], "momentum": 0.0, "weight_decay": 0.1}]


def _adam_groups(ps):
    return [{"params": ps[:2], "weight_decay": 0.01},
            {"params": ps[2:4], "amsgrad": True},
            {"params": ps[4:5], "maximize": True, "betas": (0.8, 0.99)},
            {"params": ps[5:], "eps": 1e-6}]


@pytest.mark.parametrize("cls,groups", [(gg.SGD, _sgd_groups), (gg.Adam, _adam_groups), (gg.AdamW, _adam_groups)],
                         ids=["sgd", "adam", "adamw"])
def test_runs_of_updates_equal_the_per_parameter_updates(cls, groups):
    """Optimizer._update_all (runs of alike updates in one call, for SGD, Adam and AdamW) computes
    what per-parameter updates do, bit for bit: first steps, momentum, dampening, Nesterov, weight
    decay, maximize, AMSGrad, groups."""
    class PerParameter(cls):
        def _update(self, p, group):  # an overridden _update makes the optimizer record per parameter
            super()._update(p, group)

    x, y = _batch()
    results = []
    for c in (cls, PerParameter):
        model = _model()
        opt = c(groups(list(model.parameters())), lr=0.05)
        losses = [_step(model, opt, x, y) for _ in range(3)]
        results.append((losses, _snapshot(model, opt)))
    assert results[0][0] == results[1][0]
    _assert_same(results[0][1], results[1][1])


def test_anomaly_mode_stopping_in_the_updates_leaves_the_step_undone():
    model = _model()
    opt = gg.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = _batch()
    _step(model, opt, x, y)
    gg.cross_entropy(model(x), y).backward()
    last = list(model.parameters())[-1]
    last.grad = gg.tensor(np.full(last.shape, np.nan, np.float32))  # its update makes NaN, after others ran
    before = _snapshot(model, opt)
    with gg.debug.detect_anomaly():
        with pytest.raises(gg.debug.NonFiniteError):
            opt.step()
    _assert_same(_snapshot(model, opt), before)


@pytest.mark.parametrize("cls", [gg.SGD, gg.Adam], ids=["sgd", "adam"])
def test_a_group_of_mixed_dtypes_is_recorded_row_by_row(cls, monkeypatch):
    """A group whose parameters do not all share the first one's dtype (its 0-d hyperparameter
    tensors') is refused by the one-call path before anything is recorded and goes row by row:
    the same values as per-parameter updates, bit for bit."""
    class PerParameter(cls):
        def _update(self, p, group):
            super()._update(p, group)

    rng = np.random.default_rng(3)
    data = [rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal((5,)),  # the second float64
            rng.standard_normal((4,)).astype(np.float32)]
    kwargs = {"momentum": 0.9} if cls is gg.SGD else {}
    results, refused = [], []
    real = gg._C.lazy_record_group_updates

    def record_group(*args):
        done = real(*args)
        refused.append(not done)
        return done

    monkeypatch.setattr(gg._C, "lazy_record_group_updates", record_group)
    for c in (cls, PerParameter):
        ps = [gg.tensor(a.copy(), requires_grad=True) for a in data]
        opt = c(ps, lr=0.05, **kwargs)
        for k in range(3):
            loss = sum(((p * (k + 1.5)) ** 2).sum().float() for p in ps)
            loss.backward()
            opt.step()
            opt.zero_grad()
        results.append([p.detach().numpy().copy() for p in ps])
    assert refused == [True, True]  # the two steps after the first, whose state exists
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", [gg.SGD, gg.Adam], ids=["sgd", "adam"])
def test_a_subclass_overriding_a_row_method_is_recorded_through_it(cls):
    """The one-call path stands for _row, _grad_input, _state_for and _state_with as written: a
    subclass overriding _grad_input (here to maximize) keeps having its method used on every
    step, so it matches maximize=True bit for bit."""
    class Negated(cls):
        @staticmethod
        def _grad_input(p, group):
            return cls._grad_input(p, dict(group, maximize=True))

    x, y = _batch()
    results = []
    for make in (lambda ps: Negated(ps, lr=0.05), lambda ps: cls(ps, lr=0.05, maximize=True)):
        model = _model()
        opt = make(list(model.parameters()))
        losses = [_step(model, opt, x, y) for _ in range(3)]
        results.append((losses, _snapshot(model, opt)))
    assert results[0][0] == results[1][0]
    _assert_same(results[0][1], results[1][1])
