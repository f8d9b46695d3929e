"""torch.nn.utils.spectral_norm / remove_spectral_norm, the forward-pre-hook form: module.<name>
becomes <name>_orig (the Parameter) with the buffers <name>_u and <name>_v, and before every
forward module.<name> = <name>_orig / sigma, sigma = u . (W v) after n_power_iterations of
v <- normalize(W^T u), u <- normalize(W v) in training (none in eval), W = <name>_orig as a
matrix [size(dim), -1] (parametrizations.weight_matrix)."""
from __future__ import annotations

from typing import Optional

from ... import _C
from ..._runtime import no_grad
from .. import functional as F
from ..module import Module, Parameter
from .parametrizations import weight_matrix
from .weight_norm import remove_hook

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


class SpectralNorm:
    """The hook: recomputes module.<name> from <name>_orig, <name>_u and <name>_v."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        mat = weight_matrix(weight, self.dim)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(mat.detach().transpose(0, 1) @ u, dim=0, eps=self.eps)
                    u = F.normalize(mat.detach() @ v, dim=0, eps=self.eps)
                _C.lazy_realize([u._h, v._h])
                setattr(module, self.name + "_u", u)
                setattr(module, self.name + "_v", v)
        sigma = (u.detach() * (mat @ v.detach())).sum()
        return weight / sigma

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        hooks = module.__dict__.setdefault("_spectral_norm_hooks", {})
        if name in hooks:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if not isinstance(weight, Parameter):
            raise ValueError(f"spectral_norm: module has no parameter '{name}'\n"
                             f"  fix: spectral_norm(module, name=...) with one of {list(module._parameters)}")
        from ... import randn
        with no_grad():
            h, w = weight_matrix(weight.detach(), dim).shape
            u = F.normalize(randn(h, dtype=weight.dtype, device=weight.device), dim=0, eps=eps)
            v = F.normalize(randn(w, dtype=weight.dtype, device=weight.device), dim=0, eps=eps)
        del module._parameters[name]
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        hooks[name] = (fn, module.register_forward_pre_hook(fn))
        return fn

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False).detach()
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.numpy(force=True), device=weight.device))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Divides module.<name> by its spectral norm before every forward (Miyato et al. 2018); dim
    defaults to 1 for ConvTranspose layers, else 0. Returns the module."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undoes spectral_norm: module.<name> is a Parameter again, holding the normalized weight."""
    return remove_hook(module, "_spectral_norm_hooks", name, "spectral_norm")
