"""torch.distributions' per-distribution module paths (`from torch.distributions.normal import
Normal`, `torch.distributions.mixture_same_family.MixtureSameFamily`, as dataflowr's normalizing
flow notebook writes it) give glassgrad's classes, the same objects the package exports."""
import importlib
import inspect

import pytest

import glassgrad.distributions as gd
import glassgrad.torch as gtorch
from glassgrad.distributions._torch_modules import TORCH_MODULES


@pytest.mark.parametrize("name", sorted(TORCH_MODULES))
def test_a_torch_module_name_imports_the_packages_classes(name):
    module = importlib.import_module(f"glassgrad.distributions.{name}")
    assert getattr(gd, name) is module
    for cls in TORCH_MODULES[name]:
        assert getattr(module, cls) is getattr(gd, cls)
    assert importlib.import_module(f"glassgrad.torch.distributions.{name}") is module


def test_the_flow_notebooks_spelling_builds_a_mixture():
    gtorch.manual_seed(0)
    mix = gtorch.distributions.Categorical(gtorch.ones(3))
    comp = gtorch.distributions.Normal(gtorch.tensor([-1.0, 0.0, 2.0]), gtorch.ones(3))
    gmm = gtorch.distributions.mixture_same_family.MixtureSameFamily(mix, comp)
    assert gmm.sample((5,)).shape == (5,)


def test_the_names_are_pytorchs():
    """Every module here is a torch.distributions module defining those classes; and every
    torch.distributions module whose class glassgrad has is here, or a glassgrad file."""
    td = pytest.importorskip("torch.distributions")
    import pkgutil
    for name, classes in TORCH_MODULES.items():
        theirs = importlib.import_module(f"torch.distributions.{name}")
        for cls in classes:
            assert getattr(theirs, cls).__module__ == theirs.__name__
    for info in pkgutil.iter_modules(td.__path__):
        theirs = importlib.import_module(f"torch.distributions.{info.name}")
        defined = [n for n, o in vars(theirs).items()
                   if inspect.isclass(o) and n[0].isupper() and o.__module__ == theirs.__name__ and hasattr(td, n)
                   and hasattr(gd, n)]
        if defined and not info.name.startswith("_"):
            ours = importlib.import_module(f"glassgrad.distributions.{info.name}")
            assert all(getattr(ours, n) is getattr(gd, n) for n in defined), (info.name, defined)
