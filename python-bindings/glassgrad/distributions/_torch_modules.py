"""torch.distributions' per-distribution module names (`from torch.distributions.normal import
Normal`, `torch.distributions.mixture_same_family.MixtureSameFamily`), which scripts import as
often as the package's own names. glassgrad groups its classes by family (continuous.py,
discrete.py, ...), so each PyTorch module name is registered as a small module holding the very
classes glassgrad.distributions exports; names that are glassgrad files already (gamma, cauchy,
continuous_bernoulli, exp_family, multinomial, independent, multivariate_normal, kl, constraints, transforms) are those files."""
from __future__ import annotations

import sys
import types
from typing import Any, Dict, Tuple

# PyTorch's module -> the classes it defines there that glassgrad has (torch 2.14's layout)
TORCH_MODULES: Dict[str, Tuple[str, ...]] = {
    "bernoulli": ("Bernoulli",), "beta": ("Beta",), "binomial": ("Binomial",), "categorical": ("Categorical",),
    "chi2": ("Chi2",), "dirichlet": ("Dirichlet",), "exponential": ("Exponential",),
    "fishersnedecor": ("FisherSnedecor",), "geometric": ("Geometric",),
    "gumbel": ("Gumbel",), "half_cauchy": ("HalfCauchy",), "half_normal": ("HalfNormal",),
    "inverse_gamma": ("InverseGamma",), "kumaraswamy": ("Kumaraswamy",), "laplace": ("Laplace",),
    "log_normal": ("LogNormal",), "lowrank_multivariate_normal": ("LowRankMultivariateNormal",), "mixture_same_family": ("MixtureSameFamily",),
    "negative_binomial": ("NegativeBinomial",), "normal": ("Normal",), "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"),
    "pareto": ("Pareto",), "poisson": ("Poisson",), "relaxed_bernoulli": ("RelaxedBernoulli",),
    "relaxed_categorical": ("RelaxedOneHotCategorical",), "studentT": ("StudentT",),
    "transformed_distribution": ("TransformedDistribution",), "uniform": ("Uniform",), "weibull": ("Weibull",),
}


def register(package: str, namespace: Dict[str, Any]) -> None:
    """Makes package.<module> importable and an attribute of the package, for TORCH_MODULES."""
    for name, classes in TORCH_MODULES.items():
        full = f"{package}.{name}"
        module = types.ModuleType(full, f"torch.distributions.{name}: glassgrad's {', '.join(classes)}")
        for cls in classes:
            setattr(module, cls, namespace[cls])
        setattr(module, "__all__", list(classes))  # a ModuleType made here: its __all__ is ours to set
        module = sys.modules.setdefault(full, module)
        namespace.setdefault(name, module)
