"""torch.distributions.constraints' cat and stack: a list of constraints checked on consecutive
slices of one axis (cat, of the given lengths) or on its entries one each (stack). Misuse raises
AssertionError, as torch's."""
from __future__ import annotations

from typing import Any, List

from .._shapes import stack
from .._spatial import cat
from .constraints import Constraint


def _check_axis(t: Any, dim: int, size: int, what: str, owner: str) -> None:
    if not -t.dim() <= dim < t.dim():
        raise AssertionError(f"{owner}: dim {dim} out of range for {what} with {t.dim()} dimensions")
    if t.shape[dim] != size:
        raise AssertionError(f"{owner}: {what}.size({dim}) = {t.shape[dim]} must equal {size}")


def _slices(t: Any, dim: int, lengths: List[int]) -> list:
    out, start = [], 0
    for length in lengths:
        out.append(t.narrow(dim, start, length))
        start += length
    return out


class _Cat(Constraint):
    def __init__(self, cseq, dim: int = 0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        self.is_discrete = any(c.is_discrete for c in self.cseq)
        self.event_dim = max(c.event_dim for c in self.cseq)

    def check(self, value) -> Any:
        _check_axis(value, self.dim, sum(self.lengths), "value", "constraints.cat")
        return cat([c.check(v) for c, v in zip(self.cseq, _slices(value, self.dim, self.lengths))], self.dim)


class _Stack(Constraint):
    def __init__(self, cseq, dim: int = 0):
        self.cseq = list(cseq)
        self.dim = dim
        self.is_discrete = any(c.is_discrete for c in self.cseq)
        widest = max(c.event_dim for c in self.cseq)
        self.event_dim = widest + 1 if dim + widest < 0 else widest  # the stacked axis inside the event

    def check(self, value) -> Any:
        _check_axis(value, self.dim, len(self.cseq), "value", "constraints.stack")
        return stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim)


def cat_constraint(cseq, dim: int = 0, lengths=None) -> Constraint:
    return _Cat(cseq, dim, lengths)


def stack_constraint(cseq, dim: int = 0) -> Constraint:
    return _Stack(cseq, dim)
