"""nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None) over
glassgrad._rms_norm: a learned weight (ones) of normalized_shape when elementwise_affine."""
from __future__ import annotations

from typing import Optional

from .. import _args, _dtypes
from .._factories import ones
from .._rms_norm import Shape, normalized_dims, rms_norm
from .layers import optional_parameter
from .module import Module, Parameter


class RMSNorm(Module):
    """PyTorch's nn.RMSNorm."""

    def __init__(self, normalized_shape: Shape, eps: Optional[float] = None, elementwise_affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = normalized_dims(normalized_shape)
        self.eps = eps if eps is None else _args.shown(eps, _args.real(eps, "eps", "RMSNorm"))
        self.elementwise_affine = elementwise_affine  # as given, as PyTorch keeps it (its repr), read by its truth
        optional_parameter(self, "weight", Parameter(ones(self.normalized_shape, dtype=dtype or _dtypes.DEFAULT_FLOAT,
                                                          device=device)) if self.elementwise_affine else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            from . import init
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)  # normalized_shape: a tuple

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
