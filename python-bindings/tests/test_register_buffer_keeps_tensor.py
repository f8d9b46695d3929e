"""register_buffer(name, t) keeps t itself as the buffer, as PyTorch's does: module.name is t, a
write into t after registering is a write into the buffer, and the module's in-place updates
(BatchNorm's running statistics) are seen through t. NumPy arrays, views of another tensor and
tensors that require gradients are still copied."""
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


@pytest.mark.parametrize("kind", ["numpy", "view", "requires_grad"])
def test_what_is_still_copied(kind):
    base = gg.arange(4.0)
    value = {"numpy": np.arange(4.0, dtype=np.float32), "view": base[1:],
             "requires_grad": gg.ones(2, requires_grad=True)}[kind]
    m = gg.nn.Module()
    m.register_buffer("b", value)
    assert m.b is not value and not m.b.requires_grad
    np.testing.assert_array_equal(m.b.numpy(), np.asarray(value.detach().numpy() if kind != "numpy" else value))


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
