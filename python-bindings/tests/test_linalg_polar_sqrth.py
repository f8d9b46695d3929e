"""linalg.matrix_sqrth (principal square root of a symmetric positive-definite matrix, its lower
triangle read, negative eigenvalues as 0) and linalg.polar (A = U H, m >= n): closed forms,
identities, errors, out=, float64 finite-difference gradients, and against PyTorch (docs/linalg.md)."""
import math

import numpy as np
import pytest

import glassgrad as gg

LA = gg.linalg


def _spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def test_matrix_sqrth_closed_forms():
    np.testing.assert_allclose(LA.matrix_sqrth(gg.tensor([[2.0, 0.0], [0.0, 9.0]])).numpy(),
                               [[math.sqrt(2), 0], [0, 3]], rtol=1e-6)
    # eigenvalues 3 and -1: the -1 counts as 0, so X = sqrt(3) v v^T with v = (1, 1)/sqrt(2)
    np.testing.assert_allclose(LA.matrix_sqrth(gg.tensor([[1.0, 2.0], [2.0, 1.0]])).numpy(),
                               np.full((2, 2), math.sqrt(3) / 2), rtol=1e-6)
    # only the lower triangle is read
    np.testing.assert_allclose(LA.matrix_sqrth(gg.tensor([[4.0, 100.0], [1.0, 9.0]], dtype=gg.float64)).numpy(),
                               LA.matrix_sqrth(gg.tensor([[4.0, 1.0], [1.0, 9.0]], dtype=gg.float64)).numpy())


def test_matrix_sqrth_squares_back_in_batches():
    a = _spd(np.random.default_rng(0), (3, 4, 4))
    x = LA.matrix_sqrth(gg.tensor(a)).numpy()
    np.testing.assert_allclose(x @ x, a, atol=1e-10)
    np.testing.assert_allclose(x, np.swapaxes(x, -1, -2), atol=1e-12)
    assert (np.linalg.eigvalsh(x) > 0).all()


def test_polar_identities_and_zero():
    a = np.random.default_rng(1).standard_normal((2, 5, 3))
    U, H = LA.polar(gg.tensor(a))
    u, h = U.numpy(), H.numpy()
    np.testing.assert_allclose(u @ h, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    np.testing.assert_allclose(h, np.swapaxes(h, -1, -2), atol=1e-12)
    assert (np.linalg.eigvalsh(h) > -1e-12).all()
    U0, H0 = LA.polar(gg.zeros(3, 2))
    assert U0.tolist() == [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]] and H0.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_errors_and_out():
    with pytest.raises(RuntimeError, match="at least as many rows as columns, but got 2 by 3"):
        LA.polar(gg.ones(2, 3))
    with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
        LA.matrix_sqrth(gg.ones(2, 3))
    with pytest.raises(TypeError, match="Expected a floating point"):
        LA.matrix_sqrth(gg.ones(2, 2, dtype=gg.int64))
    out = (gg.empty(3, 2), gg.empty(2, 2))
    result = LA.polar(gg.tensor([[3.0, 0.0], [0.0, 4.0], [0.0, 0.0]]), out=out)
    assert result.U is out[0] and result.H is out[1]
    np.testing.assert_allclose(out[1].numpy(), [[3, 0], [0, 4]], atol=1e-6)


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    a = _spd(rng, (3, 3))
    assert gg.debug.gradcheck(lambda t: LA.matrix_sqrth(t + t.transpose(-1, -2)), [a / 2])
    b = rng.standard_normal((4, 3))
    assert gg.debug.gradcheck(lambda t: LA.polar(t).U, [b])
    assert gg.debug.gradcheck(lambda t: LA.polar(t).H, [b])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_as_torch(shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    a = _spd(rng, shape)
    b = rng.standard_normal(shape[:-1] + (shape[-1] - 1,))
    for fn, x in ((lambda L, t: L.linalg.matrix_sqrth(t), a), (lambda L, t: sum(L.linalg.polar(t)[i].sum() * (i + 1)
                                                                                 for i in range(2)), b)):
        theirs = torch.tensor(x, requires_grad=True)
        ours = gg.tensor(x, requires_grad=True)
        rt, ro = fn(torch, theirs), fn(gg, ours)
        np.testing.assert_allclose(ro.detach().numpy(), rt.detach().numpy(), rtol=1e-10, atol=1e-12)
        rt.sum().backward()
        ro.sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8, atol=1e-10)
