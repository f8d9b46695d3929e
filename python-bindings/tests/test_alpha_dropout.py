"""nn.AlphaDropout and F.alpha_dropout (the AlphaDropout op, autodiff-engine/src/ops/dropout.cpp)
against PyTorch's: the masks come from different generators, so the tests compare what does
not depend on the draw: the value a dropped element takes, the affine map of the kept ones, the
gradient (a where kept, 0 where dropped), p = 0 and p = 1, eval mode, in place, and the errors.
The op's values against NumPy and its float64 finite differences: tests/op_specs/dropout.py."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

ALPHA = 1.7580993408473766


def _x(n=20000, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropped_and_kept_values_are_pytorchs(p, dtype):
    x = _x().astype(dtype)
    ours = F.alpha_dropout(gg.tensor(x), p, training=True).numpy()
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(x), p, training=True).numpy()
    tol = 1e-6 if dtype == np.float32 else 1e-13
    values, counts = np.unique(theirs, return_counts=True)
    dropped_theirs = values[np.argmax(counts)]  # the one value every dropped element takes
    a = 1.0 / np.sqrt((ALPHA**2 * p + 1.0) * (1.0 - p))
    dropped = np.isclose(ours, dropped_theirs, rtol=0, atol=tol)
    np.testing.assert_allclose(ours[~dropped], a * x[~dropped] + ALPHA * a * p, rtol=tol, atol=tol)
    # the drop fraction is p (20000 draws: 5 standard deviations at most 0.018)
    assert abs(dropped.mean() - p) < 0.018
    assert abs(np.isclose(theirs, dropped_theirs, rtol=0, atol=tol).mean() - p) < 0.018


def test_gradient_is_a_where_kept_and_zero_where_dropped():
    p = 0.3
    x = gg.tensor(_x(5000), requires_grad=True)
    y = F.alpha_dropout(x, p, training=True)
    y.sum().backward()
    a = 1.0 / np.sqrt((ALPHA**2 * p + 1.0) * (1.0 - p))
    kept = np.isclose(y.detach().numpy(), a * x.detach().numpy() + ALPHA * a * p, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(x.grad.numpy(), np.where(kept, a, 0.0))


def test_p0_eval_mode_and_default_training_are_the_identity():
    x = gg.tensor(_x(64))
    assert F.alpha_dropout(x, 0.5) is x  # training=False by default, as PyTorch's
    assert F.alpha_dropout(x, 0.0, training=True) is x
    layer = nn.AlphaDropout(0.5)
    layer.eval()
    assert layer(x) is x


def test_p1_gives_x_times_zero_as_pytorch():
    x = np.array([1.0, -2.0, np.inf, 0.5])
    ours = F.alpha_dropout(gg.tensor(x), 1.0, training=True).numpy()
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(x), 1.0, training=True).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(ours[~np.isnan(ours)], theirs[~np.isnan(theirs)])


def test_in_place_returns_the_input_changed():
    x = gg.tensor(_x(100))
    before = x.numpy().copy()
    y = F.alpha_dropout(x, 0.5, training=True, inplace=True)
    assert y is x
    assert not np.array_equal(x.numpy(), before)


def test_layer_prints_and_refuses_a_bad_p_as_pytorch():
    assert repr(nn.AlphaDropout(0.2)) == repr(torch.nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2, inplace=False)"
    with pytest.raises(ValueError, match="p"):
        nn.AlphaDropout(1.5)
    with pytest.raises(ValueError, match="p"):
        F.alpha_dropout(gg.tensor(_x(4)), -0.1, training=True)


def test_integer_input_is_refused_with_the_op_named():
    with pytest.raises(gg.DTypeError, match="AlphaDropout: expected a float32 or float64 tensor"):
        F.alpha_dropout(gg.tensor(np.arange(4)), 0.5, training=True).numpy()
