"""glassgrad.linalg against torch.linalg: the same float64 inputs give the same values and the same
gradients (d sum(out * u) / d input, u random), and the same errors (docs/linalg.md)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _square(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 2 * np.eye(shape[-1]) if shape[-1] == shape[-2] else rng.standard_normal(shape)


def _spd(n):
    X = np.random.default_rng(n).standard_normal((n, n))
    return X @ X.T + n * np.eye(n)


def _spd_of(lib):
    def f(x):
        n = x.shape[-1]
        return x @ x.transpose(-1, -2) + n * lib.eye(n, dtype=x.dtype)
    return f


def _cholesky(L, a):
    """torch.cholesky(a), which PyTorch 2.14 removed after its deprecation: there the documented
    equivalent, linalg.cholesky(a), is the reference (glassgrad keeps the old name)."""
    if L is gg:
        return L.cholesky(a)
    try:
        return L.cholesky(a)
    except RuntimeError as e:
        if "removed" not in str(e):
            raise
        return L.linalg.cholesky(a)


CASES = [
    ("inv", lambda L, a: L.linalg.inv(a), [(2, 4, 4)]),
    ("inverse", lambda L, a: L.inverse(a), [(3, 3)]),
    ("det", lambda L, a: L.linalg.det(a), [(3, 4, 4)]),
    ("Tensor.det", lambda L, a: a.det(), [(3, 3)]),
    ("slogdet", lambda L, a: tuple(L.linalg.slogdet(a)), [(2, 3, 3)]),
    ("torch.slogdet", lambda L, a: tuple(L.slogdet(a)), [(3, 3)]),
    ("logdet", lambda L, a: L.logdet(a @ a.transpose(-1, -2)), [(2, 3, 3)]),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), [(2, 3, 3), (2, 3, 2)]),
    ("solve_vectors", lambda L, a, b: L.linalg.solve(a, b), [(2, 3, 3), (2, 3)]),
    ("solve_broadcast", lambda L, a, b: L.linalg.solve(a, b), [(2, 3, 3), (3, 4)]),
    ("solve_right", lambda L, a, b: L.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    ("cholesky", lambda L, x: L.linalg.cholesky(_spd_of(L)(x)), [(2, 4, 4)]),
    ("cholesky_upper", lambda L, x: L.linalg.cholesky(_spd_of(L)(x), upper=True), [(3, 3)]),
    ("cholesky_direct", lambda L, a: L.linalg.cholesky(a), ["spd"]),  # gradient of the symmetric matrix
    ("torch.cholesky", lambda L, x: _cholesky(L, _spd_of(L)(x)), [(3, 3)]),
    ("cholesky_ex", lambda L, x: tuple(L.linalg.cholesky_ex(_spd_of(L)(x))), [(3, 3)]),
    ("inv_ex", lambda L, a: tuple(L.linalg.inv_ex(a)), [(2, 3, 3)]),
    ("solve_triangular", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False), [(2, 4, 4), (2, 4, 3)]),
    ("solve_triangular_right", lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, left=False,
                                                                          unitriangular=True), [(4, 4), (3, 4)]),
    ("qr", lambda L, a: tuple(L.linalg.qr(a)), [(5, 3)]),
    ("qr_square", lambda L, a: tuple(L.linalg.qr(a)), [(2, 4, 4)]),
    ("qr_wide_r", lambda L, a: L.linalg.qr(a.detach(), mode="r")[1], [(3, 5)]),
    ("qr_complete_values", lambda L, a: tuple(L.linalg.qr(a.detach(), mode="complete")), [(5, 3)]),
    ("pinv", lambda L, a: L.linalg.pinv(a), [(5, 3)]),
    ("pinv_wide", lambda L, a: L.linalg.pinv(a), [(3, 5)]),
    ("pinv_rank_2", lambda L, a, b: L.linalg.pinv(a @ b), [(4, 2), (2, 3)]),
    ("pinv_rank_1_hermitian", lambda L, a: L.linalg.pinv(a @ a.mT, hermitian=True), [(2, 4, 1)]),
    ("pinv_atol", lambda L, a: L.linalg.pinv(a, atol=0.5), [(4, 3)]),
    ("lstsq_rank_2", lambda L, a, b, c: L.linalg.lstsq(a @ b, c).solution, [(5, 2), (2, 3), (5, 2)]),
    ("lstsq_rank_2_gelsd", lambda L, a, b, c: (lambda r: (r.solution, r.rank, r.singular_values))(
        L.linalg.lstsq(a @ b, c, driver="gelsd")), [(5, 2), (2, 3), (5, 2)]),
    ("pinverse", lambda L, a: L.pinverse(a), [(4, 4)]),
    ("lstsq", lambda L, a, b: L.linalg.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    ("matrix_power", lambda L, a: L.linalg.matrix_power(a, 3), [(2, 3, 3)]),
    ("matrix_power_neg", lambda L, a: L.matrix_power(a, -2), [(3, 3)]),
    ("matrix_power_0", lambda L, a: a.matrix_power(0), [(3, 3)]),
    ("vector_norm", lambda L, a: L.linalg.vector_norm(a), [(3, 4)]),
    ("vector_norm_ord", lambda L, a: L.linalg.vector_norm(a, 3, dim=(0, 1), keepdim=True), [(3, 4, 2)]),
    ("vector_norm_inf", lambda L, a: L.linalg.vector_norm(a, float("inf"), dim=1), [(3, 4)]),
    ("vector_norm_0", lambda L, a: L.linalg.vector_norm(a, 0, dim=-1), [(3, 4)]),
    ("matrix_norm_fro", lambda L, a: L.linalg.matrix_norm(a), [(2, 3, 4)]),
    ("matrix_norm_1", lambda L, a: L.linalg.matrix_norm(a, 1), [(2, 3, 4)]),
    ("matrix_norm_-inf", lambda L, a: L.linalg.matrix_norm(a, -float("inf"), keepdim=True), [(2, 3, 4)]),
    ("norm", lambda L, a: L.linalg.norm(a), [(2, 3, 4)]),
    ("norm_matrix", lambda L, a: L.linalg.norm(a, float("inf")), [(3, 4)]),
    ("norm_dim", lambda L, a: L.linalg.norm(a, 1, dim=1), [(2, 3, 4)]),
    ("multi_dot", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4,)]),
    ("cross", lambda L, a, b: L.linalg.cross(a, b), [(4, 3), (4, 3)]),
    ("vecdot", lambda L, a, b: L.linalg.vecdot(a, b), [(4, 3), (4, 3)]),
    ("diagonal", lambda L, a: L.linalg.diagonal(a, offset=1), [(2, 4, 4)]),
    # singular vectors and eigenvectors up to sign: compared through sign-free products
    ("svdvals", lambda L, a: L.linalg.svdvals(a), [(2, 5, 3)]),
    ("svd_products", lambda L, a: (lambda r: (r[0] * r[0], r[1], r[2] * r[2], r[0][..., :1] * r[2][..., :1, :]))(
        L.linalg.svd(a, full_matrices=False)), [(5, 4)]),
    ("svd_wide", lambda L, a: (lambda r: (r[1], r[0][..., :2] @ r[2][..., :2, :]))(
        L.linalg.svd(a, full_matrices=False)), [(2, 3, 5)]),
    ("torch.svd", lambda L, a: (lambda r: (r[1], r[0][..., :1] * r[2][..., :, :1].transpose(-1, -2)))(L.svd(a)),
     [(4, 3)]),
    ("eigh", lambda L, a: (lambda r: (r[0], r[1] * r[1]))(L.linalg.eigh(a + a.transpose(-1, -2))), [(2, 4, 4)]),
    ("eigh_lower_only", lambda L, a: L.linalg.eigvalsh(a), [(4, 4)]),
    ("eigvalsh_upper", lambda L, a: L.linalg.eigvalsh(a, UPLO="U"), [(4, 4)]),
    ("matrix_norm_nuc", lambda L, a: L.linalg.matrix_norm(a, "nuc"), [(2, 3, 4)]),
    ("matrix_norm_2", lambda L, a: L.linalg.matrix_norm(a, 2), [(2, 3, 4)]),
    ("matrix_norm_-2", lambda L, a: L.linalg.matrix_norm(a, -2, dim=(0, 2)), [(3, 2, 4)]),
    ("matrix_rank", lambda L, a: L.linalg.matrix_rank(a.detach()), [(2, 3, 4)]),
    ("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), [(2, 3, 3)]),
    ("torch.matrix_exp", lambda L, a: L.matrix_exp(a * 3), [(4, 4)]),
    ("cholesky_solve", lambda L, x, b: L.cholesky_solve(b, L.linalg.cholesky(_spd_of(L)(x))), [(2, 3, 3), (2, 3, 2)]),
    ("cholesky_solve_upper", lambda L, x, b: L.cholesky_solve(b, L.linalg.cholesky(_spd_of(L)(x), upper=True),
                                                               upper=True), [(3, 3), (3, 2)]),
    ("cholesky_inverse", lambda L, x: L.cholesky_inverse(L.linalg.cholesky(_spd_of(L)(x))), [(3, 3)]),
    ("solve_ex", lambda L, a, b: tuple(L.linalg.solve_ex(a, b)), [(2, 3, 3), (2, 3)]),
    ("cond", lambda L, a: L.linalg.cond(a), [(2, 3, 3)]),
    ("lu_factor", lambda L, a: tuple(L.linalg.lu_factor(a)), [(2, 4, 4)]),
    ("lu_factor_tall", lambda L, a: tuple(L.linalg.lu_factor(a)), [(5, 3)]),
    ("lu", lambda L, a: tuple(L.linalg.lu(a)), [(2, 4, 4)]),
    ("lu_wide", lambda L, a: tuple(L.linalg.lu(a)), [(3, 5)]),
    ("lu_unpack", lambda L, a: tuple(L.lu_unpack(*L.linalg.lu_factor(a))), [(4, 4)]),
    ("lu_solve", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [(2, 4, 4), (2, 4, 3)]),
    ("lu_solve_adjoint", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
     [(4, 4), (4, 2)]),
    ("lu_solve_right", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False), [(4, 4), (2, 4)]),
    ("cond_1", lambda L, a: L.linalg.cond(a.detach(), 1), [(3, 3)]),  # PyTorch cannot differentiate it
]


# in the graph with no gradient for the input (x.grad stays None in PyTorch, zeros here)
def _run(lib, fn, arrays):
    if lib is gg:
        xs = [gg.tensor(a, requires_grad=True) for a in arrays]
    else:
        xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    rng = np.random.default_rng(99)
    loss = 0
    for o in outs:
        u = rng.standard_normal(tuple(o.shape))  # drawn for every output: both libraries draw the same u's
        if o.dtype in (gg.float64, torch.float64) and o.requires_grad:
            loss = loss + (o * (gg.tensor(u) if lib is gg else torch.tensor(u))).sum()
    grads = []
    if not isinstance(loss, int):
        loss.backward()
        grads = [x.grad for x in xs]
    return [o.detach().numpy() for o in outs], [None if g is None else g.detach().numpy() for g in grads]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_are_torchs(name, fn, shapes):
    arrays = [_spd(4) if s == "spd" else _square(s, i + 3) if len(s) >= 2 else
              np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    ours, our_grads = _run(gg, fn, arrays)
    theirs, their_grads = _run(torch, fn, arrays)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape and o.dtype == t.dtype, (o.shape, t.shape, o.dtype, t.dtype)
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-10)
    for o, t in zip(our_grads, their_grads):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(o, t, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float32_and_float64_values_are_torchs(dtype):
    A = _square((3, 5, 5), 1)
    ours = gg.linalg.inv(gg.tensor(A, dtype=dtype)).numpy()
    theirs = torch.linalg.inv(torch.tensor(A, dtype=getattr(torch, dtype))).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-4 if dtype == "float32" else 1e-12, atol=1e-5)


ERRORS = [
    ("inv_singular", lambda L: L.linalg.inv(L.zeros(2, 3, 3, dtype=L.float64))),
    ("solve_singular", lambda L: L.linalg.solve(L.zeros(3, 3, dtype=L.float64), L.ones(3, dtype=L.float64))),
    ("cholesky_not_pd", lambda L: L.linalg.cholesky(-L.eye(3, dtype=L.float64).expand(2, 3, 3))),
    ("not_square", lambda L: L.linalg.inv(L.ones(2, 3))),
    ("integer", lambda L: L.linalg.inv(L.ones(3, 3, dtype=L.int64))),
    ("one_dimensional", lambda L: L.linalg.det(L.ones(3))),
    ("solve_dtypes", lambda L: L.linalg.solve(L.eye(3, dtype=L.float64), L.ones(3))),
    ("cholesky_solve_dtypes", lambda L: L.cholesky_solve(L.ones(3, 1), L.eye(3, dtype=L.float64))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_torchs(name, fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(gg)
    first_line = str(ours.value).split("\n")[0]
    assert first_line == str(theirs.value)
    if isinstance(theirs.value, torch.linalg.LinAlgError):
        assert isinstance(ours.value, (gg.linalg.LinAlgError, RuntimeError))
