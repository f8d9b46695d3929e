"""torch.distributions.constraints' common objects: a Constraint says which values are valid
(check(value) is a boolean tensor over the batch) and how many rightmost axes form one event
(event_dim). Transforms name their domain and codomain with them."""
from __future__ import annotations

from typing import Any

__all__ = ["Constraint", "boolean", "corr_cholesky", "greater_than", "greater_than_eq", "half_open_interval",
           "independent", "integer_interval", "interval", "less_than", "lower_cholesky", "lower_triangular",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "symmetric", "unit_interval"]


class Constraint:
    """A region of valid values: check(value) -> bool tensor; event_dim axes make one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Real(Constraint):
    def check(self, value) -> Any:
        return value == value  # False only at NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value) -> Any:
        return (value == 0) | (value == 1)


class _Interval(Constraint):
    """lower_bound <op> value <op> upper_bound, each bound open or closed; None for no bound."""

    def __init__(self, lower_bound=None, upper_bound=None, closed_low=True, closed_high=True, discrete=False):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self._closed = (closed_low, closed_high)
        self.is_discrete = discrete

    def check(self, value) -> Any:
        ok = value == value
        if self.is_discrete:
            ok = ok & (value % 1 == 0)
        if self.lower_bound is not None:
            ok = ok & ((value >= self.lower_bound) if self._closed[0] else (value > self.lower_bound))
        if self.upper_bound is not None:
            ok = ok & ((value <= self.upper_bound) if self._closed[1] else (value < self.upper_bound))
        return ok

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Independent(Constraint):
    """A base constraint whose rightmost reinterpreted_batch_ndims axes join the event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value) -> Any:
        ok = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value) -> Any:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value) -> Any:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


def greater_than(lower_bound) -> Constraint:
    return _Interval(lower_bound, None, closed_low=False)


def greater_than_eq(lower_bound) -> Constraint:
    return _Interval(lower_bound, None)


def less_than(upper_bound) -> Constraint:
    return _Interval(None, upper_bound, closed_high=False)


def interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound)


def half_open_interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound, closed_high=False)


def integer_interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound, discrete=True)


def independent(base_constraint: Constraint, reinterpreted_batch_ndims: int) -> Constraint:
    return _Independent(base_constraint, reinterpreted_batch_ndims)


real = _Real()
real_vector = independent(real, 1)
boolean = _Boolean()
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer = _Interval(0, None, discrete=True)
positive_integer = _Interval(1, None, discrete=True)
simplex = _Simplex()
one_hot = _OneHot()


from .constraints_matrix import (corr_cholesky, lower_cholesky, lower_triangular, positive_definite,  # noqa: E402
                                 positive_semidefinite, square, symmetric)
