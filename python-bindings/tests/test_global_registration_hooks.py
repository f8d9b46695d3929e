"""Global hooks PyTorch documents in torch.nn.modules.module and torch.optim.optimizer:
register_module_parameter_registration_hook / _buffer_ / _module_registration_hook (run on every
registration, a returned value replaces the registered one) and
register_optimizer_step_pre_hook / _post_hook (around every optimizer's step: global pre-hooks
before an optimizer's own, global post-hooks after), Optimizer.profile_hook_step and the hook type
aliases. Expected orders follow PyTorch's documented behaviour; one test replays the same script
on PyTorch where installed."""
import importlib

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.nn.modules import module as gmodule
from glassgrad.optim import optimizer as goptimizer


def _registration_script(lib):
    log = []
    mm = importlib.import_module(lib.__name__ + ".nn.modules.module")
    handles = [
        mm.register_module_parameter_registration_hook(lambda m, n, p: log.append(("p", type(m).__name__, n,
                                                                                   tuple(p.shape)))),
        mm.register_module_buffer_registration_hook(lambda m, n, b: log.append(("b", type(m).__name__, n,
                                                                                tuple(b.shape)))),
        mm.register_module_module_registration_hook(lambda m, n, s: log.append(("m", type(m).__name__, n,
                                                                                type(s).__name__)))]
    try:
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        net.add_module("extra", None)
        net.register_module("act", lib.nn.ReLU())

        class Custom(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("stat", lib.zeros(2))
                self.stat = lib.ones(2)  # a tensor assigned to a buffer's name is a registration too
                self.w = lib.nn.Parameter(lib.ones(1))
                self.register_parameter("absent", None)  # None: no parameter hook
                self.plain = lib.ones(3)  # a plain attribute: no hook

        Custom()
    finally:
        for h in handles:
            h.remove()
    lib.nn.Linear(1, 1)  # removed: no more entries
    return log


EXPECTED = [("p", "Linear", "weight", (3, 2)), ("p", "Linear", "bias", (3,)), ("p", "BatchNorm1d", "weight", (3,)),
            ("p", "BatchNorm1d", "bias", (3,)), ("b", "BatchNorm1d", "running_mean", (3,)),
            ("b", "BatchNorm1d", "running_var", (3,)), ("b", "BatchNorm1d", "num_batches_tracked", ()),
            ("m", "Sequential", "0", "Linear"), ("m", "Sequential", "1", "BatchNorm1d"),
            ("m", "Sequential", "extra", "NoneType"), ("m", "Sequential", "act", "ReLU"), ("b", "Custom", "stat", (2,)),
            ("b", "Custom", "stat", (2,)), ("p", "Custom", "w", (1,))]


def test_registration_hooks_see_every_registration():
    assert _registration_script(gg) == EXPECTED


def test_registration_hooks_may_replace_the_value():
    def double_params(module, name, param):
        return gg.nn.Parameter(param.detach() * 2)

    def identity_for_relu(module, name, sub):
        return gg.nn.Identity() if isinstance(sub, gg.nn.ReLU) else None

    def buffer_of_sevens(module, name, buf):
        return gg.full_like(buf, 7.0)

    handles = [gmodule.register_module_parameter_registration_hook(double_params),
               gmodule.register_module_module_registration_hook(identity_for_relu),
               gmodule.register_module_buffer_registration_hook(buffer_of_sevens)]
    try:
        m = gg.nn.Module()
        m.w = gg.nn.Parameter(gg.tensor([1.0, 2.0]))
        m.act = gg.nn.ReLU()
        m.register_buffer("b", gg.zeros(2))
    finally:
        for h in handles:
            h.remove()
    assert m.w.tolist() == [2.0, 4.0] and type(m.act).__name__ == "Identity" and m.b.tolist() == [7.0, 7.0]
    assert list(m.parameters())[0] is m.w


def _optimizer_script(lib):
    log = []
    om = importlib.import_module(lib.__name__ + ".optim.optimizer")
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    h1 = om.register_optimizer_step_pre_hook(lambda o, a, k: log.append(("global pre", type(o).__name__, len(a))))
    h2 = om.register_optimizer_step_post_hook(lambda o, a, k: log.append(("global post", type(o).__name__)))
    opt.register_step_pre_hook(lambda o, a, k: log.append(("pre",)))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post",)))
    p.grad = lib.ones(2)
    opt.step()
    h1.remove()
    h2.remove()
    opt.step()
    return log, p.detach().numpy()


def test_global_optimizer_step_hooks_order_and_removal():
    log, p = _optimizer_script(gg)
    assert log == [("global pre", "SGD", 1), ("pre",), ("post",), ("global post", "SGD"), ("pre",), ("post",)]
    np.testing.assert_allclose(p, [0.8, 0.8], rtol=1e-6)


def test_global_pre_hook_may_replace_the_arguments():
    calls = []

    def closure():
        calls.append("closure")
        return gg.tensor(0.0)

    handle = goptimizer.register_optimizer_step_pre_hook(lambda o, a, k: (a, {"closure": closure}))
    try:
        p = gg.nn.Parameter(gg.ones(1))
        p.grad = gg.ones(1)
        gg.optim.SGD([p], lr=1.0).step()
    finally:
        handle.remove()
    assert calls == ["closure"]
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        handle = goptimizer.register_optimizer_step_pre_hook(lambda o, a, k: "bad")
        try:
            gg.optim.SGD([p], lr=1.0).step()
        finally:
            handle.remove()


def test_profile_hook_step_and_hook_types():
    log = []

    class Mine(gg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 1.0})

        @gg.optim.Optimizer.profile_hook_step
        def step(self, closure=None):
            log.append("step")

    opt = Mine([gg.nn.Parameter(gg.ones(1))])
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    opt.step()
    assert log == ["pre", "step", "post"]
    assert callable(gg.optim.Optimizer.profile_hook_step)
    assert gg.optim.Optimizer.OptimizerPreHook is not None and gg.optim.Optimizer.OptimizerPostHook is not None


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _registration_script(gg) == _registration_script(torch)
    (ours, p_ours), (theirs, p_theirs) = _optimizer_script(gg), _optimizer_script(torch)
    assert ours == theirs
    np.testing.assert_allclose(p_ours, p_theirs, rtol=1e-6)
    assert set(importlib.import_module("torch.optim.optimizer").__all__) <= set(goptimizer.__all__)
