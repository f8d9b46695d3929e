"""validate_args: torch.distributions' argument checks, with torch's messages. At construction each
parameter named in arg_constraints is checked against its constraint (dependent constraints and
the parameters a distribution derives rather than receives, listed in _lazy_params, are skipped,
as torch skips lazy properties); log_prob and cdf check the value's type, that its rightmost axes
match event_shape, that it broadcasts with batch_shape + event_shape, and that it lies in the
support. Every failure is a ValueError, as torch's."""
from __future__ import annotations

import functools
from typing import Any

from .._tensor import Tensor, tensor


def _shown(value: Any) -> str:
    """A tensor as torch's f-string shows it: a 0-d one as its number, others as printed."""
    return format(value.item()) if value.dim() == 0 else str(value)


def distribution_repr(d: Any) -> str:
    """torch's Distribution.__repr__: each stored parameter, its value if it has one element, else its size."""
    lazy = set(getattr(d, "_lazy_params", ()))
    names = [k for k in _arg_constraints(d) if isinstance(d.__dict__.get(k), Tensor) and k not in lazy]
    args = ", ".join(f"{k}: {_shown(d.__dict__[k]) if d.__dict__[k].numel() == 1 else d.__dict__[k].shape}"
                     for k in names)
    return f"{type(d).__name__}({args})"


def _arg_constraints(d: Any) -> dict:
    try:
        return dict(d.arg_constraints)
    except NotImplementedError:
        return {}


def _all_true(valid: Any) -> bool:
    if not isinstance(valid, Tensor):
        return bool(valid)
    flags: Any = valid  # Any: Distribution._value says why
    return bool(flags.all().item())


def check_parameter(name: str, value: Any, constraint: Any, shown_as: str) -> None:
    """Raises torch's ValueError when value breaks constraint; shown_as is the distribution's repr."""
    value = value if isinstance(value, Tensor) else tensor(value)
    if not _all_true(constraint.check(value)):
        raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                         f"distribution {shown_as} to satisfy the constraint {constraint!r}, but found "
                         f"invalid values:\n{_shown(value)}")


def validate_parameters(d: Any) -> None:
    from .constraints import is_dependent
    lazy = set(getattr(d, "_lazy_params", ()))
    for name, constraint in _arg_constraints(d).items():
        if is_dependent(constraint) or name in lazy:
            continue
        value = getattr(d, name, None)
        if value is not None:
            check_parameter(name, value, constraint, distribution_repr(d))


def validate_sample(d: Any, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise ValueError("The value argument to log_prob must be a Tensor")
    event = tuple(d.event_shape)
    actual = tuple(value.shape)
    if actual[len(actual) - len(event):] != event:
        raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs {d.event_shape}.")
    expected = tuple(d.batch_shape) + event
    for i, j in zip(reversed(actual), reversed(expected)):
        if i != 1 and j != 1 and i != j:
            from .._size import Size
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {value.shape} vs "
                             f"{Size(expected)}.")
    support = d.support
    if support is None:
        return  # a class without a declared support (the relaxed distributions' inner ones)
    if not _all_true(support.check(value)):
        raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within "
                         f"the support ({support!r}) of the distribution {distribution_repr(d)}, but found invalid "
                         f"values:\n{_shown(value)}")


def validating(method: Any) -> Any:
    """log_prob / cdf that first validate their value when the distribution validates arguments."""
    if getattr(method, "_validates", False):
        return method

    @functools.wraps(method)
    def checked(self, value, *args, **kwargs):
        if self._validate_args:
            validate_sample(self, value)
        return method(self, value, *args, **kwargs)
    checked._validates = True  # type: ignore[attr-defined]
    return checked
