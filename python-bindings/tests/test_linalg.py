"""glassgrad.linalg against numpy.linalg on random well-conditioned matrices (float32 and float64,
single and batched), float64 finite-difference gradients (gg.debug.gradcheck), and PyTorch's
errors (docs/linalg.md)."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.torch as torch_names

LA = gg.linalg
TOL = {"float64": 1e-11, "float32": 2e-4}


def _rand(shape, seed=0):
    rng = np.random.default_rng(seed)
    n = shape[-1]
    return rng.standard_normal(shape) + 2 * np.eye(n) if shape[-1] == shape[-2] else rng.standard_normal(shape)


def _spd(shape, seed=0):
    X = np.random.default_rng(seed).standard_normal(shape)
    return X @ np.swapaxes(X, -1, -2) + shape[-1] * np.eye(shape[-1])


def _close(ours, ref, dtype):
    ours = ours.numpy() if isinstance(ours, gg.Tensor) else np.asarray(ours)
    assert ours.shape == np.shape(ref)
    scale = max(1.0, float(np.abs(ref).max())) if np.size(ref) else 1.0
    np.testing.assert_allclose(ours, ref, rtol=TOL[dtype], atol=TOL[dtype] * scale)


SHAPES = [(1, 1), (3, 3), (5, 5), (2, 4, 4), (2, 3, 6, 6)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_inv_det_slogdet_match_numpy(shape, dtype):
    A = _rand(shape, seed=len(shape))
    a = gg.tensor(A, dtype=dtype)
    _close(LA.inv(a), np.linalg.inv(A), dtype)
    _close(LA.det(a), np.linalg.det(A), dtype)
    _close(gg.inverse(a), np.linalg.inv(A), dtype)
    _close(a.det(), np.linalg.det(A), dtype)
    sign, logabs = LA.slogdet(a)
    rs, rl = np.linalg.slogdet(A)
    _close(sign, rs, dtype)
    _close(logabs, rl, dtype)
    inverse, info = LA.inv_ex(a)
    _close(inverse, np.linalg.inv(A), dtype)
    assert info.dtype == gg.int32 and info.shape == shape[:-2] and not info.numpy().any()


def test_det_needs_pivoting_and_counts_swaps():
    A = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 5.0, 0.0]])  # a zero on the diagonal
    for f, ref in ((LA.det, np.linalg.det(A)), (LA.inv, np.linalg.inv(A))):
        _close(f(gg.tensor(A)), ref, "float64")


def test_singular_matrices():
    A = np.stack([np.eye(3), np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])])
    a = gg.tensor(A)
    assert LA.det(a).numpy()[1] == 0
    sign, logabs = LA.slogdet(a)
    assert sign.numpy()[1] == 0 and logabs.numpy()[1] == -np.inf
    assert gg.logdet(a).numpy()[1] == -np.inf
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): The diagonal element 3 is zero"):
        LA.inv(a)
    with pytest.raises(RuntimeError, match="input matrix is singular"):
        LA.solve(a, gg.ones(2, 3, dtype=gg.float64))
    _, info = LA.inv_ex(a)
    assert info.numpy().tolist() == [0, 3]
    with pytest.raises(LA.LinAlgError):
        LA.inv_ex(a, check_errors=True)


def test_logdet_of_a_negative_determinant_is_nan():
    a = gg.tensor([[0.0, 1.0], [1.0, 0.0]])
    assert np.isnan(gg.logdet(a).item()) and a.logdet().isnan().item()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_solve_shapes_follow_pytorch(dtype):
    A = _rand((2, 4, 4), 1)
    a = gg.tensor(A, dtype=dtype)
    B = np.random.default_rng(2).standard_normal((2, 4, 3))
    _close(LA.solve(a, gg.tensor(B, dtype=dtype)), np.linalg.solve(A, B), dtype)
    v = B[..., 0]  # [2, 4] is A's shape without the last axis: a batch of vectors
    _close(LA.solve(a, gg.tensor(v, dtype=dtype)), np.linalg.solve(A, v[..., None])[..., 0], dtype)
    v1 = B[0, :, 0]  # 1-D: one vector for every matrix
    _close(LA.solve(a, gg.tensor(v1, dtype=dtype)), np.linalg.solve(A, v1[None, :, None])[..., 0], dtype)
    C = np.random.default_rng(3).standard_normal((3, 4))  # broadcast over A's batch, left=False
    ref = np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(C, -1, -2)), -1, -2)
    _close(LA.solve(a, gg.tensor(C, dtype=dtype), left=False), ref, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 5)])
def test_cholesky_matches_numpy(shape, dtype):
    S = _spd(shape, 4)
    s = gg.tensor(S, dtype=dtype)
    L = np.linalg.cholesky(S)
    _close(LA.cholesky(s), L, dtype)
    _close(LA.cholesky(s, upper=True), np.swapaxes(L, -1, -2), dtype)
    _close(gg.cholesky(s), L, dtype)
    _close(s.cholesky(), L, dtype)
    Lx, info = LA.cholesky_ex(s)
    _close(Lx, L, dtype)
    assert not info.numpy().any()


def test_cholesky_reads_the_lower_triangle_and_names_the_failing_minor():
    S = _spd((4, 4), 5)
    junk = np.triu(np.full((4, 4), 7.0), 1)
    _close(LA.cholesky(gg.tensor(np.tril(S) + junk)), np.linalg.cholesky(S), "float64")
    bad = np.stack([S, np.diag([1.0, 2.0, -1.0, 3.0])])
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\).*leading minor of order 3"):
        LA.cholesky(gg.tensor(bad))
    assert LA.cholesky_ex(gg.tensor(bad)).info.numpy().tolist() == [0, 3]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_matches_numpy(upper, left, dtype):
    A = _rand((2, 5, 5), 6)
    T = np.triu(A) if upper else np.tril(A)
    B = np.random.default_rng(7).standard_normal((2, 5, 3) if left else (2, 3, 5))
    ref = np.linalg.solve(T, B) if left else np.swapaxes(np.linalg.solve(np.swapaxes(T, -1, -2),
                                                                         np.swapaxes(B, -1, -2)), -1, -2)
    a = gg.tensor(A, dtype=dtype)  # the other triangle holds junk: it is never read
    _close(LA.solve_triangular(a, gg.tensor(B, dtype=dtype), upper=upper, left=left), ref, dtype)
    U = T - np.diag(np.diag(T[0])) * 0
    unit = U.copy()
    unit[:, range(5), range(5)] = 1
    ref_u = np.linalg.solve(unit, B) if left else None
    if left:
        _close(LA.solve_triangular(a, gg.tensor(B, dtype=dtype), upper=upper, unitriangular=True), ref_u, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4)])
def test_qr_matches_numpy(shape, dtype):
    A = _rand(shape, 8)
    a = gg.tensor(A, dtype=dtype)
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(a, mode=mode)
        rq, rr = np.linalg.qr(A, mode=mode)
        _close(Q, rq, dtype)  # LAPACK's sign convention, as numpy's and PyTorch's
        _close(R, rr, dtype)
    _close(LA.qr(a, mode="r").R, np.linalg.qr(A, mode="r"), dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4)])
def test_pinv_and_lstsq_of_full_rank_matrices(shape, dtype):
    A = _rand(shape, 9)
    a = gg.tensor(A, dtype=dtype)
    _close(LA.pinv(a), np.linalg.pinv(A), dtype)
    _close(gg.pinverse(a), np.linalg.pinv(A), dtype)
    B = np.random.default_rng(10).standard_normal(shape[:-1] + (2,))
    _close(LA.lstsq(a, gg.tensor(B, dtype=dtype)).solution, np.linalg.pinv(A) @ B, dtype)


def _pinv_ref(A, tol_rel):
    """The pseudo-inverse with singular values at most tol_rel * the largest counted as zero."""
    u, s, vh = np.linalg.svd(A, full_matrices=False)
    keep = s > tol_rel * s.max(-1, keepdims=True)
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=keep)
    return (np.swapaxes(vh, -1, -2) * inv[..., None, :]) @ np.swapaxes(u, -1, -2)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 5), (4, 4), (3, 4, 6)])
def test_pinv_of_rank_deficient_matrices_drops_the_small_singular_values(shape, dtype):
    rng = np.random.default_rng(3)
    A = rng.standard_normal(shape[:-1] + (1,)) @ rng.standard_normal(shape[:-2] + (1, shape[-1]))  # rank 1
    eps = np.finfo(dtype).eps * max(shape[-2:])
    _close(LA.pinv(gg.tensor(A, dtype=dtype)), _pinv_ref(A, eps), dtype)
    # The hermitian path: eigenvalues by magnitude.
    S = A[..., :1, :].swapaxes(-1, -2) @ A[..., :1, :] - 2 * np.eye(shape[-1])
    S[..., 0, :] = S[..., :, 0] = 0  # one zero eigenvalue
    _close(LA.pinv(gg.tensor(S, dtype=dtype), hermitian=True), _pinv_ref(S, eps), dtype)


def test_pinv_tolerances_are_pytorchs():
    A = np.diag([4.0, 1.0, 1e-3])

    def want(keep):
        return np.diag([1 / v if k else 0.0 for v, k in zip([4.0, 1.0, 1e-3], keep)])
    np.testing.assert_allclose(LA.pinv(gg.tensor(A)).numpy(), want([1, 1, 1]))
    np.testing.assert_allclose(LA.pinv(gg.tensor(A), atol=0.5).numpy(), want([1, 1, 0]))  # rtol becomes 0
    np.testing.assert_allclose(LA.pinv(gg.tensor(A), rtol=0.3).numpy(), want([1, 0, 0]))  # 0.3 * 4
    np.testing.assert_allclose(LA.pinv(gg.tensor(A), atol=2.0, rtol=0.1).numpy(), want([1, 0, 0]))
    np.testing.assert_allclose(gg.pinverse(gg.tensor(A), rcond=0.01).numpy(), want([1, 1, 0]))
    # a tensor atol, one per matrix of the batch
    AA = np.stack([A, A])
    got = LA.pinv(gg.tensor(AA), atol=gg.tensor([0.0, 2.0], dtype=gg.float64)).numpy()
    np.testing.assert_allclose(got, np.stack([want([1, 1, 1]), want([1, 0, 0])]))


def test_lstsq_of_a_rank_deficient_matrix_gives_the_minimum_norm_solution_and_its_rank():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((2, 6, 1)) @ rng.standard_normal((2, 1, 4))  # rank 1, m > n
    B = rng.standard_normal((2, 6, 3))
    for driver in (None, "gelsy", "gelsd", "gelss"):
        r = LA.lstsq(gg.tensor(A), gg.tensor(B), driver=driver)
        _close(r.solution, _pinv_ref(A, np.finfo(np.float64).eps * 6) @ B, "float64")
        assert r.rank.numpy().tolist() == [1, 1]
        assert tuple(r.residuals.shape) == (0,)  # only when every matrix has full rank
    assert LA.lstsq(gg.tensor(A), gg.tensor(B), driver="gelsd").singular_values.shape == (2, 4)
    with pytest.raises(gg.UnsupportedError, match="rank-deficient"):
        LA.lstsq(gg.tensor(A), gg.tensor(B), driver="gels")
    # rcond decides the rank: singular values 3, 1 and 1e-6
    D = np.diag([3.0, 1.0, 1e-6])
    assert LA.lstsq(gg.tensor(D), gg.tensor(np.eye(3))).rank.item() == 3
    r = LA.lstsq(gg.tensor(D), gg.tensor(np.eye(3)), rcond=1e-3)
    assert r.rank.item() == 2
    np.testing.assert_allclose(r.solution.numpy(), np.diag([1 / 3, 1.0, 0.0]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_norms_match_numpy(dtype):
    A = np.random.default_rng(11).standard_normal((3, 4, 5))
    a = gg.tensor(A, dtype=dtype)
    for ord in ("fro", 1, -1, np.inf, -np.inf):
        _close(LA.matrix_norm(a, ord), np.linalg.norm(A, ord, axis=(-2, -1)), dtype)
        _close(LA.norm(a[0], ord), np.linalg.norm(A[0], ord), dtype)
    _close(LA.matrix_norm(a, 1, dim=(0, 2), keepdim=True), np.linalg.norm(A, 1, axis=(0, 2), keepdims=True), dtype)
    for ord in (2, 1, 0, 3.5, np.inf, -np.inf):
        _close(LA.vector_norm(a, ord, dim=-1), np.linalg.norm(A, ord, axis=-1), dtype)
    _close(LA.vector_norm(a), np.linalg.norm(A.ravel()), dtype)
    _close(LA.norm(a), np.linalg.norm(A.ravel()), dtype)
    _close(LA.norm(a, dim=(1, 2)), np.linalg.norm(A, axis=(1, 2)), dtype)
    for ord in ("nuc", 2, -2):
        _close(LA.matrix_norm(a, ord), np.linalg.norm(A, ord, axis=(-2, -1)), dtype)
        _close(LA.matrix_norm(a, ord, dim=(0, 2), keepdim=True), np.linalg.norm(A, ord, axis=(0, 2), keepdims=True),
               dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (5, 3), (3, 5), (2, 6, 4)])
def test_svd_and_eigh_match_numpy(shape, dtype):
    A = _rand(shape, 13)
    a = gg.tensor(A, dtype=dtype)
    U, S, Vh = LA.svd(a, full_matrices=False)
    _close(S, np.linalg.svd(A, compute_uv=False), dtype)
    _close(U @ (S.unsqueeze(-1) * Vh), A, dtype)
    _close(LA.svdvals(a), np.linalg.svd(A, compute_uv=False), dtype)
    Uf, _, Vhf = LA.svd(a)
    assert Uf.shape[-1] == shape[-2] and Vhf.shape[-2] == shape[-1]
    assert (LA.matrix_rank(a).numpy() == np.linalg.matrix_rank(A)).all()
    if shape[-1] == shape[-2]:
        Sym = A + np.swapaxes(A, -1, -2)
        L, V = LA.eigh(gg.tensor(Sym, dtype=dtype))
        _close(L, np.linalg.eigvalsh(Sym), dtype)
        _close(V @ (L.unsqueeze(-1) * V.transpose(-1, -2)), Sym, dtype)
        _close(LA.eigvalsh(gg.tensor(np.triu(Sym) + np.tril(np.ones_like(Sym), -1) * 9, dtype=dtype), UPLO="U"),
               np.linalg.eigvalsh(Sym), dtype)


def test_matrix_rank_of_rank_deficient_matrices():
    A = np.stack([np.outer([1.0, 2, 3], [1.0, 1, 0]), np.eye(3)])
    assert LA.matrix_rank(gg.tensor(A)).numpy().tolist() == [1, 3]
    assert LA.matrix_rank(gg.tensor(A), atol=1.5).numpy().tolist() == [1, 0]
    U, S, V = gg.svd(gg.tensor(A[0]))
    _close(U @ S.diag_embed() @ V.transpose(-1, -2), A[0], "float64")


def test_products():
    A = _rand((2, 3, 3), 12)
    a = gg.tensor(A)
    for n in (0, 1, 2, 5, -1, -3):
        _close(LA.matrix_power(a, n), np.linalg.matrix_power(A, n), "float64")
        _close(a.matrix_power(n), np.linalg.matrix_power(A, n), "float64")
    Ms = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate([(4,), (4, 3), (3, 5), (5,)])]
    _close(LA.multi_dot([gg.tensor(m) for m in Ms]), np.linalg.multi_dot(Ms), "float64")
    x, y = np.random.default_rng(1).standard_normal((2, 4, 3))
    _close(LA.cross(gg.tensor(x), gg.tensor(y)), np.cross(x, y), "float64")
    _close(LA.vecdot(gg.tensor(x), gg.tensor(y)), (x * y).sum(-1), "float64")
    _close(LA.diagonal(a), np.diagonal(A, 0, -2, -1), "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cholesky_solve_inverse_solve_ex_matrix_exp_cond(dtype):
    sl = pytest.importorskip("scipy.linalg")
    S = _spd((2, 4, 4), 14)
    L = np.linalg.cholesky(S)
    B = np.random.default_rng(15).standard_normal((2, 4, 3))
    _close(gg.cholesky_solve(gg.tensor(B, dtype=dtype), gg.tensor(L, dtype=dtype)), np.linalg.solve(S, B), dtype)
    U = np.swapaxes(L, -1, -2)
    _close(gg.cholesky_solve(gg.tensor(B, dtype=dtype), gg.tensor(U, dtype=dtype), upper=True), np.linalg.solve(S, B),
           dtype)
    _close(gg.cholesky_inverse(gg.tensor(L, dtype=dtype)), np.linalg.inv(S), dtype)
    A = _rand((2, 4, 4), 16)
    result, info = LA.solve_ex(gg.tensor(A, dtype=dtype), gg.tensor(B, dtype=dtype))
    _close(result, np.linalg.solve(A, B), dtype)
    assert info.numpy().tolist() == [0, 0]
    _, info = LA.solve_ex(gg.tensor(np.zeros((2, 3, 3)), dtype=dtype), gg.ones(2, 3, 1, dtype=dtype))
    assert info.numpy().tolist() == [1, 1]
    M = np.random.default_rng(17).standard_normal((2, 4, 4)) * 1.5
    _close(LA.matrix_exp(gg.tensor(M, dtype=dtype)), np.stack([sl.expm(m) for m in M]), dtype)
    _close(gg.matrix_exp(gg.tensor(M[0] * 0, dtype=dtype)), np.eye(4), dtype)
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        _close(LA.cond(gg.tensor(A, dtype=dtype), p), np.linalg.cond(A, p), dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (5, 3), (3, 5)])
def test_lu_matches_scipy(shape, dtype):
    sl = pytest.importorskip("scipy.linalg")
    A = np.random.default_rng(18).standard_normal(shape)
    P, L, U = LA.lu(gg.tensor(A, dtype=dtype))
    refs = [sl.lu(a) for a in A.reshape(-1, *shape[-2:])]
    for got, i in ((P, 0), (L, 1), (U, 2)):
        _close(got, np.stack([r[i] for r in refs]).reshape(got.shape), dtype)
    LU, piv = LA.lu_factor(gg.tensor(A, dtype=dtype))
    assert piv.dtype == gg.int32
    if shape[-1] == shape[-2]:
        B = np.random.default_rng(19).standard_normal(shape[:-1] + (2,))
        _close(LA.lu_solve(LU, piv, gg.tensor(B, dtype=dtype)), np.linalg.solve(A, B), dtype)
        _close(LA.lu_solve(LU, piv, gg.tensor(B, dtype=dtype), adjoint=True),
               np.linalg.solve(np.swapaxes(A, -1, -2), B), dtype)


def test_solvers_refuse_a_right_hand_side_of_another_dtype():
    for call in (lambda: LA.solve(gg.eye(3, dtype=gg.float64), gg.ones(3)),
                 lambda: LA.lstsq(gg.eye(3, dtype=gg.float64), gg.ones(3, 1)),
                 lambda: gg.cholesky_solve(gg.ones(3, 1), gg.eye(3, dtype=gg.float64))):
        with pytest.raises(gg.DTypeError, match="same dtype"):
            call()


def test_errors_name_the_cause():
    with pytest.raises(gg.ShapeError, match="square matrices, but they are 2 by 3"):
        LA.inv(gg.ones(2, 3))
    with pytest.raises(gg.DTypeError, match="floating point"):
        LA.det(gg.ones(3, 3, dtype=gg.int64))
    with pytest.raises(gg.ShapeError, match="at least 2 dimensions"):
        LA.cholesky(gg.ones(3))
    with pytest.raises(gg.DTypeError, match="Low precision"):
        LA.inv(gg.ones(2, 2, dtype=gg.float16))


def test_reachable_under_torch_names():
    assert torch_names.linalg.inv is LA.inv
    for name in ("det", "inverse", "logdet", "slogdet", "cholesky", "matrix_power", "pinverse"):
        assert callable(getattr(torch_names, name)) and callable(getattr(gg.Tensor, name))


GRADS = [
    ("inv", lambda a: LA.inv(a), [(3, 3)]),
    ("det", lambda a: LA.det(a), [(2, 4, 4)]),
    ("slogdet", lambda a: LA.slogdet(a).logabsdet, [(2, 3, 3)]),
    ("logdet", lambda a: gg.logdet(a @ a.transpose(-1, -2)), [(3, 3)]),
    ("solve", lambda a, b: LA.solve(a, b), [(2, 3, 3), (2, 3, 2)]),
    ("solve_vec", lambda a, b: LA.solve(a, b, left=False), [(3, 3), (2, 3)]),
    ("cholesky", lambda x: LA.cholesky(x @ x.transpose(-1, -2) + 3 * gg.eye(3, dtype=gg.float64)), [(2, 3, 3)]),
    ("solve_triangular", lambda a, b: LA.solve_triangular(a, b, upper=True), [(3, 3), (3, 2)]),
    ("qr_Q", lambda a: LA.qr(a).Q, [(4, 3)]),
    ("qr_R", lambda a: LA.qr(a).R, [(2, 4, 3)]),
    ("qr_wide", lambda a: LA.qr(a).R, [(3, 4)]),
    ("pinv", lambda a: LA.pinv(a), [(4, 3)]),
    ("lstsq", lambda a, b: LA.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    # rank 2 for every perturbation (a product through 2 dims): the pseudo-inverse's own gradient
    ("pinv_rank_deficient", lambda a, b: LA.pinv(a @ b), [(4, 2), (2, 3)]),
    ("pinv_rank_deficient_wide", lambda a, b: LA.pinv(a @ b), [(2, 2, 1), (2, 1, 5)]),
    ("pinv_hermitian_rank_deficient", lambda a: LA.pinv(a @ a.transpose(-1, -2), hermitian=True), [(4, 2)]),
    ("lstsq_rank_deficient", lambda a, b, c: LA.lstsq(a @ b, c).solution, [(5, 2), (2, 3), (5, 2)]),
    ("matrix_power", lambda a: LA.matrix_power(a, -2), [(3, 3)]),
    ("vector_norm", lambda a: LA.vector_norm(a, 3, dim=-1), [(3, 4)]),
    ("matrix_norm", lambda a: LA.matrix_norm(a), [(3, 4)]),
    ("multi_dot", lambda a, b: LA.multi_dot([a, b, a]), [(3, 3), (3, 3)]),
    ("svdvals", lambda a: LA.svdvals(a), [(2, 4, 3)]),
    ("matrix_exp", lambda a: LA.matrix_exp(a), [(2, 3, 3)]),
    ("cholesky_solve", lambda x, b: gg.cholesky_solve(b, LA.cholesky(x @ x.transpose(-1, -2) + 3 * gg.eye(
        3, dtype=gg.float64))), [(3, 3), (3, 2)]),
    ("cholesky_inverse", lambda x: gg.cholesky_inverse(LA.cholesky(x @ x.transpose(-1, -2) + 3 * gg.eye(
        3, dtype=gg.float64))), [(3, 3)]),
    ("cond", lambda a: LA.cond(a), [(3, 3)]),
    ("lu_factor", lambda a: LA.lu_factor(a).LU, [(2, 4, 4)]),
    ("lu_wide", lambda a: LA.lu(a).L + LA.lu(a).U.sum(), [(3, 4)]),
    ("lu_solve", lambda a, b: LA.lu_solve(*LA.lu_factor(a), b, adjoint=True), [(3, 3), (3, 2)]),
    ("svd_vectors", lambda a: (lambda r: r.U[..., :2] @ r.Vh[..., :2, :])(LA.svd(a, full_matrices=False)), [(4, 3)]),
    ("svd_wide", lambda a: (lambda r: r.U[..., :1] * r.Vh[..., :1, :] + r.S.sum())(LA.svd(a, full_matrices=False)),
     [(3, 5)]),
    ("matrix_norm_nuc", lambda a: LA.matrix_norm(a, "nuc"), [(3, 4)]),
    ("eigvalsh", lambda a: LA.eigvalsh(a + a.transpose(-1, -2)), [(2, 4, 4)]),
    ("eigh_vectors", lambda a: (lambda r: r.eigenvectors * r.eigenvectors)(LA.eigh(a + a.transpose(-1, -2))),
     [(4, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_finite_differences(name, fn, shapes):
    inputs = [_rand(s, seed=i + 20) for i, s in enumerate(shapes)]
    assert gg.debug.gradcheck(fn, inputs)
