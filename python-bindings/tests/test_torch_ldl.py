"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve against torch: the same pivots (Bunch-
Kaufman's choices, 2x2 blocks included) and LD to rounding, batches, zero diagonals, integer-valued
matrices, odd sizes, float32; the solution of A X = B; a singular matrix's info and LinAlgError
(PyTorch 2.14 raises an internal assertion there, so that case is glassgrad's alone). Skipped
without torch."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _symmetric(rng, shape, zero_diagonal=False, integers=False):
    B = rng.standard_normal(shape)
    A = B + np.swapaxes(B, -1, -2)
    if zero_diagonal:
        n = shape[-1]
        A[..., np.arange(n), np.arange(n)] = 0
    return np.round(A) + np.eye(shape[-1]) * 0.5 if integers else A


CASES = [((1, 1), {}), ((3, 3), {}), ((5, 5), {"zero_diagonal": True}), ((7, 7), {}), ((6, 6), {"integers": True}),
         ((2, 4, 4), {}), ((3, 2, 5, 5), {"zero_diagonal": True}), ((11, 11), {}), ((9, 9), {"zero_diagonal": True})]


@pytest.mark.parametrize("shape,kind", CASES)
def test_factor_and_solve_match_torch(shape, kind):
    rng = np.random.default_rng(shape[-1] * 7 + len(shape))
    A = _symmetric(rng, shape, **kind)
    A[..., 0, -1] += 5.0  # the strict upper triangle is not read
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(A))
    assert int(theirs.info.max()) == 0
    ours = gg.linalg.ldl_factor_ex(gg.tensor(A))
    assert ours.pivots.dtype == gg.int32 and ours.info.dtype == gg.int32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-12, atol=1e-12)
    B = rng.standard_normal(shape[:-1] + (3,))
    x = gg.linalg.ldl_solve(ours.LD, ours.pivots, gg.tensor(B)).numpy()
    np.testing.assert_allclose(x, torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(B)).numpy(),
                               rtol=1e-9, atol=1e-10)
    Af = np.tril(A) + np.swapaxes(np.tril(A, -1), -1, -2)
    np.testing.assert_allclose(Af @ x, B, rtol=1e-9, atol=1e-9)


def test_two_by_two_blocks_give_negative_pivots_as_torch():
    A = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 0.5], [2.0, 0.5, 0.0]])
    ours, theirs = gg.linalg.ldl_factor(gg.tensor(A)), torch.linalg.ldl_factor(torch.tensor(A))
    assert ours.pivots.tolist() == theirs.pivots.tolist() == [-3, -3, 3]
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-15)


def test_float32_is_close_to_torchs():
    A = _symmetric(np.random.default_rng(2), (6, 6)).astype(np.float32)
    ours, theirs = gg.linalg.ldl_factor(gg.tensor(A)), torch.linalg.ldl_factor(torch.tensor(A))
    assert ours.LD.dtype == gg.float32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-4, atol=1e-5)


def test_a_singular_matrix_sets_info_and_ldl_factor_raises():
    A = np.array([[4.0, 1.0, 2.0], [1.0, -3.0, 0.5], [2.0, 0.5, 1.0]])  # determinant 0
    ex = gg.linalg.ldl_factor_ex(gg.tensor(A))
    assert int(ex.info) == 3
    with pytest.raises(gg.linalg.LinAlgError, match="not invertible(?s:.*)fix: "):
        gg.linalg.ldl_factor(gg.tensor(A))
    with pytest.raises(gg.linalg.LinAlgError):
        gg.linalg.ldl_factor_ex(gg.tensor(A), check_errors=True)


def test_bad_arguments_are_refused():
    with pytest.raises(RuntimeError, match="square"):
        gg.linalg.ldl_factor(gg.ones(2, 3, dtype=gg.float64))
    LD, piv = gg.linalg.ldl_factor(gg.eye(3, dtype=gg.float64))
    with pytest.raises(RuntimeError, match="int32"):
        gg.linalg.ldl_solve(LD, piv.long(), gg.ones(3, 1, dtype=gg.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        gg.linalg.ldl_solve(LD, piv, gg.ones(3, 1))
    with pytest.raises(RuntimeError, match="do not fit"):
        gg.linalg.ldl_solve(LD, piv, gg.ones(4, 1, dtype=gg.float64))
