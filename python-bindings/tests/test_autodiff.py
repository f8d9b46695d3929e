"""backward(): gradients of small programs equal hand-derived NumPy gradients; accumulation,
detach and the errors a beginner meets."""
import numpy as np
import pytest

import glassgrad as gg


def _param(a):
    return gg.nn.Parameter(np.asarray(a, dtype=np.float64))


def test_tanh_affine_gradient_matches_hand_derivation(rng):
    x = rng.standard_normal((5, 3))
    w0, b0 = rng.standard_normal(3), rng.standard_normal(3)
    w, b = _param(w0), _param(b0)
    loss = (gg.tensor(x) * w + b).tanh().sum()
    loss.backward()
    t = np.tanh(x * w0 + b0)
    np.testing.assert_allclose(w.grad.numpy(), ((1 - t ** 2) * x).sum(0), rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), (1 - t ** 2).sum(0), rtol=1e-10)


def test_linear_relu_mean_gradient_matches_hand_derivation(rng):
    x = rng.standard_normal((4, 3))
    W0, b0 = rng.standard_normal((2, 3)), rng.standard_normal(2)
    W, b = _param(W0), _param(b0)
    gg.relu(gg.linear(gg.tensor(x), W, b)).mean().backward()
    z = x @ W0.T + b0
    g = (z > 0) / z.size
    np.testing.assert_allclose(W.grad.numpy(), g.T @ x, rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(0), rtol=1e-10)


def test_softmax_cross_entropy_gradient_is_softmax_minus_onehot(rng):
    logits0 = rng.standard_normal((6, 4))
    labels = np.array([0, 3, 1, 1, 2, 0])
    logits = _param(logits0)
    gg.cross_entropy(logits, gg.tensor(labels)).backward()
    p = np.exp(logits0 - logits0.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(6), labels] -= 1
    np.testing.assert_allclose(logits.grad.numpy(), p / 6, rtol=1e-9, atol=1e-12)


def test_value_used_twice_sums_both_paths(rng):
    a0 = rng.standard_normal(3)
    a = _param(a0)
    (a * a + a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * a0 + 1, rtol=1e-12)


def test_gradients_accumulate_until_zeroed(rng):
    w = _param(rng.standard_normal(3))
    x = gg.tensor(rng.standard_normal(3))
    (w * x).sum().backward()
    (w * x).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * x.numpy())
    w.grad = None
    (w * x).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), x.numpy())


def test_detach_stops_the_gradient(rng):
    w = _param(rng.standard_normal(3))
    loss = (w * w.detach()).sum()
    loss.backward()
    np.testing.assert_allclose(w.grad.detach().numpy(), w.detach().numpy())


def test_backward_with_explicit_gradient(rng):
    w = _param(rng.standard_normal((2, 3)))
    y = w * 3
    y.backward(gg.tensor(np.ones((2, 3))))
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 3.0))


def test_backward_on_non_scalar_explains_the_fix():
    w = _param(np.ones(3))
    with pytest.raises(gg.GlassgradError) as e:
        (w * 2).backward()
    assert "scalar" in str(e.value) and "loss.mean().backward()" in str(e.value)


def test_backward_without_parameters_explains():
    with pytest.raises(gg.GlassgradError) as e:
        gg.tensor(np.ones(3)).sum().backward()
    assert "does not require gradients" in str(e.value)


def test_backward_after_loss_was_read_still_works(rng):
    w = _param(rng.standard_normal(3))
    loss = (w * w).sum()
    loss.item()  # realizes the forward first; backward recomputes what it needs
    loss.backward()
    np.testing.assert_allclose(w.grad.detach().numpy(), 2 * w.detach().numpy())


def test_no_grad_records_no_gradient_path(rng):
    w = _param(rng.standard_normal(3))
    with gg.no_grad():
        y = (w * 2).sum()
    assert not y.requires_grad
