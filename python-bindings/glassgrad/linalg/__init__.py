"""glassgrad.linalg: torch.linalg's functions for float32/float64 batches of matrices [..., n, n],
as composites of glassgrad's ops (elimination, Cholesky, substitution and Householder loops of
batched steps), so they run on every device and their gradients come from autograd; eigh and svd
are LAPACK's through NumPy with closed-form gradients. Design,
coverage and precision: docs/linalg.md."""
from ._checks import LinAlgError
from ._cholesky import cholesky, cholesky_ex, solve_triangular
from ._eig import eig, eigvals
from ._extras import cholesky_inverse, cholesky_solve, cond, matrix_exp, solve_ex
from ._householder_product import householder_product
from ._ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._lu import det, inv, inv_ex, logdet, slogdet, solve
from ._lu_factor import lu, lu_factor, lu_factor_ex, lu_solve, lu_unpack
from ._norms import matrix_norm, norm, vector_norm
from ._polar_sqrth import matrix_sqrth, polar
from ._products import cross, diagonal, matmul, matrix_power, multi_dot, vecdot
from ._qr import lstsq, pinv, qr
from ._spectral import eigh, eigvalsh, matrix_rank, svd, svdvals
from ._tensor_ops import tensorinv, tensorsolve, vander

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "matrix_sqrth", "multi_dot", "norm", "pinv", "polar", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]
del logdet, cholesky_solve, cholesky_inverse, lu_unpack  # top-level only in PyTorch
