"""torch.linalg against PyTorch (tests/torch_fuzz.py): vector/matrix norms over every ord, dim and
keepdim; det, slogdet, inv, solve, cholesky, lu_factor with their errors on singular, non-square,
non-positive-definite, integer and empty input; qr (its sign convention: LAPACK's Householder
R), svd and eigh (values, shapes, and the factors up to the signs PyTorch leaves open), pinv,
lstsq, matrix_rank, cross, diagonal, matrix_power, batches, and their float64 gradients. Values
within 1e-9 in float64 and 1e-5 in float32 (the factorizations round differently from LAPACK's),
gradients within 1e-7."""
import numpy as np
import pytest

from torch_fuzz import same

RNG = np.random.default_rng(0)
S = RNG.standard_normal((3, 3))
MATRICES = {"square": S, "spd": S @ S.T + 3 * np.eye(3), "singular": np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]),
            "batch": RNG.standard_normal((2, 3, 3)), "wide": RNG.standard_normal((3, 4)),
            "tall": RNG.standard_normal((4, 3)), "1x1": np.array([[2.0]]), "empty": np.zeros((0, 0)),
            "batch of empty": np.zeros((2, 0, 0)), "empty batch": np.zeros((0, 3, 3)),
            "float32": S.astype(np.float32), "int64": np.array([[1, 2], [3, 4]])}
SQUARE = [k for k in MATRICES if k not in ("wide", "tall")]
TOL = 1e-9


def tol(name):
    return 1e-5 if name == "float32" else TOL


VECTOR_ORDS = [None, 0, 1, 2, -1, -2, 3, 0.5, float("inf"), -float("inf")]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf"), 3]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms_over_dims_as_torch(ord):
    v, a = RNG.standard_normal(5), MATRICES["wide"]
    o = 2 if ord is None else ord
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o), v, where="vector", tol=TOL)
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o, dim=1, keepdim=True), a, where="dim=1 keepdim", tol=TOL)
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o, dim=(0, 1)), a, where="dims (0, 1)", tol=TOL)
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o, dim=-1, dtype=lib.float64), a.astype(np.float32),
         where="dtype=float64", tol=1e-6)
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o), np.zeros((0, 3)), where="empty")
    same(lambda lib, t: lib.linalg.vector_norm(t, ord=o), np.array([1, 2]), where="int64")
    same(lambda lib, t: lib.linalg.norm(t, ord=ord), v, where="linalg.norm of a vector", tol=TOL)
    same(lambda lib, t: lib.linalg.norm(t, ord=ord), a, where="linalg.norm of a matrix", tol=TOL)
    same(lambda lib, t: lib.norm(t, p="fro" if ord is None else ord), a, where="torch.norm", tol=TOL)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norms_as_torch(ord):
    a, b = MATRICES["wide"], MATRICES["batch"]
    same(lambda lib, t: lib.linalg.matrix_norm(t, ord=ord), a, where="matrix", tol=TOL)
    same(lambda lib, t: lib.linalg.matrix_norm(t, ord=ord, dim=(0, 2), keepdim=True), b, where="dim (0, 2)", tol=TOL)
    same(lambda lib, t: lib.linalg.norm(t, ord=ord, dim=(1, 2)), b, where="linalg.norm dims", tol=TOL)
    same(lambda lib, t: lib.linalg.matrix_norm(t, ord=ord), RNG.standard_normal(5), where="of a vector")


SQUARE_FUNCTIONS = {"det": lambda lib, t: lib.linalg.det(t), "slogdet": lambda lib, t: lib.linalg.slogdet(t),
                    "torch.det": lambda lib, t: lib.det(t), "logdet": lambda lib, t: lib.logdet(t),
                    "inv": lambda lib, t: lib.linalg.inv(t), "cholesky": lambda lib, t: lib.linalg.cholesky(t),
                    "cholesky upper": lambda lib, t: lib.linalg.cholesky(t, upper=True),
                    "matrix_power 3": lambda lib, t: lib.linalg.matrix_power(t, 3),
                    "matrix_power -2": lambda lib, t: lib.linalg.matrix_power(t, -2),
                    "matrix_power 0": lambda lib, t: lib.linalg.matrix_power(t, 0),
                    "solve vector": lambda lib, t: lib.linalg.solve(t, lib.ones(t.shape[-1], dtype=t.dtype)),
                    "solve matrix": lambda lib, t: lib.linalg.solve(t, lib.ones(t.shape[-1], 2, dtype=t.dtype)),
                    "solve left=False": lambda lib, t: lib.linalg.solve(t, lib.ones(2, t.shape[-1], dtype=t.dtype),
                                                                         left=False),
                    "lu_factor": lambda lib, t: lib.linalg.lu_factor(t), "lu": lambda lib, t: lib.linalg.lu(t),
                    "matrix_exp": lambda lib, t: lib.linalg.matrix_exp(t),
                    "eigvalsh": lambda lib, t: lib.linalg.eigvalsh(t @ t.mT),
                    "eigvalsh U": lambda lib, t: lib.linalg.eigvalsh(t, UPLO="U"),
                    "inv_ex info": lambda lib, t: lib.linalg.inv_ex(t).info,
                    "cholesky_ex info": lambda lib, t: lib.linalg.cholesky_ex(t).info,
                    "solve_ex info": lambda lib, t: lib.linalg.solve_ex(t, lib.ones(t.shape[-1], dtype=t.dtype)).info}


@pytest.mark.parametrize("fn", list(SQUARE_FUNCTIONS))
@pytest.mark.parametrize("name", SQUARE + ["wide"])
def test_square_matrix_functions_values_and_errors_as_torch(fn, name):
    same(SQUARE_FUNCTIONS[fn], MATRICES[name], where=f"{fn} of {name}", tol=tol(name))


def test_errors_of_the_factorizations_as_torch():
    same(lambda lib, t: lib.linalg.inv(t), np.zeros((3, 3)), where="inv of zeros")
    same(lambda lib, t: lib.linalg.inv_ex(t, check_errors=True), np.zeros((2, 3, 3)), where="inv_ex check_errors")
    same(lambda lib, t: lib.linalg.cholesky(t), -np.eye(2), where="cholesky of -I")
    same(lambda lib, t: lib.linalg.solve(t, lib.ones(4, dtype=t.dtype)), S, where="solve of mismatched shapes")
    same(lambda lib, t: lib.linalg.solve(t, lib.ones(3, dtype=lib.float32)), S, where="solve of mixed dtypes")
    same(lambda lib, t: lib.linalg.det(t), np.ones(3), where="det of a vector")
    same(lambda lib, t: lib.linalg.lu_factor(t), np.zeros((2, 3, 3)), where="lu_factor of zeros")
    same(lambda lib, t: lib.linalg.eigh(t), MATRICES["wide"], where="eigh of a wide matrix")


@pytest.mark.parametrize("name", ["wide", "tall", "square", "batch", "empty", "batch of empty"])
def test_qr_svd_shapes_and_values_as_torch(name):
    a = MATRICES[name]
    for mode in ("reduced", "complete", "r"):
        same(lambda lib, t: lib.linalg.qr(t, mode=mode), a, where=f"qr {mode}", tol=TOL)
    for full in (True, False):
        same(lambda lib, t: [u.shape for u in lib.linalg.svd(t, full_matrices=full)], a, where="svd shapes")
        same(lambda lib, t: lib.linalg.svd(t, full_matrices=full).S, a, where="svd S", tol=TOL)
        # U and Vh up to the signs of their singular vectors (PyTorch documents them as not unique)
        same(lambda lib, t: [f.abs() for f in lib.linalg.svd(t, full_matrices=False)[::2]], a, where="|U|, |Vh|",
             tol=TOL)
    same(lambda lib, t: [u.shape for u in lib.svd(t)], a, where="torch.svd shapes")
    same(lambda lib, t: lib.linalg.svdvals(t), a, where="svdvals", tol=TOL)
    same(lambda lib, t: lib.linalg.matrix_rank(t), a, where="matrix_rank")
    same(lambda lib, t: lib.linalg.matrix_rank(t, atol=1.0, rtol=0.0), a, where="matrix_rank atol")
    same(lambda lib, t: lib.linalg.pinv(t), a, where="pinv", tol=TOL)
    rhs = lambda lib, t: lib.ones(*t.shape[:-1], 2, dtype=t.dtype)
    same(lambda lib, t: lib.linalg.lstsq(t, rhs(lib, t)).solution, a, where="lstsq", tol=TOL)
    same(lambda lib, t: [u.shape for u in lib.linalg.lstsq(t, rhs(lib, t))], a, where="lstsq shapes")


@pytest.mark.parametrize("name", ["spd", "square", "batch", "singular"])
def test_eigh_values_and_vectors_up_to_sign_as_torch(name):
    sym = MATRICES[name] @ np.swapaxes(MATRICES[name], -1, -2)
    for uplo in ("L", "U"):
        same(lambda lib, t: lib.linalg.eigh(t, UPLO=uplo).eigenvalues, sym, where="eigenvalues", tol=TOL)
        same(lambda lib, t: lib.linalg.eigh(t, UPLO=uplo).eigenvectors.abs(), sym, where="|eigenvectors|", tol=1e-7)
        same(lambda lib, t: lib.linalg.eigvalsh(t, UPLO=uplo), MATRICES[name], where="eigvalsh of one triangle",
             tol=TOL)
    same(lambda lib, t: lib.linalg.pinv(t, hermitian=True), MATRICES["spd"], where="pinv hermitian", tol=TOL)
    same(lambda lib, t: lib.linalg.matrix_rank(t, hermitian=True), sym, where="rank hermitian")


CROSS = {"4x3": (RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))),
         "vectors": (RNG.standard_normal(3), RNG.standard_normal(3)),
         "dim 1": (RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))),
         "broadcast": (RNG.standard_normal((1, 3)), RNG.standard_normal((5, 3))),
         "size 4": (RNG.standard_normal(4), RNG.standard_normal(4)),
         "ints": (np.array([1, 2, 3]), np.array([4, 5, 6]))}


@pytest.mark.parametrize("name", list(CROSS))
def test_cross_products_and_diagonals_as_torch(name):
    a, b = CROSS[name]
    same(lambda lib, x, y: lib.linalg.cross(x, y), a, b, where="linalg.cross", tol=TOL)
    same(lambda lib, x, y: lib.linalg.cross(x, y, dim=1), a, b, where="linalg.cross dim=1", tol=TOL)
    same(lambda lib, x, y: lib.cross(x, y, dim=-1), a, b, where="torch.cross dim=-1", tol=TOL)
    for offset in (0, 1, -1, 2, 5, -4):
        same(lambda lib, t: lib.linalg.diagonal(t, offset=offset), a, where=f"diagonal {offset}")
        same(lambda lib, t: lib.linalg.diagonal(t, offset=offset, dim1=-1, dim2=0), a, where="diagonal dims")


def test_products_and_batches_as_torch():
    a, b = MATRICES["wide"], MATRICES["batch"]
    same(lambda lib, t: lib.linalg.multi_dot([t, t.mT, t]), a, where="multi_dot", tol=TOL)
    same(lambda lib, t: lib.linalg.multi_dot([t[0], t, t[:, 0]]), a, where="multi_dot of vectors", tol=TOL)
    same(lambda lib, t: lib.linalg.vecdot(t, t), a, where="vecdot", tol=TOL)
    same(lambda lib, t: lib.linalg.matmul(t, t.mT), b, where="matmul", tol=TOL)
    same(lambda lib, t: lib.linalg.cond(t), MATRICES["spd"], where="cond", tol=TOL)
    for p in (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), "bad"):
        for empty in ("empty", "batch of empty"):
            same(lambda lib, t: lib.linalg.cond(t, p), MATRICES[empty], where=f"cond {p} of {empty}")
    same(lambda lib, t: lib.linalg.solve(t, lib.ones(3, 1, dtype=t.dtype)), b, where="solve batch by one B", tol=TOL)
    same(lambda lib, t: lib.linalg.solve(t[:1], lib.ones(4, 3, 2, dtype=t.dtype)), b, where="solve broadcast",
         tol=TOL)
    same(lambda lib, t: lib.trace(t), a, where="trace", tol=TOL)


def test_vander_tensorinv_and_tensorsolve_as_torch():
    for x in (RNG.standard_normal(4), RNG.standard_normal((2, 3)), np.array([2, -3, 4]), np.array([1, 2], np.int32),
              np.array([True, False]), np.array(2.0), np.zeros(0), np.array([1.5])):
        for n in (None, 1, 2, 5):
            same(lambda lib, t: lib.linalg.vander(t, N=n), x, where=f"vander N={n}", tol=TOL)
    a = RNG.standard_normal((4, 6, 8, 3))
    for ind in (0, 1, 2, 3):
        same(lambda lib, t: lib.linalg.tensorinv(t, ind=ind), a, where=f"tensorinv ind={ind}", tol=1e-8)
    same(lambda lib, t: lib.linalg.tensorinv(t), np.zeros((2, 2, 2, 2)), where="tensorinv of a singular")
    a2, b = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))
    same(lambda lib, t, u: lib.linalg.tensorsolve(t, u), a2, b, where="tensorsolve", tol=1e-8)
    same(lambda lib, t, u: lib.linalg.tensorsolve(t.movedim(-1, 0), u, dims=(0,)), a2, b, where="dims", tol=1e-8)
    same(lambda lib, t, u: lib.linalg.tensorsolve(t, u), a2, RNG.standard_normal((3, 2)), where="mismatched B")
    same(lambda lib, t, u: lib.linalg.tensorsolve(t, u), a2, b.astype(np.float32), where="mixed dtypes")


def _weighted_grad(fn):
    """lib, A -> dA of sum(out * (1, 2, 3, ...)) over fn's floating outputs (each entry weighted apart)."""
    def run(lib, t):
        leaf = t.clone().requires_grad_()
        out = fn(lib, leaf)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = sum((o * (1 + lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape))).sum()
                    for o in outs if o.dtype.is_floating_point)
        return lib.autograd.grad(total, leaf)
    return run


SPD_OF = lambda lib, t: t @ t.mT + 3 * lib.eye(t.shape[-1], dtype=t.dtype)
GRADIENTS = {
    "det": (lambda lib, t: lib.linalg.det(t), ["square", "batch"]),
    "slogdet": (lambda lib, t: lib.linalg.slogdet(t).logabsdet, ["square", "batch"]),
    "inv": (lambda lib, t: lib.linalg.inv(t), ["square", "batch"]),
    "solve": (lambda lib, t: lib.linalg.solve(t, t[..., 0]), ["square", "batch"]),
    "cholesky": (lambda lib, t: lib.linalg.cholesky(SPD_OF(lib, t)), ["square", "batch"]),
    "qr": (lambda lib, t: lib.linalg.qr(t), ["tall", "square"]),
    "eigvalsh": (lambda lib, t: lib.linalg.eigvalsh(SPD_OF(lib, t)), ["square", "batch"]),
    "|eigenvectors|": (lambda lib, t: lib.linalg.eigh(SPD_OF(lib, t)).eigenvectors.abs(), ["square"]),
    "svdvals": (lambda lib, t: lib.linalg.svdvals(t), ["tall", "square"]),
    "|svd factors|": (lambda lib, t: [f.abs() for f in lib.linalg.svd(t, full_matrices=False)], ["tall"]),
    "norms": (lambda lib, t: [lib.linalg.norm(t), lib.linalg.matrix_norm(t, "nuc"), lib.linalg.matrix_norm(t, 2),
                              lib.linalg.vector_norm(t, float("inf")), lib.linalg.vector_norm(t, 0.5)], ["tall"]),
    "pinv": (lambda lib, t: lib.linalg.pinv(t), ["tall"]),
    "lstsq": (lambda lib, t: lib.linalg.lstsq(t, t[:, :2]).solution, ["tall"]),
    "matrix_exp": (lambda lib, t: lib.linalg.matrix_exp(t), ["square"]),
    "cross": (lambda lib, t: lib.linalg.cross(t, t.flip(0)), ["tall"]),
    "matrix_power -1": (lambda lib, t: lib.linalg.matrix_power(t, -1), ["square"]),
    "lu_factor": (lambda lib, t: lib.linalg.lu_factor(t).LU, ["square"]),
    "cond": (lambda lib, t: lib.linalg.cond(SPD_OF(lib, t)), ["square"]),
    "multi_dot": (lambda lib, t: lib.linalg.multi_dot([t, t.mT, t]), ["tall"]),
    "logdet": (lambda lib, t: lib.logdet(SPD_OF(lib, t)), ["square"]),
    "tensorinv and vander": (lambda lib, t: [lib.linalg.tensorinv(t, ind=1), lib.linalg.vander(t[0])], ["square"]),
    "solve_triangular": (lambda lib, t: lib.linalg.solve_triangular(t.triu() + 3 * lib.eye(3, dtype=t.dtype), t,
                                                                    upper=True), ["square"]),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients_as_torch(name):
    fn, inputs = GRADIENTS[name]
    for which in inputs:
        same(_weighted_grad(fn), MATRICES[which], where=f"gradient of {name} ({which})", tol=1e-7)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss", "other"])
def test_lstsq_drivers_fields_as_torch(driver):
    for name in ("tall", "wide", "square", "batch"):
        a = MATRICES[name]
        for rhs in (lambda lib, t: lib.ones(*t.shape[:-1], 2, dtype=t.dtype), lambda lib, t: t[..., 0] * 2 + 1):
            same(lambda lib, t: tuple(lib.linalg.lstsq(t, rhs(lib, t), driver=driver)), a, where=f"lstsq {name}",
                 tol=1e-8)
    same(lambda lib, t: tuple(lib.linalg.lstsq(t, lib.ones(3, 2, dtype=t.dtype), driver=driver)), np.zeros((3, 0)),
         where="lstsq of 3 x 0")
