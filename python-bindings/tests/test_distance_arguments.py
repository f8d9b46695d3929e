"""torch.pdist and torch.cdist arguments as PyTorch takes them: pdist's p=inf (the largest
coordinate difference) and its refusal of integer rows; cdist's refusal of operands of two dtypes
(PyTorch's 'expected scalar type' RuntimeError) and of an unknown compute_mode (its ValueError).
Expected values are PyTorch 2's."""
import math

import numpy as np
import pytest

import glassgrad as gg

ROWS = [[0.0, 1.0], [2.0, 5.0], [1.0, 1.0]]


def test_pdist_of_infinite_p_is_the_largest_difference():
    assert gg.pdist(gg.tensor(ROWS), p=math.inf).tolist() == [4.0, 1.0, 4.0]
    np.testing.assert_allclose(gg.pdist(gg.tensor(ROWS), p=0.5).numpy(), [11.656854, 1.0, 9.0], rtol=1e-6)
    assert gg.pdist(gg.tensor(ROWS), p=0).tolist() == [2.0, 1.0, 2.0]


def test_pdist_refuses_integer_rows_and_negative_p():
    with pytest.raises(RuntimeError, match="pdist only supports floating-point dtypes"):
        gg.pdist(gg.tensor([[0, 1], [2, 5]]))
    with pytest.raises(RuntimeError):
        gg.pdist(gg.tensor(ROWS), p=-1.0)


def test_cdist_refuses_two_dtypes():
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        gg.cdist(gg.ones(2, 3), gg.ones(2, 3, dtype=gg.float64))


def test_cdist_refuses_an_unknown_compute_mode():
    with pytest.raises(ValueError, match="foo is not a valid value for compute_mode"):
        gg.cdist(gg.ones(2, 3), gg.ones(2, 3), compute_mode="foo")
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        assert gg.cdist(gg.zeros(1, 2), gg.tensor([[3.0, 4.0]]), compute_mode=mode).tolist() == [[5.0]]


@pytest.mark.parametrize("p", [0, 0.5, 1, 2, 3, math.inf])
def test_pdist_matches_pytorch(p):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    np.testing.assert_allclose(gg.pdist(gg.tensor(x), p=p).numpy(), torch.pdist(torch.tensor(x), p=p).numpy(),
                               rtol=1e-5, atol=1e-6)
