"""nn.LPPool1d, nn.LPPool2d, nn.LPPool3d and nn.AdaptiveAvgPool3d: glassgrad/_lp_pool.py's functions as layers,
with PyTorch's arguments and printed form."""
from __future__ import annotations

from .. import _C
from .._lp_pool import adaptive_avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d
from .module import Module


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        if norm_type == 0:  # x ** (1 / 0): PyTorch refuses it when the layer is built
            raise _C.InvalidArgumentError(f"norm_type must be a non-zero value, but got {norm_type}\n  fix: "
                                          f"norm_type=2 (the root of the sum of squares), or inf for max pooling")
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """F.lp_pool1d(input, norm_type, kernel_size, stride, ceil_mode) as a layer."""

    def forward(self, input):
        return lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """F.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode) as a layer."""

    def forward(self, input):
        return lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """F.lp_pool3d(input, norm_type, kernel_size, stride, ceil_mode) as a layer."""

    def forward(self, input):
        return lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class AdaptiveAvgPool3d(Module):
    """F.adaptive_avg_pool3d(input, output_size) as a layer."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
