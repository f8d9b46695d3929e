"""glassgrad.distributions (torch.distributions): Normal, Uniform, Exponential, Laplace, LogNormal,
Gamma, Chi2, Beta, Dirichlet, StudentT, MultivariateNormal, Poisson, Binomial, Categorical,
OneHotCategorical, Bernoulli, Independent, kl_divergence and register_kl, composed of
glassgrad's differentiable ops (docs/distributions.md)."""
from .continuous import Exponential, Laplace, LogNormal, Normal, Uniform
from .counts import Binomial, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from . import kl_more  # registers the closed forms of the pairs above

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Chi2", "Dirichlet", "Distribution", "Exponential",
           "Gamma", "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical",
           "Poisson", "StudentT", "Uniform", "kl_divergence", "register_kl"]
del kl_more
