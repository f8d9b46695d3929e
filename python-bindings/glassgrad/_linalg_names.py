"""PyTorch's top-level linear-algebra names (torch.det, torch.inverse, ...) and their Tensor
methods, over glassgrad.linalg (docs/linalg.md)."""
from __future__ import annotations

from ._return_types import torch_name
from . import _autocast, _output_numbers
from ._tensor import Tensor
from typing import NamedTuple

from .linalg._checks import into_each
from .linalg import _cholesky, _extras, _householder_product, _lu, _lu_factor, _products, _qr, _spectral


def det(input: Tensor) -> Tensor:
    """torch.det: linalg.det."""
    return _lu.det(input)


@_autocast.op("inverse")
def inverse(input: Tensor, *, out=None) -> Tensor:
    """torch.inverse: linalg.inv."""
    return _lu.inv(input, out=out)


def logdet(input: Tensor) -> Tensor:
    """torch.logdet: log det(input); NaN for a negative determinant, -inf for a singular input."""
    return _lu.logdet(input)


@torch_name("slogdet")
class _SlogdetResult(NamedTuple):  # linalg.slogdet's is linalg_slogdet
    sign: Tensor
    logabsdet: Tensor


def slogdet(input: Tensor) -> _SlogdetResult:
    """torch.slogdet: linalg.slogdet, (sign, logabsdet)."""
    return _SlogdetResult(*_lu.slogdet(input))


def matrix_power(input: Tensor, n: int) -> Tensor:
    """torch.matrix_power: linalg.matrix_power."""
    return _products.matrix_power(input, n)


@torch_name("svd")
class _SvdResult(NamedTuple):
    U: Tensor
    S: Tensor
    V: Tensor


def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None) -> _SvdResult:
    """torch.svd (PyTorch's older form of linalg.svd): (U, S, V) with input = U diag(S) V^T, V not
    transposed; some=True gives the reduced factors; compute_uv=False gives zero U and V."""
    U, S, Vh = _spectral.svd(input, full_matrices=not some)
    if not compute_uv:
        return into_each(out, _SvdResult(U.detach() * 0, S, Vh.detach().transpose(-1, -2) * 0), "svd")
    _output_numbers.number((U, S))  # V is a view of linalg.svd's Vh: output 0 of its own node
    return into_each(out, _SvdResult(U, S, Vh.transpose(-1, -2)), "svd")


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """torch.orgqr: linalg.householder_product(input, tau)."""
    return _householder_product.householder_product(input, tau)


cholesky_solve = _extras.cholesky_solve
cholesky_inverse = _extras.cholesky_inverse
matrix_exp = _extras.matrix_exp
lu_unpack = _lu_factor.lu_unpack
cholesky = _cholesky.cholesky_top
cholesky.__name__ = "cholesky"
pinverse = _qr.pinverse

__all__ = ["det", "inverse", "logdet", "slogdet", "matrix_power", "cholesky", "pinverse", "svd", "cholesky_solve", "cholesky_inverse",
           "matrix_exp", "orgqr", "lu_unpack"]

for _name in __all__[:-1]:  # lu_unpack is no Tensor method
    setattr(Tensor, _name, globals()[_name])
