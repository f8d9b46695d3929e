"""The Distribution base (torch.distributions.Distribution): shapes, sampling under no_grad,
argument validation. docs/distributions.md lists what each distribution computes."""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple

from .. import _C
from .._runtime import no_grad
from .._size import Size
from .._tensor import Tensor, tensor

_validate_default = True


def set_default_validate_args(value: bool) -> None:
    """Distribution.set_default_validate_args: whether new distributions check their arguments."""
    global _validate_default
    _validate_default = bool(value)


def as_tensor_like(value, like: Optional[Tensor] = None) -> Tensor:
    """A parameter as a floating tensor (numbers take the default float type or like's dtype)."""
    if isinstance(value, Tensor):
        return value if value.dtype.is_floating_point else value.float()
    if like is not None:
        return tensor(float(value), dtype=like.dtype, device=like.device)
    return tensor(float(value))


def broadcast_all(*values):
    """The parameters broadcast to one shape, numbers made tensors like the first tensor given."""
    from .._shapes import broadcast_tensors
    like = next((v for v in values if isinstance(v, Tensor)), None)
    ts = [as_tensor_like(v, like) for v in values]
    return tuple(broadcast_tensors(*ts))


class Distribution:
    """batch_shape: independent distributions side by side; event_shape: the shape of one draw."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}  # parameter name -> Constraint (supports.py fills them in per class)
    support: Any = None  # the Constraint every value satisfies

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        from .validation import validating
        for name in ("log_prob", "cdf"):  # torch validates the value of both (docs/distributions.md)
            if name in cls.__dict__:
                setattr(cls, name, validating(cls.__dict__[name]))

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args: Optional[bool] = None):
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        self._validate_args = _validate_default if validate_args is None else bool(validate_args)
        if self._validate_args:
            from .validation import validate_parameters
            validate_parameters(self)

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        set_default_validate_args(value)

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()) -> Tuple[int, ...]:
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def sample(self, sample_shape=Size()) -> Tensor:
        """A draw of shape sample_shape + batch_shape + event_shape, with no gradient."""
        with no_grad():
            return self.rsample(sample_shape).detach()

    def sample_n(self, n: int) -> Tensor:
        return self.sample(Size((n,)))

    def rsample(self, sample_shape=Size()) -> Tensor:
        raise _C.UnsupportedError(f"{type(self).__name__}.rsample: this distribution has no reparameterized "
                                  "sampler (its draws are not differentiable)\n  fix: sample() and a score-function "
                                  "estimator (log_prob(x) * reward), as REINFORCE does")

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}.enumerate_support: a continuous or unbounded support "
                                  "cannot be enumerated (has_enumerate_support is False)")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}.cdf is not implemented")

    def icdf(self, value) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}.icdf is not implemented")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    def expand(self, batch_shape, _instance=None) -> "Distribution":
        """A copy whose batch_shape is batch_shape: every parameter tensor (and every component
        distribution) broadcast to it, as torch's expand; the copy shares the parameters' storage."""
        import copy
        new_batch = Size(tuple(batch_shape))
        old = len(self._batch_shape)
        new = copy.copy(self)
        for name, value in list(vars(self).items()):
            if isinstance(value, Tensor) and tuple(value.shape[:old]) == tuple(self._batch_shape) \
                    and value.dim() >= old:
                setattr(new, name, value.expand(*new_batch, *value.shape[old:]))
            elif isinstance(value, Distribution) and tuple(value.batch_shape[:old]) == tuple(self._batch_shape):
                setattr(new, name, value.expand(tuple(new_batch) + tuple(value.batch_shape[old:])))
        new._batch_shape = new_batch
        return new

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    def _check(self, ok: bool, what: str) -> None:
        if self._validate_args and not ok:
            raise ValueError(f"{type(self).__name__}: {what}\n  fix: pass valid parameters, or "
                             f"validate_args=False to skip the check")

    def _value(self, value) -> Any:
        """value as a tensor; typed Any because Tensor's operators and methods are bound from the
        extension at import time, where mypy cannot see them (tools/type_check.py)."""
        v = value if isinstance(value, Tensor) else tensor(value)
        return v

    def _validate_sample(self, value) -> None:
        from .validation import validate_sample
        validate_sample(self, value)

    def __repr__(self) -> str:
        from .validation import distribution_repr
        return distribution_repr(self)


class LocCentred(Distribution):
    """A distribution whose mean and mode are its loc parameter (the vector Gaussians, VonMises)."""

    loc: Any  # Any: Distribution._value says why

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc


LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
