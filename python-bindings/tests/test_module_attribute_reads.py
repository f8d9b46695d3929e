"""Module attribute reads keep CPython's and PyTorch's semantics while layers, parameters and
buffers are found without Module.__getattr__ running (the extension's attribute slot does its
lookups, python-bindings/src/bind_attributes.cpp): a subclass's own __getattr__ or
__getattribute__, properties (those raising AttributeError too), instance attributes, class
attributes assigned later and the error for a missing name all behave as before, and __dict__
holds no registered entry."""
import sys

import pytest

import glassgrad as gg
import glassgrad.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3)
        self.scale = nn.Parameter(gg.ones(2))
        self.register_buffer("mask", gg.ones(3))
        self.bias = None
        self.register_parameter("gain", None)

    def forward(self, x):
        return self.conv1(x)


def getattr_calls(read):
    """How many times a Python __getattr__ ran during read()."""
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "__getattr__":
            calls.append(frame.f_code)

    sys.setprofile(profile)
    try:
        read()
    finally:
        sys.setprofile(None)
    return len(calls)


def test_registered_entries_are_found_without_module_getattr_running():
    m = Net()
    assert m.conv1 is m._modules["conv1"] and m.scale is m._parameters["scale"]
    assert m.mask is m._buffers["mask"] and m.gain is None and m.bias is None
    assert getattr_calls(lambda: (m.conv1, m.scale, m.mask, m.gain, m.conv1.weight)) == 0
    for name in ("conv1", "scale", "mask", "gain"):
        assert name not in m.__dict__ and name not in vars(m)
    assert "conv1" not in type(m).__dict__ and not hasattr(Net, "conv1")


def test_a_missing_name_reaches_module_getattr_and_its_error():
    m = Net()
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        m.nothing
    assert not hasattr(m, "nothing") and getattr(m, "nothing", 7) == 7
    assert getattr_calls(lambda: hasattr(m, "nothing")) == 1


def test_a_subclass_getattr_runs_before_the_tables():
    class Intercepting(Net):
        def __getattr__(self, name):
            if name == "conv1":
                return "mine"
            return super().__getattr__(name)

    m = Intercepting()
    assert m.conv1 == "mine" and m.scale is m._parameters["scale"]
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        m.nothing


def test_a_subclass_getattribute_runs_for_every_read():
    seen = []

    class Watching(Net):
        def __getattribute__(self, name):
            seen.append(name)
            return super().__getattribute__(name)

    m = Watching()
    seen.clear()
    assert m.conv1 is m._modules["conv1"]
    assert seen[0] == "conv1"


def test_properties_instance_and_class_attributes_come_first():
    class WithProperty(Net):
        @property
        def doubled(self):
            return 2 * self.scale

        @property
        def broken(self):
            raise AttributeError("inner")

    m = WithProperty()
    assert m.doubled.detach().numpy().tolist() == [2.0, 2.0]
    # A property raising AttributeError falls back to __getattr__ (CPython's rule).
    with pytest.raises(AttributeError, match="no attribute 'broken'"):
        m.broken
    m.plain = 3
    assert m.plain == 3 and m.__dict__["plain"] == 3
    WithProperty.shared_attr = "class"
    assert m.shared_attr == "class"


def test_getattr_assigned_on_the_class_later_is_honoured():
    class Late(Net):
        pass

    m = Late()
    Late.__getattr__ = lambda self, name: f"late {name}"
    assert m.conv1 == "late conv1" and m.anything == "late anything"
    del Late.__getattr__
    assert m.conv1 is m._modules["conv1"]


def test_entries_replaced_or_deleted_are_read_afresh():
    m = Net()
    old = m.conv1
    m.conv1 = nn.Linear(2, 2)
    assert m.conv1 is not old and isinstance(m.conv1, nn.Linear)
    del m.conv1
    with pytest.raises(AttributeError, match="no attribute 'conv1'"):
        m.conv1
    m._modules["conv1"] = old  # written straight into the table, as containers do
    assert m.conv1 is old


def test_reads_before_init_and_with_odd_tables():
    class Early(nn.Module):
        def __init__(self):
            with pytest.raises(AttributeError, match="no attribute 'conv1'"):
                self.conv1
            super().__init__()

    Early()
    m = Net()
    m.__dict__["_buffers"] = None  # not a dict: Module.__getattr__'s own behaviour (a TypeError)
    with pytest.raises(TypeError):
        m.mask
