"""torch.nn.utils.weight_norm / remove_weight_norm, the forward-pre-hook form (deprecated in PyTorch
in favor of parametrizations.weight_norm, with the same FutureWarning here): module.<name> is
replaced by the parameters <name>_g (the norms) and <name>_v (the direction), and recomputed as
v * g / ||v|| before every forward."""
from __future__ import annotations

import warnings
from typing import Optional

from ..module import Module, Parameter
from .parametrizations import norm_except_dim

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


class WeightNorm:
    """The hook: recomputes module.<name> from <name>_g and <name>_v."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim

    def compute_weight(self, module: Module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module: Module, name: str, dim: Optional[int]) -> "WeightNorm":
        hooks = module.__dict__.setdefault("_weight_norm_hooks", {})
        if name in hooks:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, -1 if dim is None else dim)
        weight = getattr(module, name)
        if not isinstance(weight, Parameter):
            raise ValueError(f"weight_norm: module has no parameter '{name}' (got {type(weight).__name__})\n"
                             f"  fix: weight_norm(module, name=...) with one of {list(module._parameters)}")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight.detach(), fn.dim).numpy(force=True),
                                                         device=weight.device))
        module.register_parameter(name + "_v", Parameter(weight.numpy(force=True), device=weight.device))
        setattr(module, name, fn.compute_weight(module))
        hooks[name] = (fn, module.register_forward_pre_hook(fn))
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module).detach()
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.numpy(force=True), device=weight.device))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Replaces module.<name> by <name>_g * <name>_v / ||<name>_v|| (norm over every dim but `dim`;
    None: the whole tensor), recomputed before each forward. Returns the module."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
                  FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_hook(module: Module, table: str, name: str, what: str) -> Module:
    """Takes the `what` hook of `name` (kept in module.__dict__[table]) off the module and undoes it."""
    hooks = module.__dict__.get(table, {})
    if name not in hooks:
        raise ValueError(f"{what} of '{name}' not found in {module}")
    fn, handle = hooks.pop(name)
    handle.remove()
    fn.remove(module)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undoes weight_norm: module.<name> is a Parameter again, holding the current weight."""
    return remove_hook(module, "_weight_norm_hooks", name, "weight_norm")
