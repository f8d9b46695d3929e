"""nn.Buffer(t) shares t's memory, as PyTorch's (a plain tensor marked as a buffer, not a copy):
assigned to a module it is the buffer itself, and writes through t, through the Buffer or by the
module (BatchNorm's running statistics) are seen by all of them."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


def test_buffer_shares_the_tensors_memory():
    t = gg.zeros(3)
    b = nn.Buffer(t)
    assert b is not t and type(b) is gg.Tensor and b.data_ptr() == t.data_ptr()
    with gg.no_grad():
        t[0] = 5.0
        b.add_(1.0)
    assert b.tolist() == t.tolist() == [6.0, 1.0, 1.0]


def test_the_module_keeps_the_buffer_object():
    m, t = nn.Module(), gg.zeros(2)
    m.b = nn.Buffer(t, persistent=False)
    b = m.b
    m.c = b  # still a buffer: the mark stays on the object, as in PyTorch
    assert m.get_buffer("b") is b and m.c is b and [n for n, _ in m.named_buffers()] == ["b"]
    with gg.no_grad():
        t.fill_(2.0)
    assert m.b.tolist() == [2.0, 2.0] and "b" not in m.state_dict()


def test_module_updates_reach_the_wrapped_tensor():
    bn, rm = nn.BatchNorm1d(2), gg.zeros(2)
    bn.running_mean = nn.Buffer(rm)
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    bn(gg.tensor(x))
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.mean(0), rtol=1e-6)


def test_isinstance_follows_the_mark():
    t = gg.ones(2)
    b = nn.Buffer(t)
    assert isinstance(b, nn.Buffer) and not isinstance(t, nn.Buffer) and isinstance(b, gg.Tensor)
    assert b.persistent and not nn.Buffer(t, persistent=False).persistent


@pytest.mark.parametrize("kind", ["view", "requires_grad"])
def test_views_and_graph_tensors_are_shared_too(kind):
    base = gg.arange(4.0, requires_grad=kind == "requires_grad")
    data = base[1:] if kind == "view" else base
    b = nn.Buffer(data)
    assert b.data_ptr() == data.data_ptr() and b.requires_grad == data.requires_grad and b.is_leaf
    with gg.no_grad():
        b.mul_(2.0)
    assert data.tolist() == ([2.0, 4.0, 6.0] if kind == "view" else [0.0, 2.0, 4.0, 6.0])


def test_as_torch():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, gg):
        m, t = lib.nn.Module(), lib.zeros(3)
        m.b = lib.nn.Buffer(t)
        b = m.b
        with lib.no_grad():
            t[1] = 2.0
        seen[lib.__name__] = (b is t, type(b).__name__, isinstance(b, lib.nn.Buffer), isinstance(t, lib.nn.Buffer),
                              b.tolist(), list(m.state_dict()))
    assert seen["glassgrad"] == seen["torch"] == (False, "Tensor", True, False, [0.0, 2.0, 0.0], ["b"])


def test_deepcopy_keeps_the_mark_and_sharing():
    import copy
    m, t = nn.Module(), gg.ones(2)
    m.b = nn.Buffer(t, persistent=False)
    m.register_buffer("same", m.b)
    c = copy.deepcopy(m)
    assert isinstance(c.b, nn.Buffer) and not c.b.persistent and c.same is c.b and c.b.data_ptr() != t.data_ptr()
    assert c.b.tolist() == [1.0, 1.0] and list(c.state_dict()) == ["same"]
