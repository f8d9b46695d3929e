"""Gradients where a function is not differentiable, as PyTorch 2 gives them (docs/autograd.md,
"Gradients at ties and bounds"): clamp with number bounds passes the gradient strictly inside
(0 at a bound); with tensor bounds a tie splits it evenly, min == max == x gives it all to x; fmax
and fmin split a tie as maximum and minimum do; atan2 at (0, 0) gives 0 to both. Expected values
written from PyTorch 2's results; the torch comparison runs where PyTorch is installed."""
import itertools
import math

import numpy as np
import pytest

import glassgrad as gg

NAN = math.nan


def _grads(lib, f, *values):
    ts = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    f(lib, *ts).sum().backward()
    return [t.grad.numpy().tolist() for t in ts]


_X = [0.0, 1.0, 0.5, -1.0, 2.0]
# (x, lo, hi) over {0, 1, 2, NaN}^3 for clamp with tensor bounds
_TRIPLES = list(itertools.product([0.0, 1.0, 2.0, NAN], repeat=3))

_CASES = {
    "clamp(0, 1)": (lambda L, x: x.clamp(0.0, 1.0), [_X], [[0.0, 0.0, 1.0, 0.0, 0.0]]),
    "clamp(min=0)": (lambda L, x: x.clamp(min=0.0), [_X], [[0.0, 1.0, 1.0, 0.0, 1.0]]),
    "clamp_max(1)": (lambda L, x: x.clamp_max(1.0), [_X], [[1.0, 0.0, 1.0, 1.0, 0.0]]),
    "clamp(2, 1)": (lambda L, x: x.clamp(2.0, 1.0), [_X], [[0.0] * 5]),
    "clamp(0, 1) NaN": (lambda L, x: x.clamp(0.0, 1.0), [[NAN]], [[0.0]]),
    "clamp(min=t)": (lambda L, x, lo: x.clamp(min=lo), [[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 3.0, 2.0]],
                     [[0.5, 0.5, 0.0, 1.0], [0.5, 0.5, 1.0, 0.0]]),
    "clamp(max=t)": (lambda L, x, hi: x.clamp(max=hi), [[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 3.0, 2.0]],
                     [[0.5, 0.5, 1.0, 0.0], [0.5, 0.5, 0.0, 1.0]]),
    "clamp(t, t)": (lambda L, x, lo, hi: x.clamp(lo, hi),
                    [[0.0, 1.0, 2.0, 1.0, 0.0, 2.0], [0.0, 1.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 2.0, 0.0, 1.0, 1.0]],
                    [[0.5, 1.0, 0.5, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.5, 1.0, 0.0, 1.0]]),
    "clamp(t, t) NaN": (lambda L, x, lo, hi: x.clamp(lo, hi),
                        [[NAN, 0.0, 0.0, 1.0], [0.0, 0.0, NAN, NAN], [1.0, NAN, 1.0, 0.0]],
                        [[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    "clamp_min(t)": (lambda L, x, lo: x.clamp_min(lo), [[0.0, 1.0], [0.0, 2.0]], [[0.5, 0.0], [0.5, 1.0]]),
    "fmax": (lambda L, a, b: L.fmax(a, b), [[1.0, 2.0], [1.0, 3.0]], [[0.5, 0.0], [0.5, 1.0]]),
    "fmin": (lambda L, a, b: L.fmin(a, b), [[1.0, 2.0], [1.0, 3.0]], [[0.5, 1.0], [0.5, 0.0]]),
    "atan2 at 0": (lambda L, y, x: L.atan2(y, x), [[0.0, 1.0, 0.0], [0.0, 0.0, -1.0]],
                   [[0.0, 0.0, -1.0], [0.0, -1.0, 0.0]]),
    "max() ties": (lambda L, x: x.max(), [[1.0, 3.0, 3.0, 2.0]], [[0.0, 0.5, 0.5, 0.0]]),
    "amax ties": (lambda L, x: x.amax(), [[1.0, 3.0, 3.0, 3.0]], [[0.0, 1 / 3, 1 / 3, 1 / 3]]),
    "amin(0) ties": (lambda L, x: x.amin(0), [[[1.0, 3.0], [1.0, 2.0]]], [[[0.5, 0.0], [0.5, 1.0]]]),
    "x ** 0": (lambda L, x: x ** 0, [[0.0, 2.0]], [[0.0, 0.0]]),
    "abs at 0": (lambda L, x: x.abs(), [[0.0, -1.0]], [[0.0, -1.0]]),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_gradient_as_pytorchs(name):
    f, values, expected = _CASES[name]
    got = _grads(gg, f, *values)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.array(g), np.array(e), rtol=1e-12, atol=0)


def test_clamp_values_unchanged():
    x = gg.tensor([0.0, 1.0, 0.5, -1.0, 2.0, NAN], requires_grad=True)
    np.testing.assert_array_equal(x.clamp(0.0, 1.0).detach().numpy(), [0.0, 1.0, 0.5, 0.0, 1.0, NAN])
    lo, hi = gg.tensor([0.0, 1.0, 1.0, 0.0, 3.0, 0.0]), gg.tensor([1.0, 1.0, 0.0, NAN, 4.0, 1.0])
    np.testing.assert_array_equal(x.clamp(lo, hi).detach().numpy(), [0.0, 1.0, 0.0, NAN, 3.0, NAN])
    assert gg.atan2(gg.tensor(-0.0, dtype=gg.float64, requires_grad=True), gg.tensor(-0.0, dtype=gg.float64)).item() == -math.pi


def test_clamp_nodes_list_pytorchs_operands():
    x = gg.tensor([0.0, 1.0], requires_grad=True)
    lo = gg.tensor([0.0, 2.0], requires_grad=True)
    names = [[type(n).__name__ for n, _ in t.grad_fn.next_functions]
             for t in (x.clamp(0.0, 1.0), x.clamp(lo), x.clamp(max=lo), x.clamp_min(lo), gg.atan2(x, lo))]
    assert names == [["AccumulateGrad"], ["AccumulateGrad", "AccumulateGrad", "NoneType"],
                     ["AccumulateGrad", "NoneType", "AccumulateGrad"], ["AccumulateGrad", "AccumulateGrad"],
                     ["AccumulateGrad", "AccumulateGrad"]]


@pytest.mark.parametrize("name", list(_CASES))
def test_gradient_matches_torch(name):
    torch = pytest.importorskip("torch")
    f, values, _ = _CASES[name]
    for g, t in zip(_grads(gg, f, *values), _grads(torch, f, *values)):
        np.testing.assert_allclose(np.array(g), np.array(t), rtol=1e-12, atol=0)


@pytest.mark.parametrize("which", ["both", "min", "max"])
def test_clamp_tensor_bounds_over_every_order_match_torch(which):
    torch = pytest.importorskip("torch")
    x, lo, hi = (list(c) for c in zip(*_TRIPLES))
    # a NaN x with lo > hi: PyTorch's gradient reaches x and hi both; glassgrad's hi alone
    keep = [i for i, (a, b, c) in enumerate(_TRIPLES) if not (math.isnan(a) and b > c)]
    x, lo, hi = ([v[i] for i in keep] for v in (x, lo, hi))
    f, values = {"both": (lambda L, x, lo, hi: x.clamp(lo, hi), [x, lo, hi]),
                 "min": (lambda L, x, lo: x.clamp(min=lo), [x, lo]),
                 "max": (lambda L, x, hi: x.clamp(max=hi), [x, hi])}[which]
    for g, t in zip(_grads(gg, f, *values), _grads(torch, f, *values)):
        np.testing.assert_array_equal(np.array(g), np.array(t))


def test_logaddexp_at_equal_infinities_has_pytorchs_nan_gradient():
    inf = math.inf
    a = gg.tensor([-inf, inf, -inf, 1.0], requires_grad=True)
    b = gg.tensor([-inf, inf, 1.0, 1.0], requires_grad=True)
    out = gg.logaddexp(a, b)
    np.testing.assert_array_equal(out.detach().numpy(), np.array([-inf, inf, 1.0, 1.0 + math.log(2)], np.float32))
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [NAN, NAN, 0.0, 0.5])
    np.testing.assert_array_equal(b.grad.numpy(), [NAN, NAN, 1.0, 0.5])
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]


def test_xlogy_at_zero_has_pytorchs_gradients():
    inf = math.inf
    x = gg.tensor([0.0, 0.0, 0.0, 1.0, 2.0, 0.0], dtype=gg.float64, requires_grad=True)
    y = gg.tensor([0.0, -1.0, inf, 0.0, 3.0, 1.0], dtype=gg.float64, requires_grad=True)
    out = gg.xlogy(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [0.0, 0.0, 0.0, -inf, 2 * math.log(3), 0.0])
    out.sum().backward()
    # d/dx = log(y), 0 where x == 0 and y <= 0; d/dy = x / y (NaN at 0 / 0)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, inf, -inf, math.log(3), 0.0])
    np.testing.assert_array_equal(y.grad.numpy(), [NAN, 0.0, 0.0, inf, 2 / 3, 0.0])
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]


def test_xlogy_matches_torch():
    torch = pytest.importorskip("torch")
    xs, ys = [0.0, 0.0, 0.0, 1.0, 0.0, 2.0, -1.0, 1.0], [0.0, -1.0, math.inf, 0.0, NAN, 3.0, math.inf, -1.0]
    for g, t in zip(_grads(gg, lambda L, x, y: L.xlogy(x, y), xs, ys), _grads(torch, lambda L, x, y: L.xlogy(x, y), xs, ys)):
        np.testing.assert_array_equal(np.array(g), np.array(t))
