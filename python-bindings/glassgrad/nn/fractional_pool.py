"""nn.FractionalMaxPool2d and nn.FractionalMaxPool3d: glassgrad/_fractional_pool.py's functions as
layers, with PyTorch's arguments, checks and printed form. _random_samples, when given, is a
buffer (PyTorch's: the same windows at every call); without it each call draws new offsets."""
from __future__ import annotations

from .._fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from .module import Module


class _FractionalMaxPool(Module):
    _N = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):
        super().__init__()
        n, name = self._N, type(self).__name__

        def spread(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
        self.kernel_size = spread(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = spread(output_size) if output_size is not None else None
        self.output_ratio = spread(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio\n  fix: "
                             f"{name}({kernel_size}, output_size=...) or output_ratio=0.5")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified\n  fix: "
                             f"{name}({kernel_size}, output_size={output_size}) or output_ratio={output_ratio}")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})\n  {name}: fix: "
                             "output_ratio=0.5 (each output axis half the input's)")

    def forward(self, input):
        pool = fractional_max_pool2d if self._N == 2 else fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """F.fractional_max_pool2d(input, kernel_size, output_size, output_ratio, return_indices, _random_samples)."""
    _N = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """F.fractional_max_pool3d(input, kernel_size, output_size, output_ratio, return_indices, _random_samples)."""
    _N = 3
