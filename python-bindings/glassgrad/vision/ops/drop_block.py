"""torchvision.ops.drop_block2d / drop_block3d and DropBlock2d / DropBlock3d (Ghiasi et al.
2018, "DropBlock"): in training, seeds drawn with probability
gamma = p * prod(sizes) / (block_size ** d * prod(size - block_size + 1)) over the positions a
whole block fits, each grown to a block_size cube (a stride-1 max pool), are zeroed; the rest is
scaled by numel / (eps + kept count). block_size is capped at the smallest spatial size and must
then be odd. The input itself when not training or for p = 0."""
from __future__ import annotations

import math

from ... import _factories, nn
from ..._tensor import Tensor

__all__ = ["DropBlock2d", "DropBlock3d", "drop_block2d", "drop_block3d"]


def _drop_block(input, p: float, block_size: int, inplace: bool, eps: float, training: bool,
                dims: int) -> Tensor:
    import glassgrad.nn.functional as F
    what = f"drop_block{dims}d"
    if p < 0.0 or p > 1.0:
        raise ValueError(f"{what}: drop probability has to be between 0 and 1, but got {p}\n  fix: a p in [0, 1]")
    if input.ndim != dims + 2:
        raise ValueError(f"{what}: input should be {dims + 2} dimensional (N, C, {'D, ' if dims == 3 else ''}H, W), "
                         f"got {input.ndim} dimensions (shape {list(input.shape)})")
    if not training or p == 0.0:
        return input
    sizes = list(input.shape[2:])
    block_size = min([block_size] + sizes)
    if block_size % 2 == 0:
        raise ValueError(f"{what}: block size should be odd, got {block_size} which is even\n  fix: an odd "
                         "block_size (it is capped at the smallest spatial size)")
    fits = [s - block_size + 1 for s in sizes]
    gamma = p * math.prod(sizes) / (block_size ** dims * math.prod(fits))
    noise = _factories.empty(list(input.shape[:2]) + fits, dtype=input.dtype, device=input.device).bernoulli_(gamma)
    half = block_size // 2
    noise = F.pad(noise, [half] * (2 * dims), value=0)
    pool = F.max_pool2d if dims == 2 else F.max_pool3d
    noise = 1 - pool(noise, kernel_size=block_size, stride=1, padding=half)
    scale = noise.numel() / (eps + noise.sum())
    if inplace:
        return input.mul_(noise).mul_(scale)
    return input * noise * scale


def drop_block2d(input: Tensor, p: float, block_size: int, inplace: bool = False, eps: float = 1e-06,
                 training: bool = True) -> Tensor:
    """DropBlock on input [N, C, H, W] (torchvision.ops.drop_block2d)."""
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input: Tensor, p: float, block_size: int, inplace: bool = False, eps: float = 1e-06,
                 training: bool = True) -> Tensor:
    """DropBlock on input [N, C, D, H, W] (torchvision.ops.drop_block3d)."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    """torchvision.ops.DropBlock2d(p, block_size, inplace=False, eps=1e-6): drop_block2d while
    training."""

    _dims = 2

    def __init__(self, p: float, block_size: int, inplace: bool = False, eps: float = 1e-06) -> None:
        super().__init__()
        self.p, self.block_size, self.inplace, self.eps = p, block_size, inplace, eps

    def forward(self, input: Tensor) -> Tensor:
        return _drop_block(input, self.p, self.block_size, self.inplace, self.eps, self.training, self._dims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p}, block_size={self.block_size}, inplace={self.inplace})"


class DropBlock3d(DropBlock2d):
    """torchvision.ops.DropBlock3d: drop_block3d while training."""

    _dims = 3
