"""Reductions at their edges, as PyTorch defines them: a variance with no degrees of freedom,
any/all of uint8, kthvalue of a 0-d tensor."""
import numpy as np
import pytest

import glassgrad as gg


def test_variance_with_no_degrees_of_freedom_is_nan_or_inf_with_a_warning():
    # PyTorch divides by max(0, N - correction): one element gives NaN, more deviation than
    # degrees of freedom inf, an empty reduction NaN; each with a UserWarning, no error.
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert np.isnan(gg.tensor([2.0]).var().item())
    with pytest.warns(UserWarning):
        assert np.isnan(gg.tensor(3.0).std().item())
    with pytest.warns(UserWarning):
        assert np.isinf(gg.tensor([1.0, 2.0]).var(correction=3).item())
    with pytest.warns(UserWarning):
        assert np.isnan(gg.ones(2, 1).std(1).numpy()).all()
    with pytest.warns(UserWarning):
        assert np.isnan(gg.zeros(0).var().item())


def test_any_and_all_of_uint8_stay_uint8_and_kthvalue_of_a_scalar():
    x = gg.tensor(np.array([[0, 3], [1, 2]], np.uint8))
    assert x.any().dtype == gg.uint8 and x.all(1).tolist() == [0, 1]
    values, indices = gg.tensor(4.5).kthvalue(1)
    assert values.item() == 4.5 and indices.item() == 0 and values.ndim == 0


def test_the_engine_variance_divides_by_max_of_zero_and_the_degrees_of_freedom():
    # The Var op itself (no Python special case): NaN for one element, inf where the
    # deviations are not all 0, and the gradient 2 (x - mean) / 0 (NaN at 0 deviation, inf else).
    x = gg.tensor(np.array([[1.0, 3.0], [2.0, 2.0]]), requires_grad=True)
    with pytest.warns(UserWarning):
        v = x.var(1, correction=2)
    np.testing.assert_array_equal(v.detach().numpy(), [np.inf, np.nan])
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[-np.inf, np.inf], [np.nan, np.nan]])
