"""PixelShuffle and PixelUnshuffle (PyTorch's nn.PixelShuffle(upscale_factor) and
nn.PixelUnshuffle(downscale_factor)): F.pixel_shuffle / F.pixel_unshuffle as layers, which keep
the factor as given and whose call refuses a bad one, as PyTorch's (docs/porting.md)."""
from __future__ import annotations

from .._spatial import pixel_shuffle, pixel_unshuffle
from .module import Module


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r), r = upscale_factor (sub-pixel convolution's upsampling)."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor  # as given, as PyTorch keeps it: F.pixel_shuffle checks it

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W), r = downscale_factor (PixelShuffle's inverse)."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor  # as given, as PyTorch keeps it: F.pixel_unshuffle checks it

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
