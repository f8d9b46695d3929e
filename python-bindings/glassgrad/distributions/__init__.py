"""glassgrad.distributions (torch.distributions): Normal, Uniform, Exponential, Laplace, LogNormal,
Gamma, Chi2, Beta, Dirichlet, StudentT, MultivariateNormal, Poisson, Binomial, Categorical,
OneHotCategorical, Bernoulli, Independent, Cauchy, HalfCauchy, HalfNormal, Gumbel, Weibull, Pareto,
Geometric, NegativeBinomial, MixtureSameFamily, Multinomial, RelaxedBernoulli, RelaxedOneHotCategorical,
OneHotCategoricalStraightThrough, InverseGamma, Kumaraswamy, FisherSnedecor, ContinuousBernoulli,
LowRankMultivariateNormal, LogisticNormal, VonMises, GeneralizedPareto, Wishart, LKJCholesky, the ExponentialFamily base, TransformedDistribution (with the transforms and constraints
modules), kl_divergence and register_kl, composed of glassgrad's differentiable ops
(docs/distributions.md)."""
from . import constraints, transforms
from .cauchy import Cauchy, HalfCauchy, HalfNormal
from .continuous import Exponential, Laplace, LogNormal, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .counts import Binomial, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .extreme_value import Gumbel, Pareto, Weibull
from .fisher_snedecor import FisherSnedecor
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .generalized_pareto import GeneralizedPareto
from .independent import Independent
from .kl import kl_divergence, register_kl
from .mixture import MixtureSameFamily
from .multinomial import Multinomial
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .low_rank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .relaxed import OneHotCategoricalStraightThrough, RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed import TransformedDistribution
from .transformed_families import InverseGamma, Kumaraswamy
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform,
                         CumulativeDistributionTransform, ExpTransform, IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
                         SoftmaxTransform, SoftplusTransform, StackTransform, StickBreakingTransform, TanhTransform, Transform,
                         identity_transform)
from .constraint_registry import biject_to, transform_to
from .trials import Geometric, NegativeBinomial
from .von_mises import VonMises
from .wishart import Wishart
from . import kl_families, kl_more, kl_continuous_bernoulli, kl_cross, kl_low_rank  # register the closed forms of the pairs above
from . import supports  # attaches each class's arg_constraints and support

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace",
           "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "constraints", "kl_divergence",
           "register_kl", "transforms",
           # torch.distributions re-exports its transforms at the top
           "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform",
           "biject_to", "transform_to"]
del kl_families, kl_more, kl_continuous_bernoulli, kl_cross, kl_low_rank, supports

from ._torch_modules import register as _register_torch_modules
_register_torch_modules(__name__, globals())  # torch.distributions.normal, .categorical, ... (module names)
del _register_torch_modules
