"""Two in-place cases where a gradient used to be lost without a word (docs/inplace-and-views.md,
"Leaves that are views" and "Writing into a detached alias"), each against PyTorch:
- a leaf made from a view (`randn(54).view(9, 6)` then `requires_grad = True`) keeps its gradient
  and requires_grad across in-place updates of its storage (`W.data -= lr * W.grad`, or under
  no_grad), and refuses in-place ops outside no_grad as a leaf does;
- a detached alias (`x.detach()`, `x.data`, `Variable(x)`) written in place with a value that
  requires grad joins the graph (CopySlices), while the tensor it was detached from does not."""
import numpy as np
import pytest

import glassgrad.torch as gt
from glassgrad.autograd import Variable

torch = pytest.importorskip("torch")

W0 = np.random.default_rng(0).standard_normal(54).astype(np.float32)
X = np.random.default_rng(1).standard_normal((4, 9)).astype(np.float32)


def _train_view_leaf(lib, update):
    """Three steps of a hand-written layer whose weight is a view made a leaf."""
    W = lib.tensor(W0).view(9, 6)
    W.requires_grad = True
    x = lib.tensor(X)
    seen = []
    for _ in range(3):
        loss = (x @ W).tanh().pow(2).sum()
        loss.backward()
        seen.append((W.requires_grad, W.is_leaf, W.grad is None, float(W.grad.sum())))
        if update == "data":
            W.data -= 0.1 * W.grad
        elif update == "data_add_":
            W.data.add_(W.grad, alpha=-0.1)
        else:
            with lib.no_grad():
                W -= 0.1 * W.grad
        W.grad = None
    return seen, W.detach().numpy()


@pytest.mark.parametrize("update", ["data", "data_add_", "no_grad"])
def test_a_leaf_made_from_a_view_keeps_its_gradient_across_updates(update):
    got, got_w = _train_view_leaf(gt, update)
    want, want_w = _train_view_leaf(torch, update)
    assert [s[:3] for s in got] == [s[:3] for s in want] == [(True, True, False)] * 3
    np.testing.assert_allclose([s[3] for s in got], [s[3] for s in want], rtol=1e-5)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)


def test_a_leaf_made_from_a_view_refuses_in_place_ops_outside_no_grad():
    for lib in (gt, torch):
        W = lib.tensor(W0).view(9, 6)
        W.requires_grad = True
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            W.add_(1)


def _detached_writes(lib, how):
    w = lib.tensor([1.0, 2.0, -0.5], requires_grad=True)
    x = lib.zeros(4)
    if how == "detach":
        d = x.detach()
    elif how == "data":
        d = x.data
    else:
        d = Variable(x) if lib is gt else torch.autograd.Variable(x)
    for i in range(4):  # the seq2seq attention pattern: scores written one by one
        d[i] = (w * (i + 1)).sum() * w[i % 3]
    d.add_(w.sum())
    flags = (d.requires_grad, d.is_leaf, type(d.grad_fn).__name__ if lib is torch else d.grad_fn.name(),
             x.requires_grad)
    (d.softmax(0) * lib.tensor([1.0, -2.0, 3.0, 0.5])).sum().backward()
    return flags, d.detach().numpy(), x.numpy(), w.grad.numpy()


@pytest.mark.parametrize("how", ["detach", "data", "Variable"])
def test_a_detached_alias_written_with_a_value_that_requires_grad_joins_the_graph(how):
    got = _detached_writes(gt, how)
    want = _detached_writes(torch, how)
    assert got[0][:2] == want[0][:2] == (True, False)
    assert got[0][3] is want[0][3] is False  # the tensor it was detached from stays out of the graph
    assert want[0][2] in ("AddBackward0", "CopySlices") and got[0][2] in ("AddBackward0", "CopySlices")
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_detached_alias_of_a_parameter_written_under_no_grad_changes_it_without_a_graph():
    p = gt.nn.Parameter(gt.ones(3))
    with gt.no_grad():
        p.detach().mul_(2)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    np.testing.assert_array_equal(p.detach().numpy(), [2, 2, 2])
    d = p.data
    d.copy_(gt.tensor([1.0, 2.0, 3.0]))  # a value without gradient: the alias stays a plain tensor
    assert not d.requires_grad
    np.testing.assert_array_equal(p.detach().numpy(), [1, 2, 3])


def _write_then_backward(lib, how, realize):
    """A graph recorded before a write through x.data (Dive-into-DL-PyTorch's autograd lesson):
    the leaf keeps receiving that graph's gradient, whatever was computed in between. (A graph
    that saved x itself differs: PyTorch's backward reads the written values through the saved
    alias, glassgrad's the values x had when recorded; docs/inplace-and-views.md.)"""
    x = lib.ones(2, requires_grad=True)
    hooked = []
    x.register_hook(lambda g: hooked.append(g.detach().numpy().copy()))
    y = (2 * x).sum() + (x * lib.tensor([5.0, -1.0])).sum()  # saves no value of x (see below)
    if how == "mul_":
        x.data.mul_(100)
    elif how == "imul":
        x.data *= 100
    else:
        x.data.copy_(lib.tensor([3.0, 4.0]))
    if realize == "x":
        str(x)
    elif realize == "y":
        y.item()
    elif realize == "data":
        x.data.sum().item()
    y.backward()
    first = x.grad.numpy().copy()
    (x * x).sum().backward()  # a graph after the write: its value, accumulated
    return first, x.grad.numpy().copy(), x.detach().numpy().copy(), x.is_leaf, [h.tolist() for h in hooked]


@pytest.mark.parametrize("realize", ["none", "x", "y", "data"])
@pytest.mark.parametrize("how", ["mul_", "imul", "copy_"])
def test_a_graph_recorded_before_a_data_write_still_reaches_the_leaf(how, realize):
    ours = _write_then_backward(gt, how, realize)
    theirs = _write_then_backward(torch, how, realize)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)
