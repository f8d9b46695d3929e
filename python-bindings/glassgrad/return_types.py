"""torch.return_types: the named tuple types of max(x, dim), min, median, nanmedian, mode,
kthvalue, sort, topk, cummax, cummin, aminmax, frexp, histogram, histogramdd and
triangular_solve (isinstance(result, glassgrad.return_types.max)); made in _return_types.py."""
from __future__ import annotations

from ._return_types import PUBLIC, _TYPES

globals().update({name: _TYPES[name] for name in PUBLIC})
__all__ = list(PUBLIC)
