"""Double backward (autograd.grad(create_graph=True), then backward) through max pooling (disjoint
and overlapping windows, padding, ceil mode, ties after a ReLU), and a second-order MAML step through
a conv/batch-norm/ReLU/max-pool network: float64 central differences of the first gradient, and
torch's results. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from double_backward_check import check

torch = pytest.importorskip("torch")


def _mp(*args, **kwargs):
    return lambda L, x: L.nn.functional.max_pool2d(x, *args, **kwargs)


# (name, x's shape, f(lib, x))
_CASES = [
    ("k2 s2", (2, 2, 4, 6), _mp(2)),
    ("k2 s2 odd size", (1, 2, 5, 7), _mp(2)),
    ("k3 s2 p1 (overlapping)", (1, 2, 7, 6), _mp(3, 2, 1)),
    ("k3 s1 p1", (1, 1, 5, 5), _mp(3, 1, 1)),
    ("k2 s1", (1, 2, 4, 5), _mp(2, 1)),
    ("k3 s2 ceil_mode", (1, 1, 6, 8), _mp(3, 2, ceil_mode=True)),
    ("k (3, 2) s (1, 2)", (1, 2, 5, 6), _mp((3, 2), (1, 2))),
    ("dilation 2", (1, 1, 6, 6), _mp(2, 1, 0, 2)),
    ("after a shifted relu (tied windows)", (1, 2, 6, 6), lambda L, x: L.nn.functional.max_pool2d(L.relu(x - 0.8), 3, 2, 1)),
    ("max_pool1d", (2, 3, 7), lambda L, x: L.nn.functional.max_pool1d(x, 3, 2)),
]


@pytest.mark.parametrize("name,shape,f", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, shape, f):
    x0 = np.random.default_rng(13).standard_normal(shape)
    check(f, [x0])


def test_double_backward_in_grad_outputs_is_the_argmax_gather():
    """d/dv of <grad(max_pool(x), x, v), w>: w read at each window's first maximum (ties of a
    ReLU's zeros included), as torch's."""
    rng = np.random.default_rng(1)
    x0 = np.maximum(rng.standard_normal((2, 3, 6, 6)) - 0.5, 0)
    v0, w0 = rng.standard_normal((2, 3, 3, 3)), rng.standard_normal((2, 3, 6, 6))
    res = []
    for L in (gg, torch):
        x, v = L.tensor(x0, requires_grad=True), L.tensor(v0, requires_grad=True)
        (g,) = L.autograd.grad(L.nn.functional.max_pool2d(x, 3, 2, 1), x, v, create_graph=True)
        (g * L.tensor(w0)).sum().backward()
        res.append(v.grad.detach().numpy())
    np.testing.assert_array_equal(res[0], res[1])


def _net(L):
    """MAML's conv block (Conv2d, BatchNorm2d in training mode, ReLU, MaxPool2d(2)) twice, then a
    linear classifier; float64, weights from one seed."""
    net = L.nn.Sequential(L.nn.Conv2d(1, 4, 3, padding=1), L.nn.BatchNorm2d(4), L.nn.ReLU(), L.nn.MaxPool2d(2),
                          L.nn.Conv2d(4, 4, 3, padding=1), L.nn.BatchNorm2d(4), L.nn.ReLU(), L.nn.MaxPool2d(2),
                          L.nn.Flatten(), L.nn.Linear(16, 3)).double()
    rng = np.random.default_rng(0)
    with L.no_grad():
        for p in net.parameters():
            p.copy_(L.tensor(rng.standard_normal(tuple(p.shape)) * 0.4 + (p.dim() == 1 and p.shape[0] == 4) * 1.0))
    return net


def test_maml_second_order_step_through_max_pooling_matches_torch():
    """One MAML outer gradient: fast weights from an inner step with create_graph=True, the query
    loss through them (torch.func.functional_call), differentiated into the initial weights."""
    rng = np.random.default_rng(2)
    xs, xq = rng.standard_normal((6, 1, 8, 8)), rng.standard_normal((6, 1, 8, 8))
    ys, yq = np.array([0, 1, 2, 0, 1, 2]), np.array([2, 1, 0, 0, 2, 1])
    res = []
    for L in (gg, torch):
        net = _net(L)
        names = [n for n, _ in net.named_parameters()]
        params = [p for _, p in net.named_parameters()]
        loss = L.nn.functional.cross_entropy(net(L.tensor(xs)), L.tensor(ys))
        grads = L.autograd.grad(loss, params, create_graph=True)
        fast = {n: p - 0.1 * g for n, p, g in zip(names, params, grads)}
        out = L.func.functional_call(net, fast, (L.tensor(xq),))
        L.nn.functional.cross_entropy(out, L.tensor(yq)).backward()
        res.append([p.grad.detach().numpy() for p in params])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)
