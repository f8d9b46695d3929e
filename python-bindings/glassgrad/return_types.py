"""torch.return_types: the named tuple types of max(x, dim), min, median, nanmedian, mode,
kthvalue, sort, topk, cummax, cummin, aminmax, frexp, histogram, histogramdd, triangular_solve,
qr, slogdet, svd, lu_unpack and the linalg functions (linalg_eigh, linalg_svd, linalg_qr, ...)
(isinstance(result, glassgrad.return_types.max)); made in _return_types.py."""
from __future__ import annotations

from . import _linalg_names as _names, linalg as _linalg  # noqa: F401  # their result types are made as they are defined
from ._return_types import _TYPES

globals().update(_TYPES)
__all__ = sorted(_TYPES)
