"""torch.utils.swap_tensors and set_module: the two tensors exchange content (data, dtype, class,
grad, requires_grad) and keep their identities, so a module's parameter object takes the new
values; PyTorch's refusals (a weak reference, classes of different slots); set_module's
TypeError; and the same outcomes as PyTorch's (docs/porting.md)."""
import weakref

import numpy as np
import pytest

import glassgrad as gg


def test_contents_swap_and_identities_stay():
    a = gg.nn.Parameter(gg.tensor([1.0, 2.0]))
    b = gg.tensor([3.0, 4.0, 5.0], dtype=gg.float64)
    (a * 2).sum().backward()
    ida, idb = id(a), id(b)
    gg.utils.swap_tensors(a, b)
    assert (id(a), id(b)) == (ida, idb)
    assert type(a) is gg.Tensor and type(b) is gg.nn.Parameter
    assert a.tolist() == [3.0, 4.0, 5.0] and a.dtype == gg.float64 and a.grad is None and not a.requires_grad
    assert b.tolist() == [1.0, 2.0] and b.requires_grad and b.grad.tolist() == [2.0, 2.0]


def test_a_modules_parameter_object_takes_the_new_values():
    layer = gg.nn.Linear(2, 2)
    weight = layer.weight
    gg.utils.swap_tensors(layer.weight, gg.nn.Parameter(gg.zeros(2, 2)))
    assert layer.weight is weight and layer.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(layer(gg.ones(1, 2)).detach().numpy(), layer.bias.detach().numpy()[None])
    opt = gg.optim.SGD(layer.parameters(), lr=1.0)
    layer(gg.ones(1, 2)).sum().backward()
    opt.step()
    assert layer.weight.tolist() == [[-1.0, -1.0], [-1.0, -1.0]]


def test_refusals():
    c, d = gg.ones(1), gg.ones(1)
    ref = weakref.ref(c)
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref"):
        gg.utils.swap_tensors(c, d)
    with pytest.raises(RuntimeError, match="Cannot swap t2 because it has weakref"):
        gg.utils.swap_tensors(d, c)
    del ref

    class WithDict(gg.Tensor):
        pass
    plain, sub = gg.ones(1), WithDict(gg.zeros(1))
    plain.tag = "plain"
    gg.utils.swap_tensors(plain, sub)  # every tensor has a __dict__, as in PyTorch: classes and attributes swap
    assert type(plain) is WithDict and type(sub) is gg.Tensor and sub.tag == "plain" and not hasattr(plain, "tag")
    x, y = WithDict(gg.ones(1)), WithDict(gg.zeros(2))
    x.tag = "x"
    gg.utils.swap_tensors(x, y)  # two of the same subclass: their attributes swap too
    assert y.tag == "x" and not hasattr(x, "tag") and x.tolist() == [0.0, 0.0]

    class Slotted(gg.Tensor):
        __slots__ = ("extra",)
    with pytest.raises(RuntimeError, match="different slots"):
        gg.utils.swap_tensors(gg.ones(1), Slotted(gg.ones(1)))
    with pytest.raises(TypeError):
        gg.utils.swap_tensors(gg.ones(1), [1.0])


def test_set_module():
    def f():
        pass
    gg.utils.set_module(f, "pkg.mod")
    assert f.__module__ == "pkg.mod"
    with pytest.raises(TypeError, match="The mod argument should be a string"):
        gg.utils.set_module(f, 3)


def test_as_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, gg):
        a = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        b = lib.tensor([3.0, 4.0, 5.0])
        lib.utils.swap_tensors(a, b)
        results.append((type(a).__name__, a.tolist(), a.requires_grad, type(b).__name__, b.tolist(), b.requires_grad))
    assert results[0] == results[1]
