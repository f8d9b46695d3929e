"""Tensor hooks and in-place writes on views, as PyTorch: a hook registered on a view that is
then written in place never runs (PyTorch's hook sits on the view's old grad_fn, which the write
replaces); one registered after the write runs; a non-view tensor written in place keeps its
hook, which gets the gradient of the value before the write. The expected numbers are
PyTorch's."""
import pytest

import glassgrad as gg


def _view_of_computed():
    leaf = gg.ones(4, requires_grad=True)
    base = leaf * 1
    return leaf, base, base[1:3]


def test_a_hook_on_a_view_written_in_place_does_not_run():
    leaf, base, v = _view_of_computed()
    seen = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    v.mul_(3)
    (v * gg.tensor([1.0, 10.0])).sum().backward()
    assert seen == [] and leaf.grad.tolist() == [0.0, 3.0, 30.0, 0.0]


def test_a_hook_on_a_view_whose_base_is_written_does_not_run():
    leaf, base, v = _view_of_computed()
    seen = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    base.mul_(2)
    ((v * gg.tensor([1.0, 10.0])).sum() + (base * gg.arange(4.0)).sum()).backward()
    assert seen == [] and leaf.grad.tolist() == [0.0, 4.0, 24.0, 6.0]


def test_a_hook_registered_after_the_write_runs():
    leaf, base, v = _view_of_computed()
    v.mul_(3)
    seen = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    (v * gg.tensor([1.0, 10.0])).sum().backward()
    assert seen == [[1.0, 10.0]] and leaf.grad.tolist() == [0.0, 3.0, 30.0, 0.0]


def test_a_non_view_keeps_its_hook_with_the_gradient_of_the_old_value():
    leaf = gg.ones(2, requires_grad=True)
    t = leaf * 1
    seen = []
    t.register_hook(lambda g: seen.append(g.tolist()))
    t.mul_(3)
    (t * gg.tensor([1.0, 10.0])).sum().backward()
    assert seen == [[3.0, 30.0]] and leaf.grad.tolist() == [3.0, 30.0]


def test_as_torch():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (torch, gg):
        leaf = lib.ones(4, requires_grad=True)
        base = leaf * 1
        v = base[1:3]
        seen = []
        v.register_hook(lambda g, seen=seen: seen.append(g.tolist()))
        v.mul_(3)
        (base * lib.arange(4.0)).sum().backward()
        out.append((seen, leaf.grad.tolist()))
    assert out[0] == out[1]
