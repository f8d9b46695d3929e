"""PyTorch's top-level linear-algebra names (torch.det, torch.inverse, ...) and their Tensor
methods, over glassgrad.linalg (docs/linalg.md)."""
from __future__ import annotations

from ._tensor import Tensor
from .linalg import _cholesky, _lu, _products, _qr


def det(input: Tensor) -> Tensor:
    """torch.det: linalg.det."""
    return _lu.det(input)


def inverse(input: Tensor, *, out=None) -> Tensor:
    """torch.inverse: linalg.inv."""
    return _lu.inv(input, out=out)


def logdet(input: Tensor) -> Tensor:
    """torch.logdet: log det(input); NaN for a negative determinant, -inf for a singular input."""
    return _lu.logdet(input)


def slogdet(input: Tensor) -> _lu.SlogDet:
    """torch.slogdet: linalg.slogdet, (sign, logabsdet)."""
    return _lu.slogdet(input)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """torch.matrix_power: linalg.matrix_power."""
    return _products.matrix_power(input, n)


cholesky = _cholesky.cholesky_top
cholesky.__name__ = "cholesky"
pinverse = _qr.pinverse

__all__ = ["det", "inverse", "logdet", "slogdet", "matrix_power", "cholesky", "pinverse"]

for _name in __all__:
    setattr(Tensor, _name, globals()[_name])
