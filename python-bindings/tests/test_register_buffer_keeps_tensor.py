"""register_buffer(name, t) keeps t itself as the buffer, as PyTorch's does: module.name is t, a
write into t after registering is a write into the buffer, and the module's in-place updates
(BatchNorm's running statistics) are seen through t. Views of another tensor, tensors that
require gradients and Parameters are kept too (writes through a view's base are seen by the
buffer, load_state_dict writes into the base); NumPy arrays become a tensor of their values."""
import copy

import numpy as np
import pytest

import glassgrad as gg


def test_the_buffer_is_the_registered_tensor():
    m = gg.nn.Module()
    t = gg.zeros(3)
    m.register_buffer("b", t)
    assert m.b is t and m.get_buffer("b") is t and m.state_dict()["b"].data_ptr() == t.data_ptr()
    with gg.no_grad():
        t[0] = 5.0  # after registering, as PyTorch's positional-encoding code writes it
    assert m.b.tolist() == [5.0, 0.0, 0.0] and m.state_dict()["b"].tolist() == [5.0, 0.0, 0.0]


def test_module_updates_reach_the_registered_tensor():
    bn = gg.nn.BatchNorm1d(2)
    rm, count = gg.zeros(2), gg.tensor(np.array(0, np.int64))
    bn.register_buffer("running_mean", rm)
    bn.register_buffer("num_batches_tracked", count)
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    bn(gg.tensor(x))
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.mean(0), rtol=1e-6)
    assert int(count.item()) == 1


def test_one_tensor_registered_in_two_modules_is_shared():
    t = gg.ones(2)
    a, b = gg.nn.Module(), gg.nn.Module()
    a.register_buffer("s", t)
    b.register_buffer("s", t)
    with gg.no_grad():
        a.s.mul_(3.0)
    assert a.s is b.s is t and b.s.tolist() == [3.0, 3.0]


def test_a_numpy_array_is_copied():
    value = np.arange(4.0, dtype=np.float32)
    m = gg.nn.Module()
    m.register_buffer("b", value)
    value[0] = 9.0
    assert isinstance(m.b, gg.Tensor) and not m.b.requires_grad and m.b.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("make", [lambda b: b[::2], lambda b: b.view(2, 3).t(), lambda b: b[1:]])
def test_a_view_is_kept_and_shares_its_base(make):
    base = gg.arange(6.0)
    view = make(base)
    m = gg.nn.Module()
    m.register_buffer("b", view)
    assert m.b is view and m.get_buffer("b") is view
    with gg.no_grad():
        base.add_(10.0)  # a write to the base is seen through the buffer
        m.b.mul_(2.0)  # and a write to the buffer reaches the base
    expected = (np.arange(6.0) + 10.0)
    picked = make(gg.tensor(np.arange(6.0))).numpy().astype(np.int64)  # which base elements the view holds
    expected[picked.ravel()] *= 2.0
    np.testing.assert_array_equal(base.numpy(), expected)
    np.testing.assert_array_equal(m.b.numpy(), expected[picked])


def test_load_state_dict_writes_into_a_view_buffer_base():
    base = gg.zeros(6)
    m = gg.nn.Module()
    m.register_buffer("b", base[::2])
    m.load_state_dict({"b": gg.tensor([1.0, 2.0, 3.0])})
    assert base.tolist() == [1.0, 0.0, 2.0, 0.0, 3.0, 0.0] and m.b.tolist() == [1.0, 2.0, 3.0]


def test_a_tensor_requiring_gradients_is_kept():
    x = gg.ones(2, requires_grad=True)
    m = gg.nn.Module()
    m.register_buffer("g", x)
    assert m.g is x and x.requires_grad and m.g.requires_grad
    assert not m.state_dict()["g"].requires_grad and m.state_dict(keep_vars=True)["g"] is x
    c = copy.deepcopy(m)
    assert c.g is not x and c.g.requires_grad and c.g.tolist() == [1.0, 1.0]
    m.load_state_dict({"g": gg.full((2,), 3.0)})
    assert x.tolist() == [3.0, 3.0] and x.requires_grad


def test_a_parameter_is_kept_as_a_buffer():
    p = gg.nn.Parameter(gg.ones(2))
    m = gg.nn.Module()
    m.register_buffer("p", p)
    assert m.p is p and list(m.parameters()) == [] and [n for n, _ in m.named_buffers()] == ["p"]


def test_an_nn_buffer_of_a_view_is_kept_and_shares_memory():
    base = gg.arange(4.0)
    b = gg.nn.Buffer(base[1:])
    m = gg.nn.Module()
    m.v = b
    with gg.no_grad():
        base[1] = -1.0
    assert m.v is b and m.v.tolist() == [-1.0, 2.0, 3.0]


def test_views_and_graph_tensors_as_torch():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, gg):
        base, x = lib.arange(6.0), lib.ones(2, requires_grad=True)
        m = lib.nn.Module()
        m.register_buffer("v", base[::2])
        m.register_buffer("g", x)
        with lib.no_grad():
            base[2] = 7.0
        seen[lib.__name__] = (m.g is x, m.g.requires_grad, m.v.tolist())
    assert seen["glassgrad"] == seen["torch"] == (True, True, [0.0, 7.0, 4.0])


def test_as_torch():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, gg):
        m, t = lib.nn.Module(), lib.zeros(3)
        m.register_buffer("b", t)
        with lib.no_grad():
            t[1] = 2.0
        seen[lib.__name__] = (m.b is t, m.b.tolist())
    assert seen["glassgrad"] == seen["torch"] == (True, [0.0, 2.0, 0.0])
