"""linalg.vander, tensorinv and tensorsolve against NumPy (np.vander, np.linalg.tensorinv,
np.linalg.tensorsolve) and their float64 gradients against finite differences (docs/linalg.md)."""
import numpy as np
import pytest

import glassgrad as gg

RNG = np.random.default_rng(3)


def test_vander_matches_numpy():
    x = RNG.standard_normal((2, 4))
    got = gg.linalg.vander(gg.tensor(x), N=5).numpy()
    want = np.stack([np.vander(row, 5, increasing=True) for row in x])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    ints = gg.linalg.vander(gg.tensor([2, -3, 4]))
    assert ints.dtype == gg.int64 and ints.numpy().tolist() == np.vander([2, -3, 4], increasing=True).tolist()
    for bad in (lambda: gg.linalg.vander(gg.tensor([1.0]), N=1), lambda: gg.linalg.vander(gg.tensor([True])),
                lambda: gg.linalg.vander(gg.tensor(2.0))):  # a 0-d x is one point: N defaults to 1
        with pytest.raises(gg.InvalidArgumentError):
            bad()


def test_tensorinv_and_tensorsolve_match_numpy():
    a = RNG.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(gg.linalg.tensorinv(gg.tensor(a), ind=2).numpy(), np.linalg.tensorinv(a, ind=2),
                               rtol=1e-9, atol=1e-12)
    a2 = RNG.standard_normal((2, 3, 6))
    b = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(gg.linalg.tensorsolve(gg.tensor(a2), gg.tensor(b)).numpy(), np.linalg.tensorsolve(a2, b),
                               rtol=1e-9, atol=1e-12)
    a3 = RNG.standard_normal((6, 2, 3))
    np.testing.assert_allclose(gg.linalg.tensorsolve(gg.tensor(a3), gg.tensor(b), dims=(0,)).numpy(),
                               np.linalg.tensorsolve(a3, b, axes=(0,)), rtol=1e-9, atol=1e-12)
    with pytest.raises(gg.ShapeError, match="prod"):
        gg.linalg.tensorinv(gg.tensor(RNG.standard_normal((2, 3, 4))), ind=1)
    with pytest.raises(gg.InvalidArgumentError, match="strictly positive"):
        gg.linalg.tensorinv(gg.tensor(a), ind=0)


def test_gradients_match_finite_differences():
    assert gg.debug.gradcheck(lambda t: gg.linalg.vander(t, N=4), [RNG.standard_normal(3)])
    assert gg.debug.gradcheck(lambda t: gg.linalg.tensorinv(t, ind=1), [RNG.standard_normal((4, 2, 2)) + 3 * np.eye(4).reshape(4, 2, 2)])
    b = gg.tensor(RNG.standard_normal((2, 2)))
    assert gg.debug.gradcheck(lambda t: gg.linalg.tensorsolve(t, b), [RNG.standard_normal((2, 2, 4)) + 3 * np.eye(4).reshape(2, 2, 4)])
