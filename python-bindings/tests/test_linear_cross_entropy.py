"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions: PyTorch's
reference definition cross_entropy(linear(x, W, b).reshape(N, C, d1..dK), target), its shape
checks and option checks; values against NumPy, gradients by float64 finite differences, and
against PyTorch where it is installed."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

RNG = np.random.default_rng(7)
X, W, B = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3)), RNG.standard_normal(5)
T = np.array([0, 4, 2, 1])


def _log_softmax(z, axis):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def test_values_are_cross_entropy_of_the_linear_logits():
    logp = _log_softmax(X @ W.T + B, 1)
    per_row = -logp[np.arange(4), T]
    out = F.linear_cross_entropy(gg.tensor(X), gg.tensor(W), gg.tensor(T), linear_bias=gg.tensor(B), reduction="none")
    np.testing.assert_allclose(out.numpy(), per_row, rtol=1e-12)
    mean = F.linear_cross_entropy(gg.tensor(X), gg.tensor(W), gg.tensor(T), linear_bias=gg.tensor(B))
    assert mean.item() == pytest.approx(per_row.mean(), rel=1e-12)
    # ignore_index=None means -100 for class indices; an explicit index drops those rows
    ign = F.linear_cross_entropy(gg.tensor(X), gg.tensor(W), gg.tensor(T), linear_bias=gg.tensor(B), ignore_index=2)
    assert ign.item() == pytest.approx(per_row[T != 2].mean(), rel=1e-12)


def test_k_dimensional_weight_and_probability_targets():
    w3, b3 = RNG.standard_normal((5, 2, 3)), RNG.standard_normal((5, 2))
    t3 = RNG.integers(0, 5, (4, 2))
    logits = (X @ w3.reshape(10, 3).T + b3.reshape(10)).reshape(4, 5, 2)
    logp = _log_softmax(logits, 1)
    expected = -np.take_along_axis(logp, t3[:, None, :], 1)[:, 0, :]
    out = F.linear_cross_entropy(gg.tensor(X), gg.tensor(w3), gg.tensor(t3), linear_bias=gg.tensor(b3),
                                 reduction="none")
    assert tuple(out.shape) == (4, 2)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    p = RNG.random((4, 5))
    p /= p.sum(1, keepdims=True)
    soft = F.linear_cross_entropy(gg.tensor(X), gg.tensor(W), gg.tensor(p), reduction="sum")
    assert soft.item() == pytest.approx(-(p * _log_softmax(X @ W.T, 1)).sum(), rel=1e-12)


def test_gradients_by_finite_differences():
    def f(x, w, b):
        return F.linear_cross_entropy(x, w, gg.tensor(T), linear_bias=b, label_smoothing=0.1)

    args = [gg.tensor(a, requires_grad=True) for a in (X, W, B)]
    assert gg.autograd.gradcheck(f, args)


def test_shape_checks_name_the_cause():
    x, w, t = gg.tensor(X), gg.tensor(W), gg.tensor(T)
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 3"):
        F.linear_cross_entropy(x.reshape(2, 2, 3), w, t)
    with pytest.raises(RuntimeError, match="expected linear_weight with dimensionality at least 2, got 1"):
        F.linear_cross_entropy(x, gg.tensor(B), t)
    with pytest.raises(RuntimeError, match="got 3 and 2, respectively"):
        F.linear_cross_entropy(x, gg.tensor(W[:, :2]), t)
    with pytest.raises(RuntimeError, match=r"expected linear_bias shape \(5,\), got \(4,\)"):
        F.linear_cross_entropy(x, w, t, linear_bias=gg.tensor(B[:4]))
    with pytest.raises(RuntimeError, match="requires batched input"):
        F.linear_cross_entropy(x[0], gg.tensor(RNG.standard_normal((5, 2, 3))), gg.tensor(0))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target contains probabilities"):
        F.linear_cross_entropy(x, w, gg.full((4, 5), 0.2, dtype=gg.float64), ignore_index=1)


def test_module_stores_a_flat_linear_and_matches_the_function():
    loss = gg.nn.LinearCrossEntropyLoss(3, 5, out_features=(2,), bias=True, dtype=gg.float64)
    assert tuple(loss.linear.weight.shape) == (10, 3) and tuple(loss.linear.bias.shape) == (10,)
    assert sorted(loss.state_dict()) == ["linear.bias", "linear.weight"]
    t = gg.tensor(RNG.integers(0, 5, (4, 2)))
    x = gg.tensor(X, requires_grad=True)
    out = loss(x, t)
    direct = F.linear_cross_entropy(x, loss.linear.weight.reshape(5, 2, 3), t,
                                    linear_bias=loss.linear.bias.reshape(5, 2))
    assert out.item() == pytest.approx(direct.item(), rel=1e-12)
    out.backward()
    assert loss.linear.weight.grad is not None and tuple(x.grad.shape) == (4, 3)
    assert repr(gg.nn.LinearCrossEntropyLoss(3, 4, bias=True)) == (
        "LinearCrossEntropyLoss(\n  in_features=3, num_classes=4, out_features=(), bias=True, reduction=mean, "
        "ignore_index=None, label_smoothing=0.0, options=None\n  (linear): Linear(in_features=3, out_features=4, "
        "bias=True)\n)")
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(4,\), got \(3,\)"):
        gg.nn.LinearCrossEntropyLoss(3, 4, weight=gg.ones(3))
    with pytest.raises(RuntimeError, match=r"label_smoothing to be in range \[0, 1\], got 1.5"):
        gg.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5)


def test_options_are_checked_and_warned_about_as_pytorch_does():
    opts = gg.nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
    assert repr(gg.nn.LinearCrossEntropyOptions()) == (
        "LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, chunking_method='auto', "
        "acc_policy='auto', acc_dtype=None)")
    for bad, match in [({"acc_policy": "fast"}, "invalid acc_policy"), ({"chunking_method": "rows"}, "invalid chunking"),
                       ({"batch_chunk_size": 0}, "batch_chunk_size must be positive"),
                       ({"acc_dtype": gg.int32}, "acc_dtype must be one of")]:
        with pytest.raises(ValueError, match=match):
            gg.nn.LinearCrossEntropyOptions(**bad)
    x, w, t = gg.tensor(X), gg.tensor(W), gg.tensor(T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chunked = F.linear_cross_entropy(x, w, t, options=opts)  # a configuration PyTorch chunks: no warning
    assert chunked.item() == pytest.approx(F.linear_cross_entropy(x, w, t).item(), rel=1e-12)
    with pytest.warns(UserWarning, match="options`` ignored"):
        F.linear_cross_entropy(x, w, t, label_smoothing=0.2, options=opts)
    assert gg.nn.modules.LinearCrossEntropyOptions is gg.nn.LinearCrossEntropyOptions
    assert gg.nn.modules.loss.LinearCrossEntropyLoss is gg.nn.LinearCrossEntropyLoss


@pytest.mark.parametrize("case", ["plain", "none", "smooth_sum", "ignore", "kdim", "probs", "unbatched"])
def test_against_pytorch(case):
    torch = pytest.importorskip("torch")
    x, w, t, b, kw = X, W, T, B, {}
    if case == "none":
        kw = {"reduction": "none"}
    elif case == "smooth_sum":
        kw = {"reduction": "sum", "label_smoothing": 0.1}
    elif case == "ignore":
        kw = {"ignore_index": 2, "weight": np.arange(1.0, 6.0)}
    elif case == "kdim":
        w, b, t = RNG.standard_normal((5, 2, 3)), RNG.standard_normal((5, 2)), RNG.integers(0, 5, (4, 2))
    elif case == "probs":
        t, b = RNG.random((4, 5)), None
        t /= t.sum(1, keepdims=True)
    elif case == "unbatched":
        x, t = X[0], T[0]
    results = []
    for lib in (torch, gg):
        xs, ws = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        bs = lib.tensor(b, requires_grad=True) if b is not None else None
        extra = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        y = lib.nn.functional.linear_cross_entropy(xs, ws, lib.tensor(t), linear_bias=bs, **extra)
        (y * y).sum().backward()
        results.append([y.detach().numpy(), xs.grad.numpy(), ws.grad.numpy()]
                       + ([bs.grad.numpy()] if bs is not None else []))
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
