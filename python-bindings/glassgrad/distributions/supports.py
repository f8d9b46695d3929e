"""Each distribution's arg_constraints (parameter name -> Constraint) and support (the Constraint
its values satisfy), as torch.distributions declares them; supports that depend on the
parameters (Uniform's interval, Binomial's 0..total_count, ...) are properties. One table,
attached to the classes when the package is imported."""
from __future__ import annotations

from typing import Any

from . import constraints as C
from .cauchy import Cauchy, HalfCauchy, HalfNormal
from .continuous import Exponential, Laplace, LogNormal, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .counts import Binomial, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .extreme_value import Gumbel, Pareto, Weibull
from .fisher_snedecor import FisherSnedecor
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .generalized_pareto import GeneralizedPareto
from .independent import Independent
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .low_rank_multivariate_normal import LowRankMultivariateNormal
from .mixture import MixtureSameFamily
from .multinomial import Multinomial
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_families import InverseGamma, Kumaraswamy
from .multivariate_normal import MultivariateNormal
from .transformed import TransformedDistribution
from .trials import Geometric, NegativeBinomial
from .von_mises import VonMises
from .wishart import Wishart

_LOC_SCALE = {"loc": C.real, "scale": C.positive}
_PROBS_LOGITS = {"probs": C.unit_interval, "logits": C.real}

_TABLE = [
    (Normal, _LOC_SCALE, C.real), (Laplace, _LOC_SCALE, C.real), (Cauchy, _LOC_SCALE, C.real),
    (Gumbel, _LOC_SCALE, C.real), (LogNormal, _LOC_SCALE, C.positive),
    (Uniform, property(lambda self: {"low": C.less_than(self.high), "high": C.greater_than(self.low)}),
     property(lambda self: C.interval(self.low, self.high))),
    (Exponential, {"rate": C.positive}, C.nonnegative),
    (HalfNormal, {"scale": C.positive}, C.nonnegative), (HalfCauchy, {"scale": C.positive}, C.nonnegative),
    (Weibull, {"scale": C.positive, "concentration": C.positive}, C.positive),
    (Pareto, {"alpha": C.positive, "scale": C.positive}, property(lambda self: C.greater_than_eq(self.scale))),
    (Gamma, {"concentration": C.positive, "rate": C.positive}, C.nonnegative),
    (Chi2, {"df": C.positive}, C.nonnegative),
    (FisherSnedecor, {"df1": C.positive, "df2": C.positive}, C.positive),
    (Beta, {"concentration1": C.positive, "concentration0": C.positive}, C.unit_interval),
    (Dirichlet, {"concentration": C.independent(C.positive, 1)}, C.simplex),
    (StudentT, {"df": C.positive, "loc": C.real, "scale": C.positive}, C.real),
    (Poisson, {"rate": C.nonnegative}, C.nonnegative_integer),
    (Binomial, {"total_count": C.nonnegative_integer, **_PROBS_LOGITS},
     property(lambda self: C.integer_interval(0, self.total_count))),
    (Bernoulli, _PROBS_LOGITS, C.boolean), (ContinuousBernoulli, _PROBS_LOGITS, C.unit_interval),
    (Geometric, _PROBS_LOGITS, C.nonnegative_integer),
    (NegativeBinomial, {"total_count": C.greater_than_eq(0), "probs": C.half_open_interval(0.0, 1.0),
                        "logits": C.real}, C.nonnegative_integer),
    (Categorical, {"probs": C.simplex, "logits": C.independent(C.real, 1)},
     property(lambda self: C.integer_interval(0, self._num_events - 1))),
    (OneHotCategorical, {"probs": C.simplex, "logits": C.independent(C.real, 1)}, C.one_hot),
    (MultivariateNormal, {"loc": C.real_vector, "covariance_matrix": C.positive_definite,
                          "precision_matrix": C.positive_definite, "scale_tril": C.lower_cholesky}, C.real_vector),
    (LowRankMultivariateNormal, {"loc": C.real_vector, "cov_factor": C.independent(C.real, 2),
                                 "cov_diag": C.independent(C.positive, 1)}, C.real_vector),
    (LogisticNormal, _LOC_SCALE, C.simplex), (LKJCholesky, {"concentration": C.positive}, C.corr_cholesky),
    (VonMises, {"loc": C.real, "concentration": C.positive}, C.real),
    (GeneralizedPareto, {"loc": C.real, "scale": C.positive, "concentration": C.real},
     property(lambda self: C.interval(self.loc, _generalized_pareto_upper(self)))),
    (Independent, {}, property(lambda self: C.independent(self.base_dist.support, self.reinterpreted_batch_ndims))),
    (MixtureSameFamily, {}, property(lambda self: self._component_distribution.support)),
    (TransformedDistribution, {}, property(lambda self: _transformed_support(self))),
    (InverseGamma, {"concentration": C.positive, "rate": C.positive}, C.positive),
    (Kumaraswamy, {"concentration1": C.positive, "concentration0": C.positive}, C.unit_interval),
    (Multinomial, {"probs": C.simplex, "logits": C.independent(C.real, 1)},
     property(lambda self: C.multinomial(self.total_count))),
    (RelaxedBernoulli, _PROBS_LOGITS, C.unit_interval),
    (RelaxedOneHotCategorical, {"probs": C.simplex, "logits": C.independent(C.real, 1)}, C.simplex),
]


def _generalized_pareto_upper(d: GeneralizedPareto):
    """loc - scale / c where c < 0, inf elsewhere."""
    from ..functional import where
    c: Any = d.concentration
    return where(c < 0, d.loc - d.scale / c, float("inf"))


def _transformed_support(d: TransformedDistribution) -> C.Constraint:
    """The last transform's codomain, widened to the distribution's event axes."""
    if not d.transforms:
        return d.base_dist.support  # type: ignore[attr-defined]
    support = d.transforms[-1].codomain
    extra = len(d.event_shape) - support.event_dim
    return C.independent(support, extra) if extra > 0 else support


for _cls, _args, _support in _TABLE:
    _cls.arg_constraints = _args  # type: ignore[attr-defined]
    _cls.support = _support  # type: ignore[attr-defined]
Wishart.support = C.positive_definite  # its arg_constraints is a property of the event size
