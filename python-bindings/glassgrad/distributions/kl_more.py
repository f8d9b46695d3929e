"""kl_divergence's closed forms for the distributions built on lgamma, digamma and Cholesky
factors (PyTorch's registered pairs): Gamma, Beta, Dirichlet, MultivariateNormal, LogNormal,
Poisson."""
from __future__ import annotations

from .._special import digamma, lgamma
from .._tensor import Tensor
from .continuous import LogNormal
from .counts import Poisson
from .gamma import Beta, Dirichlet, Gamma
from .kl import _kl_normal_normal, register_kl
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    a, b = p.concentration, q.concentration
    t1 = b * (p.rate / q.rate).log()
    t2 = lgamma(b) - lgamma(a)
    t3 = (a - b) * digamma(a)
    t4 = (q.rate - p.rate) * (a / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = lgamma(sum_p) - lgamma(sum_q)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = digamma(p.concentration) - digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    from .. import linalg
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    half_term1 = q._half_log_det() - p._half_log_det()
    Lq_b, Lp_b = Lq.expand(*p.batch_shape, n, n) if len(p.batch_shape) else Lq, Lp
    term2 = linalg.solve_triangular(Lq_b, Lp_b.expand(*Lq_b.shape), upper=False)
    term2 = (term2 * term2).sum((-2, -1))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)
