"""Double backward (autograd.grad(create_graph=True), then backward) through softmax, log_softmax,
cross_entropy (class indices and probabilities, label_smoothing, weight, ignore_index), nll_loss and
kl_div, and Hessian-vector products of a classifier's loss: float64 central differences of the first
gradient, and torch's results. Skipped without torch."""
import numpy as np
import pytest

import glassgrad as gg
from double_backward_check import check

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(7)
_X = _RNG.standard_normal((4, 5)) * 1.3
_X3 = _RNG.standard_normal((2, 3, 4))
_LABELS = np.array([0, 4, 2, 4], dtype=np.int64)
_IGNORED = np.array([1, -100, 3, 3], dtype=np.int64)
_IGNORED_3 = np.array([1, 0, 3, 3], dtype=np.int64)
_PROBS = np.exp(_RNG.standard_normal((4, 5)))
_PROBS /= _PROBS.sum(1, keepdims=True)
_WEIGHT = _RNG.uniform(0.3, 2.0, 5)


def _fn(name):
    return lambda L: getattr(L.nn.functional, name)


# (name, f(lib, x, *rest), rest arrays, which arguments the penalty is differentiated in)
_CASES = [
    ("softmax dim -1", lambda L, x: L.nn.functional.softmax(x, -1), [], (0,)),
    ("softmax dim 1 of 3-d", lambda L, x: L.nn.functional.softmax(x, 1), [_X3], (0,)),
    ("log_softmax dim -1", lambda L, x: L.nn.functional.log_softmax(x, -1), [], (0,)),
    ("log_softmax dim 0", lambda L, x: L.nn.functional.log_softmax(x, 0), [], (0,)),
    ("softmax times input", lambda L, x, v: L.nn.functional.softmax(x * v, 1), [_X * 0.5 + 1], (0, 1)),
    ("cross_entropy", lambda L, x, y: L.nn.functional.cross_entropy(x, y), [_LABELS], (0,)),
    ("cross_entropy sum", lambda L, x, y: L.nn.functional.cross_entropy(x, y, reduction="sum"), [_LABELS], (0,)),
    ("cross_entropy none", lambda L, x, y: L.nn.functional.cross_entropy(x, y, reduction="none"), [_LABELS], (0,)),
    ("cross_entropy label_smoothing",
     lambda L, x, y: L.nn.functional.cross_entropy(x, y, label_smoothing=0.2), [_LABELS], (0,)),
    ("cross_entropy weight",
     lambda L, x, y, w: L.nn.functional.cross_entropy(x, y, weight=w), [_LABELS, _WEIGHT], (0,)),
    ("cross_entropy weight smoothing none",
     lambda L, x, y, w: L.nn.functional.cross_entropy(x, y, weight=w, label_smoothing=0.3, reduction="none"),
     [_LABELS, _WEIGHT], (0,)),
    ("cross_entropy ignore_index",
     lambda L, x, y: L.nn.functional.cross_entropy(x, y, ignore_index=-100), [_IGNORED], (0,)),
    ("cross_entropy ignore_index weight smoothing",
     lambda L, x, y, w: L.nn.functional.cross_entropy(x, y, weight=w, ignore_index=3, label_smoothing=0.1),
     [_IGNORED_3, _WEIGHT], (0,)),
    ("cross_entropy probabilities",
     lambda L, x, y: L.nn.functional.cross_entropy(x, y), [_PROBS], (0,)),
    ("cross_entropy probabilities smoothing weight",
     lambda L, x, y, w: L.nn.functional.cross_entropy(x, y, weight=w, label_smoothing=0.25), [_PROBS, _WEIGHT], (0,)),
    ("cross_entropy of a product", lambda L, x, v, y: L.nn.functional.cross_entropy(x * v, y),
     [_X * 0.5 + 1, _LABELS], (0, 1)),
    ("nll_loss", lambda L, x, y: L.nn.functional.nll_loss(L.nn.functional.log_softmax(x, 1), y), [_LABELS], (0,)),
    ("nll_loss weight ignore_index",
     lambda L, x, y, w: L.nn.functional.nll_loss(L.nn.functional.log_softmax(x, 1), y, weight=w, ignore_index=-100),
     [_IGNORED, _WEIGHT], (0,)),
    ("kl_div batchmean",
     lambda L, x, p: L.nn.functional.kl_div(L.nn.functional.log_softmax(x, 1), p, reduction="batchmean"), [_PROBS], (0,)),
]


@pytest.mark.parametrize("name,f,rest,wrt", _CASES, ids=[c[0] for c in _CASES])
def test_double_backward_matches_finite_differences_and_torch(name, f, rest, wrt):
    x = _X3 if "3-d" in name else _X
    if "3-d" in name:
        rest = []
    check(f, [x, *rest], wrt)


def _loss(L, params, x, y):
    w, b = params
    return L.nn.functional.cross_entropy(L.tanh(x @ w + b), y, label_smoothing=0.1)


def test_hessian_vector_product_of_a_classifier_loss_matches_torch():
    """autograd.functional.hvp and vhp of cross_entropy(tanh(x @ w + b)) in (w, b)."""
    rng = np.random.default_rng(2)
    x0, w0, b0 = rng.standard_normal((6, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)
    y0 = np.array([0, 3, 1, 2, 3, 0], dtype=np.int64)
    v0 = (rng.standard_normal((3, 4)), rng.standard_normal(4))
    res = []
    for L in (gg, torch):
        x, y = L.tensor(x0), L.tensor(y0)
        params = (L.tensor(w0), L.tensor(b0))
        v = tuple(L.tensor(a) for a in v0)
        _, hv = L.autograd.functional.hvp(lambda w, b: _loss(L, (w, b), x, y), params, v)
        _, vh = L.autograd.functional.vhp(lambda w, b: _loss(L, (w, b), x, y), params, v)
        res.append([t.detach().numpy() for t in (*hv, *vh)])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_maml_inner_step_through_cross_entropy_matches_torch():
    """One MAML step: fast weights w - lr * grad(loss_support, create_graph=True), the query loss of
    the fast weights differentiated back into the initial weights (second order, not first-order MAML)."""
    rng = np.random.default_rng(3)
    xs, xq = rng.standard_normal((5, 4)), rng.standard_normal((7, 4))
    ys, yq = np.array([0, 1, 2, 1, 0]), np.array([2, 2, 0, 1, 0, 1, 2])
    w0, b0 = rng.standard_normal((4, 3)) * 0.5, rng.standard_normal(3) * 0.1
    res = []
    for L in (gg, torch):
        w, b = L.tensor(w0, requires_grad=True), L.tensor(b0, requires_grad=True)
        F = L.nn.functional
        support = F.cross_entropy(F.log_softmax(L.tensor(xs) @ w + b, 1) * 1.5, L.tensor(ys))
        gw, gb = L.autograd.grad(support, (w, b), create_graph=True)
        fw, fb = w - 0.4 * gw, b - 0.4 * gb
        F.cross_entropy(F.softmax(L.tensor(xq) @ fw + fb, 1) * 3, L.tensor(yq), label_smoothing=0.05).backward()
        res.append([w.grad.detach().numpy(), b.grad.detach().numpy()])
    for ours, theirs in zip(*res):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_cross_entropy_float32_penalty_matches_torch():
    """A float32 WGAN-style penalty through cross_entropy with ignored rows: torch's values within float32."""
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((6, 4)).astype(np.float32)
    y0 = np.array([1, 3, -100, 0, 2, -100])
    res = []
    for L in (gg, torch):
        x = L.tensor(x0, requires_grad=True)
        (g,) = L.autograd.grad(L.nn.functional.cross_entropy(x * 2, L.tensor(y0)), x, create_graph=True)
        ((g.norm(2, dim=1) - 1) ** 2).mean().backward()
        res.append(x.grad.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-4, atol=1e-6)
