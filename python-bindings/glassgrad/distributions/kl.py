"""kl_divergence(p, q) and register_kl: closed forms registered per pair of types; among the pairs
that match, torch's rule picks one (the most specific in p's type, then in q's; a RuntimeWarning
where the two orders disagree)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

from .. import _C
from .._tensor import Tensor
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent

_KL: Dict[Tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type):
    """Decorator: @register_kl(P, Q) def kl(p, q) -> Tensor."""
    def decorate(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return decorate


class _Match:
    """A registered (P, Q) pair ordered as torch's: one pair precedes another when each of its types
    is a subclass of the other's, compared left to right up to the first that differs."""

    def __init__(self, *types: type):
        self.types = types

    def __lt__(self, other: "_Match") -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch(type_p: type, type_q: type) -> Optional[Callable]:
    """torch's choice among the registered pairs that match: the most specific in P, then in Q; a
    RuntimeWarning where the most specific in Q first picks another function."""
    import warnings
    matches = [(a, b) for a, b in _KL if issubclass(type_p, a) and issubclass(type_q, b)]
    if not matches:
        return None
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left, right = _KL[(left_p, left_q)], _KL[(right_p, right_q)]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), batch-wise."""
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise _C.UnsupportedError(f"kl_divergence: no closed form registered for {type(p).__name__} and "
                                  f"{type(q).__name__}\n  fix: @glassgrad.distributions.register_kl("
                                  f"{type(p).__name__}, {type(q).__name__}) on your own function, or a Monte Carlo "
                                  "estimate: (p.log_prob(x) - q.log_prob(x)).mean() over x = p.sample((n,))")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    from ..functional import where
    t = p.probs * (p.logits - q.logits)
    t = where(q.probs == 0, float("inf"), t)
    t = where(p.probs == 0, 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    from .._losses import binary_cross_entropy_with_logits as bce
    return bce(q.logits, p.probs, reduction="none") - bce(p.logits, p.probs, reduction="none")


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    from ..functional import where
    inside = (q.low <= p.low) & (p.high <= q.high)
    return where(inside, ((q.high - q.low) / (p.high - p.low)).log(), float("inf"))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs / q.scale
    t3 = scale_ratio * (-loc_abs / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise _C.UnsupportedError("kl_divergence(Independent, Independent): both must reinterpret the same number "
                                  "of batch axes")
    return p._sum_rightmost(kl_divergence(p.base_dist, q.base_dist))




@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the shared log normalizer F: F(q) - F(p) - <q - p, grad F(p)>."""
    from .exp_family import natural_gradients
    from .transforms import _sum_rightmost
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence({type(p).__name__}, {type(q).__name__}): the cross KL-divergence "
                                  "between different exponential families cannot be computed using Bregman "
                                  "divergences")
    p_params, log_norm, grads = natural_gradients(p)
    result: Any = q._log_normalizer(*q._natural_params) - log_norm
    batch_dims = max(len(p.batch_shape), len(q.batch_shape))
    for pp, qp, g in zip(p_params, q._natural_params, grads):
        term = (qp - pp) * g
        # each natural parameter's own axes follow the batch axes (Wishart's df has none, its
        # precision two); torch sums len(event_shape) axes, which folds a batched df into one sum
        result = result - _sum_rightmost(term, term.dim() - batch_dims)
    return result
