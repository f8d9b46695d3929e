"""PyTorch's deprecated top-level linear algebra: torch.lu / lu_solve / triangular_solve / qr (and
the Tensor methods) compute as PyTorch 2 does, with its once-per-process deprecation warnings at
the script's line; torch.matrix_rank, solve, symeig, eig and lstsq raise PyTorch's RuntimeError
naming the torch.linalg replacement. Expected values are PyTorch 2's."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _deprecated_linalg

A = [[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [8.0, 7.0, 9.0]]
B = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(_deprecated_linalg, "_WARNED", {k: [False] for k in _deprecated_linalg._WARNED})


def test_lu_and_lu_solve():
    LU, pivots = gg.lu(gg.tensor(A))
    np.testing.assert_allclose(LU.numpy(), [[8.0, 7.0, 9.0], [0.25, -0.75, -1.25], [0.5, 2 / 3, -2 / 3]], rtol=1e-6)
    assert pivots.tolist() == [3, 3, 3] and pivots.dtype == gg.int32
    np.testing.assert_allclose(gg.lu_solve(gg.tensor(B), LU, pivots).numpy(), [[0, 1], [2, 1], [-1, -1]], atol=1e-5)
    np.testing.assert_allclose(gg.tensor(B).lu_solve(*gg.tensor(A).lu()).numpy(), [[0, 1], [2, 1], [-1, -1]],
                               atol=1e-5)


def test_lu_with_infos_factors_a_singular_matrix():
    result = gg.lu(gg.zeros(3, 3), get_infos=True)
    assert type(result).__name__ == "_lu_with_info" and result.info.item() == 1
    assert gg.lu(gg.zeros(3, 3))[1].tolist() == [1, 2, 3]


def test_triangular_solve():
    result = gg.triangular_solve(gg.tensor(B), gg.tensor(A))
    assert type(result).__name__ == "triangular_solve"
    np.testing.assert_allclose(result.solution.numpy(), [[0, 1 / 3], [4 / 9, 2 / 3], [5 / 9, 2 / 3]], atol=1e-6)
    assert result.cloned_coefficient.tolist() == A
    lower_t = gg.triangular_solve(gg.tensor(B), gg.tensor(A), upper=False, transpose=True).solution
    np.testing.assert_allclose(lower_t.numpy(), [[-61 / 54, -11 / 9], [-8 / 27, -2 / 9], [5 / 9, 2 / 3]], atol=1e-5)
    unit = gg.tensor(B).triangular_solve(gg.tensor(A), unitriangular=True).solution
    assert unit.tolist() == [[8.0, 10.0], [-12.0, -14.0], [5.0, 6.0]]


def test_triangular_solve_broadcasts_and_copies_the_coefficient():
    result = gg.triangular_solve(gg.ones(2, 3, 2), gg.eye(3))
    assert result.solution.shape == (2, 3, 2) and result.cloned_coefficient.shape == (2, 3, 3)


def test_each_warns_once_at_the_script_line():
    for call, start in ((lambda: gg.lu(gg.tensor(A)), "torch.lu is deprecated in favor of torch.linalg.lu_factor"),
                        (lambda: gg.lu_solve(gg.tensor(B), *gg.lu(gg.tensor(A))), "torch.lu_solve is deprecated"),
                        (lambda: gg.triangular_solve(gg.tensor(B), gg.tensor(A)),
                         "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"),
                        (lambda: gg.tensor(A).qr(), "torch.qr is deprecated in favor of torch.linalg.qr")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
            call()
        mine = [w for w in caught if str(w.message).startswith(start)]
        assert len(mine) == 1 and mine[0].filename == __file__


@pytest.mark.parametrize("name, args, text", [
    ("matrix_rank", (), "Please use the `torch.linalg.matrix_rank` function instead"),
    ("symeig", (), "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')"),
    ("eig", (), "L_complex = torch.linalg.eigvals(A)"),
    ("solve", ("B",), "X = torch.linalg.solve(A, B)"),
    ("lstsq", ("B",), "X = torch.linalg.lstsq(A, B).solution"),
])
def test_removed_functions_raise_pytorchs_error(name, args, text):
    a = gg.tensor(A)
    operands = [gg.tensor(B) for _ in args] + [a]
    with pytest.raises(RuntimeError, match="This function was deprecated since version 1.9 and is now removed") as e:
        getattr(gg, name)(*operands[::-1] if args else operands)
    assert text in str(e.value)


def test_qr_is_linalg_qr_with_some_for_the_mode():
    rect = np.arange(15.0).reshape(5, 3) ** 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reduced = gg.qr(gg.tensor(rect))
        complete = gg.tensor(rect).qr(some=False)
        with pytest.raises(TypeError, match="must be bool"):
            gg.qr(gg.tensor(rect), 0)
    assert type(reduced).__name__ == "qr" and reduced._fields == ("Q", "R")
    assert reduced.Q.shape == (5, 3) and reduced.R.shape == (3, 3)
    assert complete.Q.shape == (5, 5) and complete.R.shape == (5, 3)
    want = gg.linalg.qr(gg.tensor(rect), mode="complete")
    np.testing.assert_allclose(complete.Q.numpy(), want.Q.numpy())
    np.testing.assert_allclose((reduced.Q @ reduced.R).numpy(), rect, atol=1e-12)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_lu, want_piv = torch.lu(torch.tensor(a))
        got_lu, got_piv = gg.lu(gg.tensor(a))
        np.testing.assert_allclose(got_lu.numpy(), want_lu.numpy(), rtol=1e-10, atol=1e-12)
        assert got_piv.tolist() == want_piv.tolist()
        np.testing.assert_allclose(gg.lu_solve(gg.tensor(b), got_lu, got_piv).numpy(),
                                   torch.lu_solve(torch.tensor(b), want_lu, want_piv).numpy(), rtol=1e-8)
        for upper in (True, False):
            for transpose in (True, False):
                for unit in (True, False):
                    kw = dict(upper=upper, transpose=transpose, unitriangular=unit)
                    want = torch.triangular_solve(torch.tensor(b), torch.tensor(a), **kw).solution.numpy()
                    got = gg.triangular_solve(gg.tensor(b), gg.tensor(a), **kw).solution.numpy()
                    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
        for some in (True, False):
            want_q, want_r = torch.qr(torch.tensor(b[0]), some=some)
            got_q, got_r = gg.qr(gg.tensor(b[0]), some=some)
            np.testing.assert_allclose(got_q.numpy(), want_q.numpy(), atol=1e-10)
            np.testing.assert_allclose(got_r.numpy(), want_r.numpy(), atol=1e-10)
    for name in ("matrix_rank", "symeig", "eig"):
        with pytest.raises(RuntimeError) as want:
            getattr(torch, name)(torch.tensor(a[0]))
        with pytest.raises(RuntimeError) as got:
            getattr(gg, name)(gg.tensor(a[0]))
        assert str(got.value) == str(want.value)
