"""Calling a module keeps Module.__call__'s and PyTorch's semantics while a plain call (no hook,
no recording, names current) runs forward without Module.__call__'s frame (the extension's call
slot, python-bindings/src/bind_module_call.cpp): forward pre/post hooks, full backward hooks and
global module hooks added or removed between calls, subclasses overriding __call__ (before or
after the class is made), an instance's own forward, a class's own __getattribute__, forward
raising, a module without forward, the layer names ops are recorded under, and the per-thread
scope stacks all behave as before."""
import sys
import threading

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
from glassgrad import _trace
from glassgrad.nn.modules import module as gmodule


class Scale(nn.Module):
    def __init__(self, k=2.0):
        super().__init__()
        self.k = k

    def forward(self, x, *, shift=0.0):
        return x * self.k + shift


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Scale(2.0)
        self.b = Scale(3.0)

    def forward(self, x):
        return self.b(self.a(x))


def frames_named(name, call):
    """How many Python frames of a function called `name` ran during call() (its result too)."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == name:
            seen.append(frame.f_code)

    sys.setprofile(profile)
    try:
        out = call()
    finally:
        sys.setprofile(None)
    return len(seen), out


def test_a_plain_call_runs_forward_without_module_call_frames():
    net, x = Net(), gg.ones(3)
    net(x)  # names the layers' call entries
    calls, out = frames_named("__call__", lambda: net(x))
    assert calls == 0
    np.testing.assert_allclose(out.numpy(), np.full(3, 6.0, np.float32))
    forwards, _ = frames_named("forward", lambda: net(x))
    assert forwards == 3


def test_the_call_pushes_each_layers_scope_and_pops_it():
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append((_trace.current_scope(), _trace._local.layers[-1]))
            return x

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def forward(self, x):
            seen.append((_trace.current_scope(), _trace._local.layers[-1]))
            return self.probe(x)

    m = Outer()
    for _ in range(2):
        m(gg.ones(1))
    assert seen == [("Outer", "Outer"), ("probe", "Probe 'probe'")] * 2
    assert _trace._local.scopes == [] and _trace._local.layers == []


def test_a_module_renamed_by_assignment_records_under_its_new_path():
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(_trace.current_scope())
            return x

    inner = Probe()
    inner(gg.ones(1))
    holder = nn.Sequential()
    holder.add_module("renamed", inner)
    holder(gg.ones(1))
    inner(gg.ones(1))
    assert seen == ["Probe", "renamed", "renamed"]


def test_forward_hooks_added_and_removed_between_calls():
    m, x, log = Scale(), gg.ones(2), []
    m(x)
    pre = m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    post = m.register_forward_hook(lambda mod, args, out: out + 1)
    out = m(x)
    assert log == ["pre"]
    np.testing.assert_allclose(out.numpy(), [3.0, 3.0])
    pre.remove()
    post.remove()
    np.testing.assert_allclose(m(x).numpy(), [2.0, 2.0])
    assert log == ["pre"]
    kw = m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"shift": 10.0}), with_kwargs=True)
    np.testing.assert_allclose(m(x).numpy(), [12.0, 12.0])
    kw.remove()
    np.testing.assert_allclose(m(x, shift=1.0).numpy(), [3.0, 3.0])


def test_always_called_forward_hook_runs_when_forward_raises():
    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("bad input")

    m, log = Bad(), []
    with pytest.raises(ValueError, match="bad input"):
        m(gg.ones(1))
    assert _trace._local.scopes == [] and _trace._local.layers == []
    m.register_forward_hook(lambda mod, args, out: log.append(out), always_call=True)
    with pytest.raises(ValueError, match="bad input"):
        m(gg.ones(1))
    assert log == [None]
    assert _trace._local.scopes == [] and _trace._local.layers == []


def test_global_module_hooks_registered_after_plain_calls_run():
    m, x, log = Scale(), gg.ones(1), []
    m(x)
    with gmodule.register_module_forward_pre_hook(lambda mod, args: log.append(type(mod).__name__)):
        m(x)
    m(x)
    assert log == ["Scale"]
    with gmodule.register_module_forward_hook(lambda mod, args, out: out * 0):
        np.testing.assert_allclose(m(x).numpy(), [0.0])
    np.testing.assert_allclose(m(x).numpy(), [2.0])


def test_full_backward_hook_added_after_plain_calls():
    m = Scale(3.0)
    x = gg.ones(2, requires_grad=True)
    m(x).sum().backward()
    grads = []
    m.register_full_backward_hook(lambda mod, gin, gout: grads.append(gout[0].numpy().copy()))
    x.grad = None
    m(x).sum().backward()
    assert len(grads) == 1
    np.testing.assert_allclose(grads[0], [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_subclasses_with_their_own_call():
    class Counted(Scale):
        calls = 0

        def __call__(self, *args, **kwargs):
            type(self).calls += 1
            return super().__call__(*args, **kwargs)

    m = Counted()
    np.testing.assert_allclose(m(gg.ones(1)).numpy(), [2.0])
    assert Counted.calls == 1

    class Later(Scale):
        pass

    later = Later()
    later(gg.ones(1))
    Later.__call__ = lambda self, x: "own call"  # a class given __call__ after it was made
    assert later(gg.ones(1)) == "own call"
    del Later.__call__
    np.testing.assert_allclose(later(gg.ones(1)).numpy(), [2.0])
    np.testing.assert_allclose(nn.Module.__call__(later, gg.ones(1)).numpy(), [2.0])


def test_an_instances_own_forward_and_a_classes_getattribute():
    m = Scale()
    m(gg.ones(1))
    m.forward = lambda x: "instance forward"
    assert m(gg.ones(1)) == "instance forward"

    class Redirect(Scale):
        def __getattribute__(self, name):
            if name == "forward":
                return lambda x: "redirected"
            return super().__getattribute__(name)

    r = Redirect()
    assert r(gg.ones(1)) == "redirected"
    assert r(gg.ones(1)) == "redirected"


def test_a_module_without_forward():
    m = nn.Module()
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        m(gg.ones(1))
    with pytest.raises(NotImplementedError, match="missing the required"):
        m(gg.ones(1))


def test_many_positional_arguments_and_keywords():
    class Many(nn.Module):
        def forward(self, *args, **kwargs):
            return args, kwargs

    m = Many()
    for _ in range(2):
        assert m(*range(12), a=1) == (tuple(range(12)), {"a": 1})
        assert m() == ((), {})


def test_calls_on_another_thread_use_that_threads_stacks():
    seen = []

    class Probe(nn.Module):
        def forward(self, x):
            seen.append(list(_trace._local.scopes))
            return x

    m = Probe()
    m(gg.ones(1))
    t = threading.Thread(target=lambda: m(gg.ones(1)))
    t.start()
    t.join()
    m(gg.ones(1))
    assert seen == [["Probe"]] * 3
    assert _trace._local.scopes == []


def test_global_hooks_registered_then_removed_leave_the_plain_path_due():
    # The global tables stay once made (emptied by handle.remove()); an empty table runs no hook,
    # so a plain call must still skip Module.__call__ (it took it for the rest of the process).
    import glassgrad.nn.modules.module as M
    handles = [M.register_module_forward_hook(lambda m, i, o: None),
               M.register_module_forward_pre_hook(lambda m, i: None),
               M.register_module_full_backward_hook(lambda m, gi, go: None)]
    net, x = Net(), gg.ones(3)
    calls, _ = frames_named("__call__", lambda: net(x))
    assert calls == 3  # hooks present: every layer call runs Module.__call__
    for h in handles:
        h.remove()
    net(x)
    calls, out = frames_named("__call__", lambda: net(x))
    assert calls == 0
    np.testing.assert_allclose(out.numpy(), np.full(3, 6.0, np.float32))
