"""torch.distributions.constraints' common objects: a Constraint says which values are valid
(check(value) is a boolean tensor over the batch) and how many rightmost axes form one event
(event_dim). Transforms name their domain and codomain with them."""
from __future__ import annotations

from typing import Any

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than", "greater_than_eq", "half_open_interval",
           "independent", "integer_interval", "interval", "is_dependent", "less_than",
           "multinomial", "lower_cholesky", "lower_triangular",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval"]


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

    def __init__(self, lower_bound=None, upper_bound=None, closed_low=True, closed_high=True, discrete=False,
                 name: str = "Interval"):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self._closed = (closed_low, closed_high)
        self.is_discrete = discrete
        self._name = name  # torch's class name without the underscore, for repr

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
        bounds = [f"{n}={b}" for n, b in (("lower_bound", self.lower_bound), ("upper_bound", self.upper_bound))
                  if b is not None]
        return f"{self._name}({', '.join(bounds)})"


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

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


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
    return _Interval(lower_bound, None, closed_low=False, name="GreaterThan")


def greater_than_eq(lower_bound) -> Constraint:
    return _Interval(lower_bound, None, name="GreaterThanEq")


def less_than(upper_bound) -> Constraint:
    return _Interval(None, upper_bound, closed_high=False, name="LessThan")


def interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound)


def half_open_interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound, closed_high=False, name="HalfOpenInterval")


def integer_interval(lower_bound, upper_bound) -> Constraint:
    return _Interval(lower_bound, upper_bound, discrete=True, name="IntegerInterval")


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters: it cannot be checked
    (validation skips it), as torch's constraints.dependent."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=False, event_dim=0) -> "_Dependent":
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property that is also a dependent constraint (torch's decorator for supports that depend on
    the parameters): @constraints.dependent_property(is_discrete=False, event_dim=0)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        super().__init__(fn)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fn):  # type: ignore[override]
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


dependent = _Dependent()


class _Multinomial(Constraint):
    """Nonnegative counts over the last axis summing to at most upper_bound (torch's multinomial)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value) -> Any:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


def multinomial(upper_bound) -> Constraint:
    return _Multinomial(upper_bound)


def independent(base_constraint: Constraint, reinterpreted_batch_ndims: int) -> Constraint:
    return _Independent(base_constraint, reinterpreted_batch_ndims)


real = _Real()
real_vector = independent(real, 1)
boolean = _Boolean()
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer = _Interval(0, None, discrete=True, name="IntegerGreaterThan")
positive_integer = _Interval(1, None, discrete=True, name="IntegerGreaterThan")
simplex = _Simplex()
one_hot = _OneHot()


from .constraints_joined import cat_constraint as cat, stack_constraint as stack  # noqa: E402
from .constraints_matrix import (corr_cholesky, lower_cholesky, lower_triangular, positive_definite,  # noqa: E402
                                 positive_semidefinite, square, symmetric)
