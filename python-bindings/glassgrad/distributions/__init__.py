"""glassgrad.distributions (torch.distributions): Normal, Uniform, Exponential, Laplace,
Categorical, OneHotCategorical, Bernoulli, Independent, kl_divergence and register_kl, composed of
glassgrad's differentiable ops (docs/distributions.md)."""
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent", "Laplace", "Normal",
           "OneHotCategorical", "Uniform", "kl_divergence", "register_kl"]
