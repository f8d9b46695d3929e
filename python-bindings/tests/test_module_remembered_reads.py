"""Module attribute reads that the extension's attribute slot remembers (bind_attributes.cpp:
a read found in the instance dict or in _parameters, _buffers or _modules is answered again while
the type, the instance dict and the tables consulted are unchanged) give what Module.__getattr__
and object's lookup give after every change that could alter the answer: a parameter, buffer or
layer replaced, removed or shadowed, an instance attribute set or deleted, a table replaced or
edited directly, a class attribute or property of the same name added later, the instance's
class changed, and a second module of the same class (docs/performance.md, "The plain loop's
host work (issue 34)", fourteenth round)."""
import glassgrad as gg
import glassgrad.nn as nn
import pytest


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.scale = nn.Parameter(gg.ones(2))
        self.register_buffer("mask", gg.ones(3))
        self.width = 4


def reads(m, times=3):
    """Each name read a few times (the first read is remembered, the next ones answered by it)."""
    return [[getattr(m, n) for _ in range(times)] for n in ("conv", "scale", "mask", "width")]


def test_repeated_reads_are_the_registered_objects():
    m = Block()
    for name, got in zip(("conv", "scale", "mask"), reads(m)):
        table = {"conv": m._modules, "scale": m._parameters, "mask": m._buffers}[name]
        assert all(x is table[name] for x in got)
    assert reads(m)[3] == [4, 4, 4]


def test_replaced_entries_are_read_anew():
    m = Block()
    reads(m)
    conv, scale, mask = nn.Conv2d(1, 2, 1), nn.Parameter(gg.zeros(2)), gg.zeros(3)
    m.conv, m.scale, m.mask, m.width = conv, scale, mask, 5
    assert m.conv is conv and m.scale is scale and m.mask is mask and m.width == 5
    m.register_buffer("mask", None)
    assert m.mask is None


def test_removed_entries_raise_as_before():
    m = Block()
    reads(m)
    del m.conv, m.scale, m.mask, m.width
    for name in ("conv", "scale", "mask", "width"):
        with pytest.raises(AttributeError, match=f"'Block' object has no attribute '{name}'"):
            getattr(m, name)


def test_tables_edited_or_replaced_directly_are_read_anew():
    m = Block()
    reads(m)
    other = nn.Parameter(gg.full((2,), 3.0))
    m._parameters["scale"] = other
    assert m.scale is other
    m._modules = dict(m._modules)
    lin = nn.Linear(2, 2)
    m._modules["conv"] = lin
    assert m.conv is lin
    # A name in an earlier table wins, as Module.__getattr__'s order (_parameters, _buffers, _modules).
    shadow = nn.Parameter(gg.ones(1))
    m._parameters["conv"] = shadow
    assert m.conv is shadow
    m.__dict__["mask"] = "instance"
    assert m.mask == "instance"
    del m.__dict__["mask"]
    assert m.mask is m._buffers["mask"]


def test_class_attributes_and_properties_added_later_take_over():
    class Late(Block):
        pass

    m = Late()
    reads(m)
    Late.width = property(lambda self: "property")
    assert m.width == "property"
    Late.scale = property(lambda self: "scale property")
    assert m.scale == "scale property"
    del Late.width, Late.scale
    assert m.width == 4 and m.scale is m._parameters["scale"]
    Block.mask = "class attribute"  # a base class changed: its subclasses read anew
    try:
        assert m.mask == "class attribute"  # found by the ordinary lookup: __getattr__ never runs
    finally:
        del Block.mask
    assert m.mask is m._buffers["mask"]


def test_a_changed_class_and_another_instance_read_their_own():
    class Other(nn.Module):
        def __init__(self):
            super().__init__()
            self.width = 9

    a, b = Block(), Block()
    reads(a)
    reads(b)
    assert a.conv is not b.conv and a.scale is not b.scale and a.conv is a._modules["conv"]
    a.__class__ = Other
    assert a.width == 4 and a.conv is a._modules["conv"]
    assert Other().width == 9


def test_a_subclass_getattr_added_later_is_called():
    class Hooked(Block):
        pass

    m = Hooked()
    reads(m)

    def __getattr__(self, name):
        return "hooked " + name

    Hooked.__getattr__ = __getattr__
    assert m.nothing == "hooked nothing"
    assert m.conv == "hooked conv"
    del Hooked.__getattr__
    assert m.conv is m._modules["conv"]
