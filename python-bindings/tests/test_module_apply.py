"""Module._apply(fn, recurse=True), PyTorch's path for converting a model's tensors: fn reaches
every parameter, buffer and gradient (children first), the objects are kept, and a model that
overrides _apply to convert tensors of its own (a detection head's anchor grid) has it called by
to(), double(), half(), float(), cpu() and type(), as PyTorch's conversions all go through it."""
import numpy as np
import pytest

import glassgrad as gg


def _head(nn, lib):
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 1)
            self.grid = lib.zeros(2, 2)

        def _apply(self, fn):
            self = super()._apply(fn)
            self.grid = fn(self.grid)
            return self

    return Head()


def test_an_overridden_apply_runs_for_every_conversion():
    m = gg.nn.Sequential(_head(gg.nn, gg), gg.nn.BatchNorm1d(2))
    w = m[0].conv.weight
    m[0].conv(gg.ones(1, 1, 2, 2)).sum().backward()
    assert m.double() is m
    assert m[0].grid.dtype == m[0].conv.weight.dtype == m[0].conv.weight.grad.dtype == gg.float64
    assert m[0].conv.weight is w and m[1].num_batches_tracked.dtype == gg.int64
    m.to(gg.float32)
    assert m[0].grid.dtype == gg.float32
    m.half()
    assert m[0].grid.dtype == gg.float16 and m[1].running_var.dtype == gg.float16
    m.type(gg.float64)
    assert m[0].grid.dtype == gg.float64 and m[1].num_batches_tracked.dtype == gg.float64  # type() converts all
    m.cpu()
    assert m[0].grid.device.type == "cpu"


def test_apply_reaches_every_tensor_children_first_and_keeps_the_objects():
    m = gg.nn.Sequential(gg.nn.Linear(2, 2), gg.nn.BatchNorm1d(2))
    m[0](gg.ones(1, 2)).sum().backward()
    seen = []
    m._apply(lambda t: (seen.append(tuple(t.shape)), t)[1])
    assert seen == [(2, 2), (2, 2), (2,), (2,), (2,), (2,), (2,), (2,), ()]  # PyTorch's order
    w = m[0].weight
    assert m._apply(lambda t: t * 0) is m and m[0].weight is w
    assert type(w) is gg.nn.Parameter and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(m[1].running_var.numpy(), np.zeros(2, np.float32))


def test_apply_without_recursion_leaves_the_children():
    m = gg.nn.Sequential(gg.nn.Linear(2, 2))
    m.register_buffer("b", gg.ones(2))
    m._apply(lambda t: t.double(), recurse=False)
    assert m.b.dtype == gg.float64 and m[0].weight.dtype == gg.float32


def test_fn_must_return_tensors():
    with pytest.raises(TypeError, match="fn returned a int"):
        gg.nn.Linear(1, 1)._apply(lambda t: 3)


def test_as_torch():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, gg):
        m = lib.nn.Sequential(_head(lib.nn, lib))
        m.double()
        seen[lib.__name__] = str(m[0].grid.dtype).split(".")[-1]
    assert seen["glassgrad"] == seen["torch"] == "float64"
