"""ExponentialFamily (torch.distributions.ExponentialFamily): densities
p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)), theta the natural parameters
(_natural_params), F the log normalizer (_log_normalizer), E[k(x)] the mean carrier measure.
The generic entropy and the KL between two members of one family are Bregman divergences of F,
its gradient taken by autograd as torch's (docs/distributions.md)."""
from __future__ import annotations

from typing import Any, Tuple

from .._runtime import enable_grad
from .._tensor import Tensor
from .distribution import Distribution


def natural_gradients(d: "ExponentialFamily") -> Tuple[list, Any, tuple]:
    """(detached natural parameters that require grad, F at them, dF/dtheta). torch takes dF/dtheta
    with create_graph, but its parameters are detached copies, so no caller's leaf can receive a
    gradient through it: the plain gradient gives every reachable leaf the same gradient."""
    from ..autograd import grad
    with enable_grad():
        params = [p.detach().requires_grad_() for p in d._natural_params]
        log_norm: Any = d._log_normalizer(*params)  # Any: Distribution._value says why
        grads = grad(log_norm.sum(), params, create_graph=False)
    return params, log_norm, grads


class ExponentialFamily(Distribution):
    """Base of the exponential families: subclasses give _natural_params, _log_normalizer and
    _mean_carrier_measure; entropy = F(theta) - <theta, grad F(theta)> - E[k(x)]."""

    @property
    def _natural_params(self) -> Tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        result: Any = -self._mean_carrier_measure
        params, log_norm, grads = natural_gradients(self)
        result = result + log_norm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
