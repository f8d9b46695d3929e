"""Module.half() / double() / float() / to(dtype) / to(device) / type() / _apply give each converted
buffer a new tensor and leave the tensor the caller registered as it was, as PyTorch's _apply
(`_buffers[key] = fn(buf)`); parameters keep their objects (`param.data = fn(param)`)."""
import numpy as np
import pytest

import glassgrad as gg


def _module_with_buffer():
    m = gg.nn.Linear(2, 2)
    t = gg.tensor(np.array([1.5, -2.0, 3.25], np.float32))
    m.register_buffer("b", t)
    return m, t


@pytest.mark.parametrize("convert, dtype", [
    (lambda m: m.double(), gg.float64),
    (lambda m: m.half(), gg.float16),
    (lambda m: m.bfloat16(), gg.bfloat16),
    (lambda m: m.to(gg.float64), gg.float64),
    (lambda m: m.to("cpu", gg.float64), gg.float64),
    (lambda m: m.type(gg.float64), gg.float64),
    (lambda m: m._apply(lambda t: t.double()), gg.float64),
])
def test_the_registered_tensor_keeps_its_dtype(convert, dtype):
    m, t = _module_with_buffer()
    weight = m.weight
    assert convert(m) is m
    assert t.dtype == gg.float32 and t.tolist() == [1.5, -2.0, 3.25]
    assert m.b is not t and m.b.dtype == dtype and m.b.float().tolist() == [1.5, -2.0, 3.25]
    assert m.weight is weight and weight.dtype == dtype  # a parameter keeps its object
    assert m.state_dict()["b"].dtype == dtype


def test_an_overridden_apply_leaves_the_registered_tensor():
    class Head(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("grid", gg.zeros(2))

        def _apply(self, fn, recurse=True):
            return super()._apply(fn, recurse)

    head = Head()
    grid = head.grid
    head.double()
    assert grid.dtype == gg.float32 and head.grid.dtype == gg.float64


def test_a_buffer_shared_by_two_modules_stays_shared():
    t = gg.ones(2)
    a, b = gg.nn.Module(), gg.nn.Module()
    a.register_buffer("x", t)
    b.register_buffer("x", t)
    root = gg.nn.Sequential(a, b).double()
    assert t.dtype == gg.float32 and root[0].x is root[1].x and root[0].x.dtype == gg.float64


def test_running_statistics_go_to_the_converted_buffers():
    bn = gg.nn.BatchNorm1d(2)
    old = bn.running_mean
    bn.double()
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    bn(gg.tensor(x))
    assert bn.running_mean is not old and old.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(0), rtol=1e-12)


def test_the_same_dtype_keeps_the_registered_tensor():
    m, t = _module_with_buffer()
    m.float()
    m.to("cpu")
    assert m.b is t


def test_pytorch_leaves_the_registered_tensor():
    torch = pytest.importorskip("torch")
    m, t = torch.nn.Linear(2, 2), torch.ones(3)
    m.register_buffer("b", t)
    m.double()
    assert t.dtype == torch.float32 and m.b is not t and m.b.dtype == torch.float64


@pytest.mark.parametrize("convert", [lambda m: m.double(), lambda m: m.type(gg.float64),
                                     lambda m: m._apply(lambda t: t.double())])
def test_a_buffer_that_requires_grad_converts(convert):
    m = gg.nn.Linear(3, 1)
    m.b = gg.nn.Buffer(gg.ones(3))
    m.b.requires_grad_()
    m(gg.ones(2, 3) * m.b).sum().backward()
    old = m.b
    convert(m)
    assert m.b.dtype == gg.float64 and m.b.requires_grad and m.b.grad is None
    assert old.grad is not None and old.grad.dtype == gg.float32
    assert m.weight.grad.dtype == gg.float64  # a parameter's gradient goes along
