"""Dropout layers beyond nn.Dropout, and their functions (exported whole by glassgrad.nn and
glassgrad.nn.functional through __all__):

- Channel dropout (PyTorch's nn.Dropout1d, Dropout2d, Dropout3d): in training, each channel of
  each sample is zeroed whole with probability p and the others are scaled by 1 / (1 - p); the
  identity in eval mode. The mask (one value per sample and channel) is the Dropout op's, drawn
  inside its kernel under a seed from glassgrad's generator (glassgrad/_spatial.py, _masked).
- Alpha dropout (PyTorch's nn.AlphaDropout, F.alpha_dropout), for SELU networks: in training,
  dropped elements take SELU's saturation value and an affine map keeps zero mean and unit
  variance; the AlphaDropout op (autodiff-engine/src/ops/dropout.cpp), the mask drawn as
  Dropout's.
"""
from __future__ import annotations

from .. import _args
from .._random import dropout_seed
from .._spatial import _dropout_p, _maybe_in_place, dropout1d, dropout2d, dropout3d
from .._tensor import Tensor, _op
from .module import Module

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "alpha_dropout"]


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """torch.nn.functional.alpha_dropout: in training, each element is dropped with probability p
    to SELU's negative saturation -1.7580993408473766, then y = a * x' + alpha * a * p with
    a = 1 / sqrt((alpha^2 p + 1)(1 - p)); the identity otherwise (training defaults to False, as
    PyTorch's). p = 1 gives x * 0."""
    p, training = _dropout_p(_args.call("alpha_dropout", p=p), p, training, inplace)
    if not training or p == 0.0:
        return input
    seed = dropout_seed(input.device, "alpha dropout seed")
    return _maybe_in_place(input, inplace, "alpha_dropout_", lambda: _op("AlphaDropout", [input, seed], {"p": p}))


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


class AlphaDropout(_DropoutNd):
    """Alpha dropout of input of any shape (PyTorch's nn.AlphaDropout; F.alpha_dropout in training)."""

    def forward(self, x):
        return alpha_dropout(x, self.p, self.training, self.inplace)
