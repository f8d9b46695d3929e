"""MaxUnpool1d, MaxUnpool2d and MaxUnpool3d with torch.nn's names, arguments and printed form: the inverse of
max pooling with return_indices=True, each value back at its index and zeros elsewhere
(glassgrad._pool_indices, docs/pooling.md). Arguments are checked when the layer is built."""
from __future__ import annotations

from .. import _pooling, _pooling_1d
from .._pool3d import max_unpool3d, unpool3d_arguments
from .module import Module


class MaxUnpool1d(Module):
    """F.max_unpool1d(x, indices, kernel_size, stride=kernel_size, padding, output_size)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        k, s, p = _pooling_1d.window_arguments("MaxUnpool1d", kernel_size, stride, padding)
        self.kernel_size, self.stride, self.padding = (k,), (s,), (p,)

    def forward(self, input, indices, output_size=None):
        return _pooling_1d.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool2d(Module):
    """F.max_unpool2d(x, indices, kernel_size, stride=kernel_size, padding, output_size)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = _pooling.pool_arguments("MaxUnpool2d", kernel_size, stride,
                                                                              padding)

    def forward(self, input, indices, output_size=None):
        return _pooling.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool3d(Module):
    """F.max_unpool3d(x, indices, kernel_size, stride=kernel_size, padding, output_size)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = unpool3d_arguments("MaxUnpool3d", kernel_size, stride, padding)

    def forward(self, input, indices, output_size=None):
        return max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
