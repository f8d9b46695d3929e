"""Writes PyTorch counts without an op of their own, as PyTorch counts them: after
autograd.graph.increment_version(t) a backward through what was saved before raises PyTorch's
error while t's later uses differentiate (before, every later use of t raised too); a custom
Function's dirty input counts one more version than forward's writes, keeping its grad_fn and
gradient (docs/inplace-and-views.md)."""
import numpy as np
import pytest

import glassgrad as gg

_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _after_increment(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    before = b * b
    lib.autograd.graph.increment_version(b)
    after = (b * b).sum()
    after.backward()
    return b._version, b.grad_fn.name(), b.tolist(), a.grad.tolist(), before


def test_increment_version_refuses_only_what_was_saved_before():
    version, node, values, grad, before = _after_increment(gg)
    assert (version, node, values, grad) == (1, "MulBackward0", [1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    with pytest.raises(RuntimeError, match=f"^{_MODIFIED}"):
        before.sum().backward()


def test_increment_version_of_a_leaf_and_of_a_list():
    w = gg.ones(2, requires_grad=True)
    saved = w * w
    v = gg.zeros(2)
    gg.autograd.graph.increment_version([w, v])
    assert (w._version, v._version, w.is_leaf, w.grad_fn) == (1, 1, True, None)
    (w * w).sum().backward()  # saves w as it is now
    assert w.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=f"^{_MODIFIED}"):
        saved.sum().backward()


def _dirty(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    w = lib.tensor([1.0, 3.0], requires_grad=True)
    x = w * 1
    out = Double.apply(x)
    (out * out).sum().backward()
    return out is x, x._version, out.grad_fn.name(), out.tolist(), w.grad.tolist()


def test_a_dirty_input_counts_one_more_version():
    assert _dirty(gg) == (True, 2, "DoubleBackward", [2.0, 6.0], [8.0, 24.0])


def test_as_torch():
    torch = pytest.importorskip("torch")
    assert _dirty(gg) == _dirty(torch)
    assert _after_increment(gg)[:4] == _after_increment(torch)[:4]
    np.testing.assert_allclose(_after_increment(gg)[3], _after_increment(torch)[3])
