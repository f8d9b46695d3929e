"""torch.optim.lr_scheduler.CyclicLR and torch.optim.swa_utils (AveragedModel with avg_fn,
multi_avg_fn and use_buffers, the EMA/SWA helpers, SWALR, update_bn) against PyTorch itself:
the same rates, momenta, averaged weights and BatchNorm statistics, and state_dicts with
PyTorch's keys."""
import math
import warnings

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _optimizer(lib, cls="SGD", **kwargs):
    p1, p2 = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
    return getattr(lib.optim, cls)([{"params": [p1]}, {"params": [p2], "lr": 0.05}], lr=0.1, **kwargs)


def _trace(lib, make, cls, okw, steps=23):
    opt = _optimizer(lib, cls, **okw)
    sched = make(lib, opt)
    rows = []
    for _ in range(steps):
        opt.step()
        sched.step()
        rows.append(list(sched.get_last_lr()) +
                    [g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups])
    return np.array(rows), sched


CYCLIC = [
    dict(base_lr=0.01, max_lr=0.1, step_size_up=3),
    dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.2], step_size_up=2, step_size_down=5, mode="triangular2"),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range", gamma=0.9),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 1.0 / x, base_momentum=[0.7, 0.6],
         max_momentum=0.95),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=2, cycle_momentum=False),
]


@pytest.mark.parametrize("kwargs", CYCLIC)
@pytest.mark.parametrize("cls,okw", [("SGD", dict(momentum=0.9)), ("Adam", {}), ("RMSprop", dict(momentum=0.5))])
def test_cyclic_lr_matches_torch(kwargs, cls, okw):
    def make(lib, opt):
        return lib.optim.lr_scheduler.CyclicLR(opt, **kwargs)
    theirs, ts = _trace(torch, make, cls, okw)
    ours, gs = _trace(gg, make, cls, okw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=1e-17)
    assert sorted(gs.state_dict()) == sorted(ts.state_dict())
    assert gs.state_dict()["_scale_fn_custom"] is None


def test_cyclic_lr_resumes_from_its_state_dict_and_checks_arguments():
    opt = _optimizer(gg, momentum=0.9)
    sched = gg.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode="triangular2")
    for _ in range(5):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    opt2 = _optimizer(gg, momentum=0.9)
    resumed = gg.optim.lr_scheduler.CyclicLR(opt2, 0.01, 0.1, step_size_up=3)
    resumed.load_state_dict(saved)
    for _ in range(6):
        sched.step()
        resumed.step()
        assert resumed.get_last_lr() == sched.get_last_lr()
    with pytest.raises(ValueError, match="mode"):
        gg.optim.lr_scheduler.CyclicLR(_optimizer(gg, momentum=0.9), 0.01, 0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="momentum or beta1"):
        gg.optim.lr_scheduler.CyclicLR(_optimizer(gg, "Adagrad"), 0.01, 0.1)
    with pytest.raises(ValueError, match="base_lr"):
        gg.optim.lr_scheduler.CyclicLR(_optimizer(gg, momentum=0.9), [0.01], 0.1)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.02, 0.3], anneal_epochs=3, anneal_strategy="linear"),
                                    dict(swa_lr=0.01, anneal_epochs=0), dict(swa_lr=-0.01, anneal_epochs=4)])
def test_swalr_matches_torch(kwargs):
    def make(lib, opt):
        return lib.optim.swa_utils.SWALR(opt, **kwargs)
    theirs, ts = _trace(torch, make, "SGD", dict(momentum=0.9), steps=14)
    ours, gs = _trace(gg, make, "SGD", dict(momentum=0.9), steps=14)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-17)
    assert sorted(gs.state_dict()) == sorted(ts.state_dict())
    with pytest.raises(ValueError):
        gg.optim.swa_utils.SWALR(_optimizer(gg), swa_lr=0.1, anneal_strategy="step")
    with pytest.raises(ValueError):
        gg.optim.swa_utils.SWALR(_optimizer(gg), swa_lr=0.1, anneal_epochs=-1)


def _model(lib, values=None):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).double()
    if values is not None:
        with lib.no_grad():
            for p, v in zip(model.parameters(), values):
                p.copy_(lib.tensor(v))
    return model


def _averaging(lib, values, batches, **kwargs):
    model = _model(lib, values)
    swa = lib.optim.swa_utils
    if kwargs.pop("ema", False):
        kwargs["multi_avg_fn"] = swa.get_ema_multi_avg_fn(0.9)
    if kwargs.pop("ema_avg_fn", False):
        kwargs["avg_fn"] = swa.get_ema_avg_fn(0.8)
    averaged = swa.AveragedModel(model, **kwargs)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for x in batches:
        opt.zero_grad()
        model(lib.tensor(x)).pow(2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
    swa.update_bn([(lib.tensor(x), 0) for x in batches], averaged)
    state = averaged.state_dict()
    return {k: np.asarray(v if isinstance(v, np.ndarray) else v.detach().numpy()) for k, v in state.items()}, averaged


@pytest.mark.parametrize("kwargs", [{}, dict(use_buffers=True), dict(ema=True), dict(ema_avg_fn=True, use_buffers=True)])
def test_averaged_model_and_update_bn_match_torch(kwargs):
    rng = np.random.default_rng(11)
    values = [p.detach().numpy().copy() for p in _model(torch).parameters()]
    batches = [rng.standard_normal((6, 3)) for _ in range(5)]
    theirs, t_avg = _averaging(torch, values, batches, **dict(kwargs))
    ours, g_avg = _averaging(gg, values, batches, **dict(kwargs))
    assert list(ours) == list(theirs)  # module.<...> entries, then n_averaged
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=1e-14, err_msg=key)
    assert int(ours["n_averaged"]) == 5
    assert g_avg.training  # update_bn restores the mode
    x = rng.standard_normal((2, 3))
    g_avg.eval()
    t_avg.eval()
    np.testing.assert_allclose(g_avg(gg.tensor(x)).detach().numpy(), t_avg(torch.tensor(x)).detach().numpy(), rtol=1e-12)


def test_swa_helpers_and_argument_errors():
    swa = gg.optim.swa_utils
    a, b = gg.tensor([1.0, 2.0], dtype=gg.float64), gg.tensor([3.0, 6.0], dtype=gg.float64)
    np.testing.assert_allclose(swa.get_swa_avg_fn()(a, b, 3).numpy(), [1.5, 3.0])
    np.testing.assert_allclose(swa.get_ema_avg_fn(0.75)(a, b, 3).numpy(), [1.5, 3.0])
    swa.get_swa_multi_avg_fn()([a], [b], 1)
    np.testing.assert_allclose(a.numpy(), [2.0, 4.0])
    with pytest.raises(AssertionError, match="only one of avg_fn and multi_avg_fn"):
        swa.AveragedModel(_model(gg), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        swa.update_bn([], gg.nn.Linear(2, 2))  # no BatchNorm: nothing to do
    assert math.isclose(swa.SWALR._cosine_anneal(0.5), 0.5)
