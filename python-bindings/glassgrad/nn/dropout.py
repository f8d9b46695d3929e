"""Channel dropout layers (PyTorch's nn.Dropout1d, Dropout2d, Dropout3d): in training, each
channel of each sample is zeroed whole with probability p and the others are scaled by
1 / (1 - p); the identity in eval mode. The mask (one value per sample and channel) is the
Dropout op's, drawn inside its kernel under a seed from glassgrad's generator
(glassgrad/_spatial.py, _masked)."""
from __future__ import annotations

from .. import _args
from .._spatial import dropout1d, dropout2d, dropout3d
from .module import Module


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        where = _args.call(type(self).__name__, p)
        self.p = _args.real(p, "p", where, minimum=0.0, maximum=1.0, fix=f"{type(self).__name__}(0.1) drops 10% of "
                            f"the channels")
        self.inplace = _args.flag(inplace, "inplace", where)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Channel dropout of (N, C, L) or (C, L) input."""

    def forward(self, x):
        return dropout1d(x, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Channel dropout of (N, C, H, W) input (3-d input is read as (N, C, L), with PyTorch's warning)."""

    def forward(self, x):
        return dropout2d(x, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, x):
        return dropout3d(x, self.p, self.training, self.inplace)
