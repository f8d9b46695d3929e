"""Dropout layers beyond nn.Dropout, and their functions (exported whole by glassgrad.nn and
glassgrad.nn.functional through __all__):

- Channel dropout (PyTorch's nn.Dropout1d, Dropout2d, Dropout3d): in training, each channel of
  each sample is zeroed whole with probability p and the others are scaled by 1 / (1 - p); the
  identity in eval mode. The mask (one value per sample and channel) is the Dropout op's, drawn
  inside its kernel under a seed from glassgrad's generator (glassgrad/_spatial.py, _masked).
- Alpha dropout (PyTorch's nn.AlphaDropout, F.alpha_dropout; nn.FeatureAlphaDropout and
  F.feature_alpha_dropout drop whole channels), for SELU networks: in training,
  dropped elements take SELU's saturation value and an affine map keeps zero mean and unit
  variance; the AlphaDropout op (autodiff-engine/src/ops/dropout.cpp), the mask drawn as
  Dropout's.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _C, _args
from .._random import dropout_seed
from .._spatial import _dropout_p, _maybe_in_place, dropout1d, dropout2d, dropout3d, dropout_probability
from .._tensor import Tensor, _op, tensor
from .module import Module

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "alpha_dropout", "FeatureAlphaDropout",
           "feature_alpha_dropout"]


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


_SELU_SATURATION = 1.7580993408473766   # -SELU(-inf): a dropped element's value before the affine map


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """torch.nn.functional.feature_alpha_dropout: alpha dropout of whole channels. In training each
    channel of each sample, input[n, c], is kept (mask 1) or dropped (mask 0, probability p), and
    y = x m a + (m - 1) alpha a + alpha a p with alpha = 1.7580993408473766 and
    a = 1 / sqrt((alpha^2 p + 1)(1 - p)) (PyTorch's formula; p = 1 gives x * 0); the identity
    otherwise. The mask is the Dropout op's applied to ones of shape (N, C, 1, ...)."""
    p, training = _dropout_p(_args.call("feature_alpha_dropout", p=p), p, training, inplace)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.ndim < 2:
        raise _C.ShapeError(f"feature_alpha_dropout: Feature dropout requires at least 2 dimensions in the input, got "
                            f"{list(input.shape)}\n  fix: F.alpha_dropout for element-wise dropout")

    def compute() -> Tensor:
        if p == 1.0:
            return input * 0.0
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
        seed = dropout_seed(input.device, "feature alpha dropout seed")
        ones = tensor(np.ones(shape, dtype=input.dtype), device=input.device)
        kept = _op("Dropout", [ones, seed], {"p": p}) * (1.0 - p)          # 0 or 1 per channel
        a = 1.0 / math.sqrt((_SELU_SATURATION ** 2 * p + 1.0) * (1.0 - p))
        return input * (kept * a) + (kept - 1.0) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    return _maybe_in_place(input, inplace, "feature_alpha_dropout_", compute)


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        where = _args.call(type(self).__name__, p)
        self.p = _args.shown(p, dropout_probability(p, where, f"{type(self).__name__}(0.1) drops 10% of the channels",
                                                    layer=True))
        self.inplace = inplace  # as given, as PyTorch keeps it (its repr), read by its truth

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Channel dropout of (N, C, L) or (C, L) input."""

    def forward(self, input):
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Channel dropout of (N, C, H, W) input (3-d input is read as (N, C, L), with PyTorch's warning)."""

    def forward(self, input):
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input):
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout of input of any shape (PyTorch's nn.AlphaDropout; F.alpha_dropout in training)."""

    def forward(self, input):
        return alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (PyTorch's nn.FeatureAlphaDropout; F.feature_alpha_dropout in
    training)."""

    def forward(self, input):
        return feature_alpha_dropout(input, self.p, self.training, self.inplace)
