"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations
(nn/utils/parametrize.py), with PyTorch's stored tensors and state_dict keys:

    weight_norm:   parametrizations.weight.original0 (g, the norms), .original1 (v, the direction)
    spectral_norm: parametrizations.weight.original, and the power iteration's vectors
                   parametrizations.weight.0._u / ._v (buffers, updated by every training forward)
"""
from __future__ import annotations

import functools
from typing import Optional

from ... import _C
from ..._runtime import no_grad
from ..._tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


def norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of v over every dim but `dim`, kept as size-1 dims (dim -1: of the whole tensor, 0-d)."""
    if dim == -1:
        return (v * v).sum().sqrt()
    dim = dim % v.ndim
    others = [d for d in range(v.ndim) if d != dim]
    return (v * v).sum(others, keepdim=True).sqrt() if others else (v * v).sqrt()


def weight_matrix(weight: Tensor, dim: int) -> Tensor:
    """The weight as the matrix whose largest singular value spectral norm divides by: [size(dim), -1]."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.flatten(1)


class _WeightNorm(Module):
    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Reparametrizes module.<name> as g * v / ||v|| (Salimans & Kingma 2016), the norm taken over
    every dim but `dim` (None: the whole tensor); g starts at the weight's norms, v at the weight.
    A state_dict of the older nn.utils.weight_norm (`<name>_g`, `<name>_v`) loads into it, as
    PyTorch's compatibility pre-hook renames those keys."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module._register_load_state_dict_pre_hook(functools.partial(_weight_norm_old_keys, name))
    return module


def _weight_norm_old_keys(name: str, state_dict, prefix: str, *rest) -> None:
    g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
    if g_key in state_dict and v_key in state_dict:
        state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
        state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)


class _SpectralNorm(Module):
    _u: Tensor  # buffers (weights of 2 or more dims): the power iteration's vectors
    _v: Tensor

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise _C.GlassgradIndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] "
                                         f"but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            from ... import randn
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(randn(h, dtype=weight.dtype, device=weight.device), dim=0,
                                                   eps=self.eps))
            self.register_buffer("_v", F.normalize(randn(w, dtype=weight.dtype, device=weight.device), dim=0,
                                                   eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        return weight_matrix(weight, self.dim)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """u <- normalize(W v), v <- normalize(W^T u), n times; the buffers hold the results."""
        with no_grad():
            u, v = self._u, self._v
            for _ in range(n_power_iterations):
                u = F.normalize(weight_mat.detach() @ v, dim=0, eps=self.eps)
                v = F.normalize(weight_mat.detach().transpose(0, 1) @ u, dim=0, eps=self.eps)
            _C.lazy_realize([u._h, v._h])
            self._u, self._v = u, v

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.detach(), self._v.detach()
        sigma = (u * (weight_mat @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Reparametrizes module.<name> as W / sigma(W) (Miyato et al. 2018), sigma the largest singular
    value of W seen as a matrix [size(dim), -1], estimated by power iteration (n_power_iterations
    per training forward; 15 at registration). dim defaults to 1 for ConvTranspose layers, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


from .orthogonal import orthogonal  # noqa: E402  (it registers through parametrize, as the two above)
