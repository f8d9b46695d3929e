"""nn.MaxPool3d, nn.AvgPool3d and nn.AdaptiveMaxPool3d: glassgrad/_pool3d.py's functions as
layers, with PyTorch's arguments and printed form (stride None is the kernel size)."""
from __future__ import annotations

from typing import Optional

from .._pool3d import adaptive_max_pool3d, avg_pool3d, max_pool3d
from .module import Module


class MaxPool3d(Module):
    """F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                          self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool3d(Module):
    """F.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Optional[int] = None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveMaxPool3d(Module):
    """F.adaptive_max_pool3d(input, output_size, return_indices)."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
