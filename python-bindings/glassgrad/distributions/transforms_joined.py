"""CatTransform and StackTransform (torch.distributions.transforms): a list of transforms applied to
consecutive slices of one axis, of the given lengths (cat), or to its entries one each (stack);
log-determinants concatenated or stacked along that axis (summed where the axis falls inside the
event, as torch's). Domains and codomains are constraints.cat / stack (constraints_joined.py)."""
from __future__ import annotations

from typing import Any

from .._shapes import stack
from .._spatial import cat
from .constraints_joined import _Cat, _Stack, _check_axis, _slices
from .transforms import Transform, _sum_rightmost


class CatTransform(Transform):
    """tseq[i] applied to the i-th slice (lengths[i] long, default 1) of axis dim."""

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0):
        super().__init__(cache_size)
        self.transforms = [t.with_cache(cache_size) if cache_size else t for t in tseq]
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim
        self.bijective = all(t.bijective for t in self.transforms)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    @property
    def domain(self):  # type: ignore[override]
        return _Cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):  # type: ignore[override]
        return _Cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _map(self, z: Any, inverse: bool) -> Any:
        _check_axis(z, self.dim, self.length, "y" if inverse else "x", "CatTransform")
        parts = _slices(z, self.dim, self.lengths)
        return cat([(t.inv if inverse else t)(p) for t, p in zip(self.transforms, parts)], self.dim)

    def _call(self, x):
        return self._map(x, False)

    def _inverse(self, y):
        return self._map(y, True)

    def log_abs_det_jacobian(self, x, y):
        _check_axis(x, self.dim, self.length, "x", "CatTransform")
        _check_axis(y, self.dim, self.length, "y", "CatTransform")
        event_dim = self.event_dim
        parts = []
        for t, xs, ys in zip(self.transforms, _slices(x, self.dim, self.lengths), _slices(y, self.dim, self.lengths)):
            parts.append(_sum_rightmost(t.log_abs_det_jacobian(xs, ys), event_dim - t.event_dim))
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + event_dim
        return cat(parts, dim) if dim < 0 else sum(parts)


class StackTransform(Transform):
    """tseq[i] applied to entry i of axis dim (whose size is len(tseq))."""

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0):
        super().__init__(cache_size)
        self.transforms = [t.with_cache(cache_size) if cache_size else t for t in tseq]
        self.dim = dim
        self.bijective = all(t.bijective for t in self.transforms)

    @property
    def domain(self):  # type: ignore[override]
        return _Stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):  # type: ignore[override]
        return _Stack([t.codomain for t in self.transforms], self.dim)

    def _map(self, z: Any, inverse: bool) -> Any:
        _check_axis(z, self.dim, len(self.transforms), "y" if inverse else "x", "StackTransform")
        return stack([(t.inv if inverse else t)(z.select(self.dim, i)) for i, t in enumerate(self.transforms)],
                     self.dim)

    def _call(self, x):
        return self._map(x, False)

    def _inverse(self, y):
        return self._map(y, True)

    def log_abs_det_jacobian(self, x, y):
        _check_axis(x, self.dim, len(self.transforms), "x", "StackTransform")
        _check_axis(y, self.dim, len(self.transforms), "y", "StackTransform")
        return stack([t.log_abs_det_jacobian(x.select(self.dim, i), y.select(self.dim, i))
                      for i, t in enumerate(self.transforms)], self.dim)
