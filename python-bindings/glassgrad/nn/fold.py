"""nn.Fold and nn.Unfold (glassgrad/_fold.py's functions as layers) and nn.LocalResponseNorm,
with PyTorch's constructor arguments and printed form."""
from __future__ import annotations

from .. import _args
from .._fold import fold, unfold
from .._local_response_norm import local_response_norm
from .._tensor import Tensor
from .module import Module


class Fold(Module):
    """F.fold(input, output_size, kernel_size, dilation, padding, stride) as a layer."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """F.unfold(input, kernel_size, dilation, padding, stride) as a layer."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class LocalResponseNorm(Module):
    """F.local_response_norm(input, size, alpha, beta, k) as a layer."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        where = "LocalResponseNorm"
        self.size = _args.integer(size, "size", where, minimum=1, fix="LocalResponseNorm(5)")
        self.alpha, self.beta, self.k = (_args.shown(v, _args.real(v, n, where)) for v, n in ((alpha, "alpha"), (beta, "beta"),
                                                                             (k, "k")))

    def forward(self, input: Tensor) -> Tensor:
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
