"""kl_divergence's closed forms for the later families, as torch registers them: Gumbel, Pareto,
Cauchy, HalfNormal, Geometric and Binomial pairs, and two TransformedDistributions with the
same transforms (the KL of their bases: a bijection leaves KL unchanged)."""
from __future__ import annotations

import math
from typing import Any

from .._special import lgamma
from .._tensor import Tensor
from ..functional import where
from .cauchy import Cauchy, HalfNormal
from .counts import Binomial
from .extreme_value import EULER_GAMMA, Gumbel, Pareto
from .kl import _kl_normal_normal, kl_divergence, register_kl
from .transformed import TransformedDistribution
from .trials import Geometric


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    lg: Any = lgamma(1 + ct1)
    return -ct1.log() - ct2 + ct3 + ct1 * EULER_GAMMA + (ct2 + lg - ct3).exp() - (1 + EULER_GAMMA)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return where(p.scale < q.scale, math.inf, result)  # p has mass below q's support


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return ((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2).log() - (4 * p.scale * q.scale).log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base, q.base)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    h: Any = p.entropy()
    return -h - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any().item()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return where(p.total_count > q.total_count, math.inf, kl)


def _same_parameter(a, b) -> bool:
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        from .distribution import broadcast_all
        x, y = broadcast_all(a, b)
        return bool((x == y).all().item())
    return a == b


def _same_transform(a, b) -> bool:
    if type(a) is not type(b):
        return False
    names = [n for n in ("loc", "scale", "exponent", "_event_dim") if hasattr(a, n)]
    inner = [n for n in ("parts",) if hasattr(a, n)]
    if inner:
        return len(a.parts) == len(b.parts) and all(_same_transform(x, y) for x, y in zip(a.parts, b.parts))
    if hasattr(a, "_inv") and type(a).__name__ == "_InverseTransform":
        return _same_transform(a._inv, b._inv)
    return all(_same_parameter(getattr(a, n), getattr(b, n)) for n in names)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if len(p.transforms) != len(q.transforms) or not all(
            _same_transform(a, b) for a, b in zip(p.transforms, q.transforms)):
        raise NotImplementedError("kl_divergence(TransformedDistribution, TransformedDistribution) needs the same "
                                  "transforms on both sides")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("kl_divergence(TransformedDistribution, TransformedDistribution) needs the same "
                                  "event_shape on both sides")
    return kl_divergence(p.base_dist, q.base_dist)
