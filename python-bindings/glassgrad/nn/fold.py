"""nn.Fold and nn.Unfold (glassgrad/_fold.py's functions as layers), nn.LocalResponseNorm and
nn.CrossMapLRN2d, with PyTorch's constructor arguments and printed form."""
from __future__ import annotations

import numpy as np

from .. import _C, _args
from .._fold import fold, unfold
from .._local_response_norm import local_response_norm
from .._tensor import Tensor, tensor
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


def _cross_map_windows(channels: int, size: int) -> np.ndarray:
    """(C, C) 0/1: which channels' squares enter each channel's sum in CrossMapLRN2d. PyTorch's
    forward builds the sums by a running window (add the next channel, drop the one size behind)
    that starts with the first (size - 1) // 2 + 1 channels and never drops channel 0; the rows
    here are that recursion run on unit vectors, so the sums are the same."""
    pre_pad = int((size - 1) / 2 + 1)
    rows = np.zeros((channels, channels))
    rows[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        rows[c] = rows[c - 1]
        if c < channels - pre_pad + 1:
            rows[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            rows[c, c - pre_pad] -= 1
    return rows


class CrossMapLRN2d(Module):
    """torch.nn.CrossMapLRN2d (the legacy cross-channel LRN of 4-D input):
    x / (k + alpha / size * sum of x^2 over the channel window) ** beta, with PyTorch's window
    (_cross_map_windows). Its gradient is the exact one, through the ops (PyTorch's hand-written
    backward does not pass a finite-difference check)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):
        super().__init__()
        where = "CrossMapLRN2d"
        self.size = _args.integer(size, "size", where, minimum=1, fix="CrossMapLRN2d(5)")
        self.alpha, self.beta, self.k = (_args.shown(v, _args.real(v, n, where)) for v, n in ((alpha, "alpha"),
                                                                                          (beta, "beta"), (k, "k")))

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim != 4:
            raise _C.ShapeError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead (shape "
                                f"{list(input.shape)})\n  fix: (N, C, H, W), e.g. x.unsqueeze(0)")
        n, c, h, w = input.shape
        windows = tensor(_cross_map_windows(c, self.size), dtype=input.dtype, device=input.device)
        sums = windows.matmul((input * input).reshape(n, c, h * w)).reshape(n, c, h, w)
        return input * (sums * (self.alpha / self.size) + self.k) ** (-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
