"""PixelShuffle and PixelUnshuffle (PyTorch's nn.PixelShuffle(upscale_factor) and
nn.PixelUnshuffle(downscale_factor)): F.pixel_shuffle / F.pixel_unshuffle as layers."""
from __future__ import annotations

from .. import _args
from .._spatial import pixel_shuffle, pixel_unshuffle, shuffle_factor
from .module import Module


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r), r = upscale_factor (sub-pixel convolution's upsampling)."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = shuffle_factor("pixel_shuffle", upscale_factor, "upscale_factor",
                                             _args.call("PixelShuffle", upscale_factor))

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W), r = downscale_factor (PixelShuffle's inverse)."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = shuffle_factor("pixel_unshuffle", downscale_factor, "downscale_factor",
                                               _args.call("PixelUnshuffle", downscale_factor))

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
