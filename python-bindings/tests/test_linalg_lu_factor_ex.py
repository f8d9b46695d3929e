"""linalg.lu_factor_ex: lu_factor's (LU, pivots) and LAPACK getrf's info, singular matrices factored
rather than refused (unless check_errors), batches and rectangular shapes, out=, float64
finite-difference gradients of LU, and against PyTorch (docs/linalg.md)."""
import numpy as np
import pytest

import glassgrad as gg

LA = gg.linalg


def test_values_info_and_errors_as_torch_documents():
    # PyTorch 2.x's values: the first matrix is singular (U[2,2] = 0), the second is not
    A = gg.tensor([[[1.0, 2.0], [2.0, 4.0]], [[4.0, 3.0], [6.0, 3.0]]])
    LU, pivots, info = LA.lu_factor_ex(A)
    np.testing.assert_allclose(LU.numpy(), [[[2, 4], [0.5, 0]], [[6, 3], [2 / 3, 1]]], rtol=1e-6)
    assert pivots.tolist() == [[2, 2], [2, 2]] and pivots.dtype == gg.int32
    assert info.tolist() == [2, 0] and info.dtype == gg.int32
    with pytest.raises(RuntimeError, match=r"lu_factor_ex: \(Batch element 0\): U\[2,2\] is zero"):
        LA.lu_factor_ex(A, check_errors=True)
    with pytest.raises(RuntimeError, match=r"lu_factor: \(Batch element 0\): U\[2,2\] is zero"):
        LA.lu_factor(A)
    with pytest.raises(RuntimeError, match="without pivoting"):
        LA.lu_factor_ex(A, pivot=False)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        LA.lu_factor_ex(gg.tensor([1.0, 2.0]))


def test_info_is_the_first_zero_pivot():
    assert LA.lu_factor_ex(gg.zeros(3, 3)).info.tolist() == 1
    assert LA.lu_factor_ex(gg.zeros(2, 3, 4)).info.tolist() == [1, 1]
    rank_two = gg.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    assert LA.lu_factor_ex(rank_two).info.item() == 3
    assert LA.lu_factor_ex(gg.zeros(0, 3, 3)).info.shape == (0,)
    assert LA.lu_factor_ex(gg.zeros(2, 0, 0)).info.tolist() == [0, 0]


def test_factors_rebuild_a_and_out():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 5, 3))
    LU, pivots, info = LA.lu_factor_ex(gg.tensor(a))
    P, L, U = gg.lu_unpack(LU, pivots)
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)
    assert info.tolist() == [0, 0]
    out = (gg.empty(2, 5, 3, dtype=gg.float64), gg.empty(2, 3, dtype=gg.int32), gg.empty(2, dtype=gg.int32))
    result = LA.lu_factor_ex(gg.tensor(a), out=out)
    assert result.LU is out[0] and result.info is out[2]
    np.testing.assert_array_equal(out[0].numpy(), LU.numpy())


def test_gradient_of_lu_matches_finite_differences():
    rng = np.random.default_rng(5)
    assert gg.debug.gradcheck(lambda a: LA.lu_factor_ex(a).LU, [rng.standard_normal((2, 4, 4))])


@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (6, 3), (2, 3, 6)])
def test_as_torch_including_singular_matrices(shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape)
    singular = a.copy()
    singular[..., :, -1] = 0  # a zero column: U's last pivot is exactly 0 (rounding cannot hide it)
    for x in (a, singular, np.zeros(shape), np.round(a)):
        ours = LA.lu_factor_ex(gg.tensor(x))
        theirs = torch.linalg.lu_factor_ex(torch.tensor(x))
        np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-12)
        np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
        np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.lu_factor_ex(t).LU.sum().backward()
    g = gg.tensor(a, requires_grad=True)
    LA.lu_factor_ex(g).LU.sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
