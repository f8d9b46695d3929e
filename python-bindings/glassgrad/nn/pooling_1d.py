"""Pooling modules with torch.nn's names, arguments, defaults and printed form over
glassgrad._pooling_1d: MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d,
AdaptiveMaxPool2d. Arguments are checked when the layer is built, by a call on a small input."""
from __future__ import annotations

from .. import _args
from .. import _pooling_1d as P
from .module import Module


def _single(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class MaxPool1d(Module):
    """F.max_pool1d(x, kernel_size, stride=kernel_size, padding, dilation, ceil_mode, return_indices)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode
        # kept as given: the forward checks them, as PyTorch's does (docs/porting.md)

    def forward(self, input):
        return P.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool1d(Module):
    """F.avg_pool1d(x, kernel_size, stride=kernel_size, padding, ceil_mode, count_include_pad)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode, self.count_include_pad = _single(padding), ceil_mode, count_include_pad
        # the forward checks them, as PyTorch's does (docs/porting.md)

    def forward(self, input):
        return P.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _Adaptive(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """F.adaptive_avg_pool1d(x, output_size)."""

    def __init__(self, output_size):
        super().__init__(output_size)
        P._one(output_size, "output_size", "AdaptiveAvgPool1d", 1)

    def forward(self, input):
        return P.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(_Adaptive):
    """F.adaptive_max_pool1d(x, output_size, return_indices)."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size)
        P._one(output_size, "output_size", "AdaptiveMaxPool1d", 1)
        self.return_indices = _args.switch(return_indices)

    def forward(self, input):
        return P.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_Adaptive):
    """F.adaptive_max_pool2d(x, output_size, return_indices)."""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size)
        self.return_indices = _args.switch(return_indices)

    def forward(self, input):
        return P.adaptive_max_pool2d(input, self.output_size, self.return_indices)

