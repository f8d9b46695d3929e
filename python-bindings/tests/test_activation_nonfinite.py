"""Activations at NaN and infinity as PyTorch's kernels give them: hardshrink and softshrink test the
dead zone -lambd <= x <= lambd (so NaN stays NaN, with gradient 1), softshrink's dead zone is x * 0
(-0.5 gives -0.0), threshold tests x <= threshold (NaN stays NaN), logsigmoid(+inf) is 0. Expected
values are PyTorch's."""
import math

import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

VALUES = [float("nan"), -float("inf"), -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, float("inf")]
NAN, INF = float("nan"), float("inf")
CASES = [
    ("hardshrink", {}, [NAN, -INF, -3.0, -1.0, 0.0, 0.0, 0.0, 1.0, 3.0, INF], [1, 1, 1, 1, 0, 0, 0, 1, 1, 1]),
    ("hardshrink", {"lambd": 1.0}, [NAN, -INF, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, INF], [1, 1, 1, 0, 0, 0, 0, 0, 1, 1]),
    ("softshrink", {}, [NAN, -INF, -2.5, -0.5, -0.0, 0.0, 0.0, 0.5, 2.5, INF], [1, 1, 1, 1, 0, 0, 0, 1, 1, 1]),
    ("softshrink", {"lambd": 1.0}, [NAN, -INF, -2.0, -0.0, -0.0, 0.0, 0.0, 0.0, 2.0, INF], [1, 1, 1, 0, 0, 0, 0, 0, 1, 1]),
    ("threshold", {"threshold": 0.5, "value": -1.0}, [NAN, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 3.0, INF],
     [1, 0, 0, 0, 0, 0, 0, 1, 1, 1]),
]


def _same(a, b):
    return all((math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))
               for x, y in zip(a, b))


@pytest.mark.parametrize("name,kwargs,values,grads", CASES, ids=[f"{n}-{k}" for n, k, _, _ in CASES])
def test_values_and_gradients_at_nonfinite_inputs(name, kwargs, values, grads):
    x = gg.tensor(VALUES, requires_grad=True)
    y = getattr(F, name)(x, **kwargs)
    y.sum().backward()
    assert _same(y.tolist(), values), y.tolist()
    assert x.grad.tolist() == [float(g) for g in grads]


def test_logsigmoid_at_infinity_and_nan():
    x = gg.tensor([NAN, -INF, INF, 0.0], requires_grad=True)
    y = F.logsigmoid(x)
    assert _same(y.tolist(), [NAN, -INF, 0.0, -0.6931471824645996])   # log(2) in float32
    y[1:].sum().backward()
    assert x.grad.tolist()[1:] == [1.0, 0.0, 0.5]


def test_grad_fn_names():
    x = gg.tensor([1.0, -2.0], requires_grad=True)
    assert F.hardshrink(x).grad_fn.name() == "HardshrinkBackward0"
    assert F.softshrink(x).grad_fn.name() == "SoftshrinkBackward0"


@pytest.mark.parametrize("name,kwargs", [(n, k) for n, k, _, _ in CASES] + [("logsigmoid", {})])
def test_against_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    out = []
    for fw in (torch, gg):
        x = fw.tensor(VALUES, requires_grad=True)
        y = getattr(fw.nn.functional, name)(x, **kwargs)
        y[1:].sum().backward() if name == "logsigmoid" else y.sum().backward()
        out.append((y.tolist(), x.grad.tolist()))
    assert _same(out[1][0], out[0][0]) and _same(out[1][1], out[0][1])
