"""biject_to(constraint) and transform_to(constraint) (torch.distributions.constraint_registry): a
transform from unconstrained reals onto a constraint's set, for optimizing constrained parameters
(p = transform_to(C.positive)(u), u free). biject_to's are bijective (simplex by stick-breaking);
transform_to's may not be (simplex by softmax; also lower_cholesky, positive_definite and
positive_semidefinite). register(constraint, factory) adds one. glassgrad's interval-like
constraints share one class, so entries are keyed by torch's class name (GreaterThan, Interval, ...)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from .constraints import _Independent, _Real, _Simplex
from .constraints_matrix import _CorrCholesky, _LowerCholesky, _PositiveDefinite, _PositiveSemidefinite
from . import transforms as T
from . import transforms_more as TM


def _key(constraint: Any) -> Any:
    """The registry key: torch's constraint class name for glassgrad's intervals, else the class."""
    if isinstance(constraint, (type, str)):
        return constraint
    name = getattr(constraint, "_name", None)
    return name if name is not None else type(constraint)


class ConstraintRegistry:
    """constraint (an instance, or a class) -> factory(constraint) -> Transform."""

    def __init__(self) -> None:
        self._registry: Dict[Any, Callable] = {}

    def register(self, constraint: Any, factory: Optional[Callable] = None) -> Any:
        if factory is None:
            return lambda f: self.register(constraint, f)
        self._registry[_key(constraint)] = factory
        return factory

    def __call__(self, constraint: Any) -> Any:
        try:
            factory = self._registry[_key(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint):
    return T.identity_transform


def _independent_biject(constraint):
    return TM.IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _independent_transform(constraint):
    return TM.IndependentTransform(transform_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


def _positive(constraint):
    """exp then a shift, positive (greater_than(0)) included: torch's greater_than entry replaces its
    positive one, both keyed by the same class."""
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.lower_bound, 1)])


def _less_than(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.upper_bound, -1)])


def _interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if not hasattr(low, "shape") and not hasattr(high, "shape") and low == 0 and high == 1:
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(low, high - low)])


for _registry, _independent in ((biject_to, _independent_biject), (transform_to, _independent_transform)):
    _registry.register(_Real, _real)
    _registry.register(_Independent, _independent)
    for _name in ("GreaterThan", "GreaterThanEq"):
        _registry.register(_name, _positive)
    _registry.register("LessThan", _less_than)
    for _name in ("Interval", "HalfOpenInterval"):
        _registry.register(_name, _interval)
    _registry.register(_CorrCholesky, lambda c: TM.CorrCholeskyTransform())

biject_to.register(_Simplex, lambda c: T.StickBreakingTransform())
transform_to.register(_Simplex, lambda c: TM.SoftmaxTransform())
transform_to.register(_LowerCholesky, lambda c: TM.LowerCholeskyTransform())
transform_to.register(_PositiveDefinite, lambda c: TM.PositiveDefiniteTransform())
transform_to.register(_PositiveSemidefinite, lambda c: TM.PositiveDefiniteTransform())
