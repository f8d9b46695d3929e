"""kl_divergence's pairs with a ContinuousBernoulli, as torch registers them: closed forms against
ContinuousBernoulli, Exponential, Normal and Uniform (p a ContinuousBernoulli) and from Beta and
Uniform; inf where one support reaches past the other's (torch's rules, kept as written there:
the CB-to-Uniform pair is inf unless q's interval starts below 0 and ends past 1)."""
from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..functional import where
from .continuous import Exponential, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .extreme_value import Gumbel, Pareto
from .gamma import Beta, Gamma
from .kl import register_kl


def _inf_like(t: Any) -> Any:
    return t * 0 + math.inf


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    mean: Any = p.mean
    t1 = mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


def _cross_entropy_to_cb(p: Any, q: ContinuousBernoulli) -> Any:
    """-H(p) - E_p[log q(x)] with E_p[x] = p.mean: KL(p || q) for p supported inside [0, 1]."""
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_cb(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return _cross_entropy_to_cb(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    result = _cross_entropy_to_cb(p, q)
    return where((p.high >= 1.0) | (p.low <= 0.0), math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    h: Any = p.entropy()
    return -h - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    h: Any = p.entropy()
    mean: Any = p.mean
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale) ** 2) + q.scale.log()
    t3 = (p.variance + mean ** 2 - 2.0 * q.loc * mean) / (2.0 * q.scale ** 2)
    return -h + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    h: Any = p.entropy()
    result = -h + (q.high - q.low).log()
    return where((q.low >= 0.0) | (q.high <= 1.0), math.inf, result)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_cb_pareto(p: ContinuousBernoulli, q: Pareto) -> Tensor:
    return _inf_like(p.probs)


def _register_infinite(first_param: str, *types_p: type) -> None:
    """KL(p || ContinuousBernoulli) = inf for p with mass outside [0, 1], shaped like p's parameter."""
    for type_p in types_p:
        register_kl(type_p, ContinuousBernoulli)(lambda p, q: _inf_like(getattr(p, first_param)))


_register_infinite("rate", Exponential)
_register_infinite("concentration", Gamma)
_register_infinite("loc", Gumbel, Laplace, Normal)
_register_infinite("scale", Pareto)
