"""Empty matrices in linalg as PyTorch: matrix_norm's positive orders give 0 (its negative ones
are refused where they reduce over nothing), norm(ord, dim=(-2, -1)) the same, and
ldl_factor / ldl_factor_ex / ldl_solve of 0x0 matrices (docs/linalg.md)."""
import math

import numpy as np
import pytest

import glassgrad as gg

LA = gg.linalg
ORDS = [2, -2, math.inf, -math.inf, 1, -1, "fro", "nuc"]
# PyTorch 2.x: the norm of each empty shape per order (None: an error, amin over nothing)
EXPECTED = {
    (0, 0): [0.0, None, 0.0, None, 0.0, None, 0.0, 0.0],
    (0, 2): [0.0, None, 0.0, None, 0.0, 0.0, 0.0, 0.0],
    (3, 0): [0.0, None, 0.0, 0.0, 0.0, None, 0.0, 0.0],
}


@pytest.mark.parametrize("shape", list(EXPECTED))
def test_matrix_norm_of_empty_matrices(shape):
    for ord_, want in zip(ORDS, EXPECTED[shape]):
        if want is None:
            with pytest.raises(IndexError):
                LA.matrix_norm(gg.zeros(shape), ord_)
        else:
            assert LA.matrix_norm(gg.zeros(shape), ord_).item() == want, ord_
    batch = LA.matrix_norm(gg.zeros((2,) + shape), 2)
    assert batch.tolist() == [0.0, 0.0]
    assert LA.norm(gg.zeros(shape), 2, dim=(-2, -1)).item() == 0.0
    assert LA.matrix_norm(gg.zeros((0, 3, 3)), -2).shape == (0,)


def test_ldl_of_empty_matrices():
    LD, pivots = LA.ldl_factor(gg.zeros(0, 0))
    assert LD.shape == (0, 0) and pivots.shape == (0,) and pivots.dtype == gg.int32
    LD, pivots, info = LA.ldl_factor_ex(gg.zeros(2, 0, 0))
    assert LD.shape == (2, 0, 0) and pivots.shape == (2, 0) and info.tolist() == [0, 0]
    assert LA.ldl_solve(LD, pivots, gg.zeros(2, 0, 3)).shape == (2, 0, 3)


def test_as_torch():
    torch = pytest.importorskip("torch")
    for shape in [(0, 0), (2, 0, 0), (0, 2), (3, 0), (0, 3, 3)]:
        for ord_ in ORDS:
            outcomes = []
            for lib in (torch, gg):
                try:
                    outcomes.append(lib.linalg.matrix_norm(lib.zeros(shape), ord_).numpy().tolist())
                except (IndexError, RuntimeError):
                    outcomes.append("error")
            assert outcomes[0] == outcomes[1], (shape, ord_, outcomes)
    for lib_result in (torch.linalg.ldl_factor_ex(torch.zeros(2, 0, 0)), LA.ldl_factor_ex(gg.zeros(2, 0, 0))):
        assert [tuple(t.shape) for t in lib_result] == [(2, 0, 0), (2, 0), (2,)]
    np.testing.assert_array_equal(torch.linalg.ldl_factor_ex(torch.zeros(2, 0, 0)).info.numpy(),
                                  LA.ldl_factor_ex(gg.zeros(2, 0, 0)).info.numpy())
