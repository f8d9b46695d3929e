"""PyTorch's deprecated top-level linear algebra (and their Tensor methods), as PyTorch 2 keeps
them: torch.lu, torch.lu_solve, torch.triangular_solve and torch.qr still work, over
glassgrad.linalg, with PyTorch's once-per-process deprecation warnings; torch.matrix_rank, solve,
symeig, eig and lstsq were removed in PyTorch 1.9's successors and raise its RuntimeError naming the linalg
replacement (docs/porting.md, the deprecated linear algebra row)."""
from __future__ import annotations

import warnings
from typing import Dict, List

from . import _args, _runtime, _trace
from ._return_types import return_type
from ._tensor import Tensor
from .linalg import _cholesky, _lu_factor, _qr
from .linalg._checks import into_each

_WARNED: Dict[str, List[bool]] = {"lu": [False], "lu_solve": [False], "triangular_solve": [False], "qr": [False]}


def _warn_once(name: str, text: str) -> None:
    if _runtime.warn_once(_WARNED[name]):
        warnings.warn(text, UserWarning, stacklevel=_trace.user_stacklevel())


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """torch.lu (deprecated for linalg.lu_factor / lu_factor_ex): (LU, pivots), or with get_infos
    the named (LU, pivots, info); a singular A is factored, not refused."""
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
               "be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
               "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, pivots, info = _lu_factor.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return into_each(out, return_type("_lu_with_info", ("LU", "pivots", "info"))(LU, pivots, info), "lu")
    return into_each(out, (LU, pivots), "lu")


def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """torch.lu_solve (deprecated for linalg.lu_solve, whose arguments are reversed): X with A X = b
    for A factored by torch.lu."""
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
               "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
               "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return _lu_factor.lu_solve(LU_data, LU_pivots, input, out=out)


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False,
                     *, out=None):
    """torch.triangular_solve (deprecated for linalg.solve_triangular): the named (solution,
    cloned_coefficient) with op(A) X = b, op(A) = A or A^T (transpose), A upper or lower triangular
    (the other triangle is not read), unitriangular taking its diagonal as ones; cloned_coefficient
    is a copy of A."""
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
               "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
               "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution"
               "\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).")
    op = A.transpose(-2, -1) if transpose else A
    solution = _cholesky.solve_triangular(op, input, upper=bool(upper) != bool(transpose), unitriangular=unitriangular)
    batch = list(solution.shape[:-2])
    coefficient = A.expand(*batch, *A.shape[-2:]).clone() if list(A.shape[:-2]) != batch else A.clone()
    result = return_type("triangular_solve", ("solution", "cloned_coefficient"))(solution, coefficient)
    return into_each(out, result, "triangular_solve")


_REMOVED = "This function was deprecated since version 1.9 and is now removed."
# PyTorch 2's RuntimeError text after _REMOVED, for each removed function
_REMOVED_TEXT = {
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
                   "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
    "solve": " `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
             "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
             "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should "
             "be replaced with:\nX = torch.linalg.solve(A, B)",
    "symeig": " The default behavior has changed from using the upper triangular portion of the matrix by default to "
              "using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
              "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
              "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "eig": " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
           "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
           "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
           "L_complex, V_complex = torch.linalg.eig(A)",
    "lstsq": " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
             "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
             "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
             "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
             "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
             "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
             "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
}


def _removed(name: str, **fields):
    raise RuntimeError(_REMOVED + _REMOVED_TEXT[name].format(**fields))


def qr(input: Tensor, some: bool = True, *, out=None):
    """torch.qr (deprecated for linalg.qr, whose mode replaces some): the named (Q, R), reduced with
    some=True (Q [..., m, k], R [..., k, n], k = min(m, n)), complete with some=False."""
    some = _args.python_bool(some, "some", "qr", "some=True (reduced) or some=False (complete)", position=2)
    _warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
               "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
               "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
               "'complete')")
    Q, R = _qr.qr(input, "reduced" if some else "complete")
    return into_each(out, return_type("qr", ("Q", "R"))(Q, R), "qr")


def matrix_rank(input: Tensor, tol=None, symmetric: bool = False, *, out=None):
    """torch.matrix_rank: removed in PyTorch 2 (its RuntimeError names linalg.matrix_rank)."""
    _removed("matrix_rank")


def solve(input: Tensor, A: Tensor, *, out=None):
    """torch.solve: removed in PyTorch 2 (its RuntimeError names linalg.solve)."""
    _removed("solve")


def symeig(input: Tensor, eigenvectors: bool = False, upper: bool = True, *, out=None):
    """torch.symeig: removed in PyTorch 2 (its RuntimeError names linalg.eigh / eigvalsh)."""
    _removed("symeig")


def eig(self: Tensor, eigenvectors: bool = False, *, e=None, v=None):
    """torch.eig: removed in PyTorch 2 (its RuntimeError names linalg.eig / eigvals)."""
    _removed("eig")


def lstsq(input: Tensor, A: Tensor, *, out=None):
    """torch.lstsq: removed in PyTorch 2 (its RuntimeError names linalg.lstsq)."""
    _removed("lstsq")


__all__ = ["lu", "lu_solve", "triangular_solve", "qr", "matrix_rank", "solve", "symeig", "eig", "lstsq"]


# the Tensor methods, with PyTorch's method signatures
def _lu_method(self: Tensor, pivot: bool = True, get_infos: bool = False):
    return lu(self, pivot, get_infos)


def _qr_method(self: Tensor, some: bool = True):
    return qr(self, some)


def _solve_method(self: Tensor, other: Tensor):
    return solve(self, other)


def _lstsq_method(self: Tensor, other: Tensor):
    return lstsq(self, other)


def _symeig_method(self: Tensor, eigenvectors: bool = False):
    return symeig(self, eigenvectors)


def _eig_method(self: Tensor, eigenvectors: bool = False):
    return eig(self, eigenvectors)


for _name, _method in (("lu", _lu_method), ("qr", _qr_method), ("solve", _solve_method), ("lstsq", _lstsq_method),
                       ("symeig", _symeig_method), ("eig", _eig_method), ("lu_solve", lu_solve),
                       ("triangular_solve", triangular_solve)):
    _method.__doc__ = globals()[_name].__doc__
    setattr(Tensor, _name, _method)
