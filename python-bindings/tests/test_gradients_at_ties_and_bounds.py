"""Gradients where a function is not differentiable, as PyTorch gives them in the reference
versions 2.11 to 2.13 (docs/autograd.md, "Gradients at ties and bounds"): clamp passes the gradient
at its bounds (PyTorch's derivatives give the subgradient 1 there), fmax and fmin give a tie to their
first operand, atan2 at (0, 0) gives 0 to both; logaddexp and xlogy at their singular points. The expected
values are the reference's results; the torch comparisons run where PyTorch is installed, and those
of the rows PyTorch 2.14 changed (torch_versions.py) only under the reference versions."""
import math
import os
import sys

import numpy as np
import pytest

import glassgrad as gg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_versions import skip_if_changed_in_2_14

NAN = math.nan


def _grads(lib, f, *values):
    ts = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    f(lib, *ts).sum().backward()
    return [t.grad.numpy().tolist() for t in ts]


_X = [0.0, 1.0, 0.5, -1.0, 2.0]

_CASES = {
    "clamp(0, 1)": (lambda L, x: x.clamp(0.0, 1.0), [_X], [[1.0, 1.0, 1.0, 0.0, 0.0]]),
    "clamp(min=0)": (lambda L, x: x.clamp(min=0.0), [_X], [[1.0, 1.0, 1.0, 0.0, 1.0]]),
    "clamp_max(1)": (lambda L, x: x.clamp_max(1.0), [_X], [[1.0, 1.0, 1.0, 1.0, 0.0]]),
    "clamp(x, lo, hi)": (lambda L, x, lo, hi: L.clamp(x, lo, hi),
                         [[0.0, 1.0, 2.0, 5.0], [0.0, 1.5, 2.0, 0.0], [1.0, 3.0, 3.0, 4.0]],
                         [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
    "fmax": (lambda L, a, b: L.fmax(a, b), [[1.0, 2.0, NAN], [1.0, 1.0, 1.0]], [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "fmin": (lambda L, a, b: L.fmin(a, b), [[1.0, 2.0, 1.0], [1.0, 1.0, NAN]], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [[0.0, 1.0], [0.0, 1.0]], [[0.0, 0.5], [0.0, -0.5]]),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_gradient_as_the_reference_pytorch(name):
    f, values, want = _CASES[name]
    np.testing.assert_array_equal(np.array(_grads(gg, f, *values)), np.array(want))


@pytest.mark.parametrize("name", list(_CASES))
def test_gradient_matches_torch(name):
    torch = pytest.importorskip("torch")
    if name != "atan2":
        skip_if_changed_in_2_14(torch, "the gradient at clamp's bounds and fmax/fmin ties")
    f, values, _ = _CASES[name]
    np.testing.assert_array_equal(np.array(_grads(gg, f, *values)), np.array(_grads(torch, f, *values)))


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
