"""kl_divergence between different families, as torch registers them: closed forms where p's
support lies inside q's (Beta, Exponential, Gamma, Gumbel, Laplace, Normal, Pareto and Uniform
against Normal, Gumbel, Exponential, Gamma, Beta, Pareto, Uniform, Laplace; Bernoulli against
Poisson) and inf where p puts mass outside q's support. Formulas are torch's (its kl.py), written
with glassgrad's ops so they carry gradients to both sides' parameters."""
from __future__ import annotations

import math
from typing import Any

from .._math import erf, xlogy
from .._special import digamma, lgamma
from .._tensor import Tensor
from ..functional import where
from .continuous import Exponential, Laplace, Normal, Uniform
from .counts import Binomial, Poisson
from .discrete import Bernoulli
from .extreme_value import EULER_GAMMA, Gumbel, Pareto
from .gamma import Beta, Gamma
from .kl import register_kl

_LOG_2PI = math.log(2 * math.pi)


def _x_log_x(x: Any) -> Any:
    return xlogy(x, x)


def _inf_like(t: Any) -> Any:
    return t * 0 + math.inf


def _register_infinite(param: str, type_p: type, *types_q: type) -> None:
    for type_q in types_q:
        register_kl(type_p, type_q)(lambda p, q: _inf_like(getattr(p, param)))


_register_infinite("concentration1", Beta, Pareto)
_register_infinite("rate", Exponential, Beta, Pareto, Uniform)
_register_infinite("concentration", Gamma, Beta, Pareto, Uniform)
_register_infinite("loc", Gumbel, Beta, Exponential, Gamma, Pareto, Uniform)
_register_infinite("loc", Laplace, Beta, Exponential, Gamma, Pareto, Uniform)
_register_infinite("loc", Normal, Beta, Exponential, Gamma, Pareto, Uniform)
_register_infinite("scale", Pareto, Beta, Uniform)
_register_infinite("rate", Poisson, Bernoulli, Binomial)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    h: Any = p.entropy()
    return -h - (p.probs * q.rate.log() - q.rate)


def _beta_mean(p: Beta) -> Any:
    return p.concentration1 / (p.concentration1 + p.concentration0)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    h: Any = p.entropy()
    return -h - q.rate.log() + q.rate * _beta_mean(p)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    h: Any = p.entropy()
    a, b = p.concentration1, p.concentration0
    t2: Any = lgamma(q.concentration)
    psi_a: Any = digamma(a)
    t3 = (q.concentration - 1) * (psi_a - digamma(a + b))
    return -h + t2 - q.concentration * q.rate.log() - t3 + q.rate * _beta_mean(p)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    h: Any = p.entropy()
    e = _beta_mean(p)
    var = q.scale ** 2
    t3 = (e * (1 - e) / (p.concentration1 + p.concentration0 + 1) + e ** 2) * 0.5
    return -h + 0.5 * (var * 2 * math.pi).log() + (t3 - q.loc * e + q.loc ** 2 * 0.5) / var


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    h: Any = p.entropy()
    return where((q.low > 0) | (q.high < 1), math.inf, -h + (q.high - q.low).log())


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    lg: Any = lgamma(q.concentration)
    return (-q.concentration * ratio.log() + ratio + lg + q.concentration * EULER_GAMMA - (1 + EULER_GAMMA))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    return prod.log() - 1 - ratio + ratio.exp() * prod / (prod + 1) + 1 / prod


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var = q.scale ** 2
    rate_sqr = p.rate ** 2
    t1 = 0.5 * (rate_sqr * var * 2 * math.pi).log()
    return t1 - 1 + (1 / rate_sqr - q.loc / p.rate + q.loc ** 2 * 0.5) / var


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    h: Any = p.entropy()
    return -h - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    a = p.concentration
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    lg: Any = lgamma(a)
    t1 = (a - 1) * digamma(a) - lg - a
    t2 = prod.log() + a / prod
    t3 = ratio.exp() * (1 + 1 / prod) ** (-a) - ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    a = p.concentration
    var = q.scale ** 2
    beta_sqr = p.rate ** 2
    lg: Any = lgamma(a)
    t1 = 0.5 * (beta_sqr * var * 2 * math.pi).log() - a - lg
    t2 = 0.5 * (a ** 2 + a) / beta_sqr
    return t1 + (a - 1) * digamma(a) + (t2 - q.loc * a / p.rate + 0.5 * q.loc ** 2) / var


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    r = p.scale / q.scale
    t1 = (r / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * r * 0.5) ** 2 / 3
    t3 = ((p.loc + p.scale * EULER_GAMMA - q.loc) / q.scale) ** 2 * 0.5
    return -t1 + t2 + t3 - (EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var = q.scale ** 2
    r = p.scale ** 2 / var
    t1 = 0.5 * (2 * r / math.pi).log()
    return -t1 + r + (0.5 * p.loc ** 2 - p.loc * q.loc + 0.5 * q.loc ** 2) / var - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    m = p.loc / q.scale
    v = (p.scale / q.scale) ** 2
    r = q.loc / q.scale
    return -v.log() * 0.5 + m - r + (-m + 0.5 * v + r).exp() - 0.5 * (1 + _LOG_2PI)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    diff = p.loc - q.loc
    z = diff / p.scale
    t1 = (p.scale / q.scale).log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * z ** 2).exp()
    t3 = diff * erf(math.sqrt(0.5) * z)
    return -t1 + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - 1 / p.alpha + p.alpha * prod / (p.alpha - 1) - 1
    return where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common = p.scale.log() + 1 / p.alpha
    lg: Any = lgamma(q.concentration)
    t2 = lg - q.concentration * q.rate.log()
    result = p.alpha.log() - common + t2 + (1 - q.concentration) * common + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1
    return where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    var2 = 2 * q.scale ** 2
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common ** 2 / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc) ** 2
    return where(p.alpha <= 2, math.inf, t1 - 1 / p.alpha + (t3 + t4) / var2 - 1)


def _uniform_log_terms(p: Uniform) -> tuple:
    """(high - low, E[log x] (high - low) + (high - low)): the x log x integrals over [low, high]."""
    width = p.high - p.low
    return width, _x_log_x(p.high) - _x_log_x(p.low) - width


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width, log_term = _uniform_log_terms(p)
    t2 = (q.concentration1 - 1) * log_term / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    lg1: Any = lgamma(q.concentration1)
    t4 = lg1 + lgamma(q.concentration0) - lgamma(q.concentration1 + q.concentration0)
    result = t3 + t4 - width.log() - t2
    return where((p.high > 1) | (p.low < 0), math.inf, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return where(p.low < 0, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width, log_term = _uniform_log_terms(p)
    lg: Any = lgamma(q.concentration)
    t2 = lg - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * log_term / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return where(p.low < 0, math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common = q.scale / (p.high - p.low)
    hi, lo = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return common.log() + 0.5 * (hi + lo) - common * ((-hi).exp() - (-lo).exp())


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    return t1 + 0.5 * (width ** 2 / 12 + ((p.high + p.low - 2 * q.loc) / 2) ** 2) / q.scale ** 2


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width, log_term = _uniform_log_terms(p)
    t1 = (q.alpha * q.scale ** q.alpha * width).log()
    return where(p.low < q.scale, math.inf, log_term / width * (q.alpha + 1) - t1)
